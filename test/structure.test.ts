/**
 * House rules checked on the source tree (docs/ARCHITECTURE.md, Layers; CONTRIBUTING.md):
 * no import cycle (type imports included; a lazy `import()` is how a command loads what it
 * needs and is not followed), no import that runs up the floors ARCHITECTURE.md draws
 * (static, type or `import()`), no src file over 400 lines, no function over 120 lines
 * (80 in src/agent). Data literals are not functions: a long table counts against its file only.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(f) ? [p] : [];
  });
}

/** Relative static imports and re-exports of one file, resolved to files. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?[^'";]*?\s*from\s*['"](\.[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), m[1]!).replace(/\.js$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target) out.push(target);
  }
  return out;
}

/** Every relative module a file names, static, type-only, side-effect or lazy (`import('…')`), as paths under src/. */
function allImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)|^\s*import\s*['"](\.[^'"]+)['"]/gm),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!);
  return specs.map((s) => relative(SRC, resolve(dirname(file), s)));
}

function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, staticImports(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    path.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') found.push(path.slice(path.indexOf(d)).map((p) => relative(SRC, p)));
      else if (!state.has(d)) visit(d);
    }
    path.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

/**
 * The floors of docs/ARCHITECTURE.md's drawing, top first: each line of the Layers drawing
 * that starts with ` src/` is one floor, its folders (or files) separated by `│`.
 */
function floorsOfArchitecture(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Layers\n'));
  const drawing = section.slice(section.indexOf('```\n') + 4, section.indexOf('\n```', section.indexOf('```\n') + 4));
  return drawing
    .split('\n')
    .filter((l) => l.startsWith(' src/'))
    .map((l) =>
      l
        .trim()
        .split(/\s{2,}/)[0]!
        .split('│')
        .map((name) =>
          name
            .trim()
            .replace(/^src\//, '')
            .replace(/\/$/, ''),
        ),
    );
}

/** The floor a path under src/ stands on: its top folder, or itself for a file at the top. */
const topOf = (pathUnderSrc: string): string => pathUnderSrc.split('/')[0]!.replace(/\.js$/, '.ts');

describe('source tree', () => {
  it('has no import cycle', () => {
    expect(cycles(sourceFiles(SRC))).toEqual([]);
  });

  it('the GNS3 client loads the project, the project does not load the client (resolvers in gns3/resolve.ts)', () => {
    const dir = join(SRC, 'gns3');
    expect(staticImports(join(dir, 'client.ts')).map((p) => relative(SRC, p))).toContain('gns3/project.ts');
    expect(staticImports(join(dir, 'project.ts')).map((p) => relative(SRC, p))).not.toContain('gns3/client.ts');
  });
});

describe('layers (docs/ARCHITECTURE.md, Layers)', () => {
  const floors = floorsOfArchitecture();
  const floorOf = new Map(floors.flatMap((names, i) => names.map((n) => [n, i] as const)));

  it('the drawing places every file and folder of src/ once', () => {
    expect(floors.length).toBeGreaterThan(10);
    const placed = floors.flat();
    expect(placed.filter((n, i) => placed.indexOf(n) !== i)).toEqual([]);
    expect(readdirSync(SRC).filter((n) => !floorOf.has(n))).toEqual([]);
    expect(placed.filter((n) => !existsSync(join(SRC, n)))).toEqual([]);
  });

  it('no import runs up a floor or across one (type imports and import() included)', () => {
    const upward = sourceFiles(SRC).flatMap((file) => {
      const from = topOf(relative(SRC, file));
      return allImports(file)
        .filter((target) => !target.startsWith('..'))
        .filter((target) => {
          const to = topOf(target);
          return to !== from && floorOf.get(to)! <= floorOf.get(from)!;
        })
        .map((target) => `${relative(SRC, file)} → ${target}`);
    });
    expect(upward).toEqual([]);
  });

  it('reads the drawing as floors: core on the ground, peers side by side, lazy imports seen', () => {
    expect(floorOf.get('core')).toBe(floors.length - 1);
    expect(floorOf.get('ui')).toBe(floorOf.get('output'));
    expect(floorOf.get('agent')!).toBeLessThan(floorOf.get('tools')!);
    // eval runs the agent, the scenarios and the restores, and folds with the one-shot's builder; the command is above it
    expect(floorOf.get('commands')!).toBeLessThan(floorOf.get('eval')!);
    expect(floorOf.get('eval')!).toBeLessThan(floorOf.get('output')!);
    // commands/main.ts loads the TUI only with import(): the rule must see it
    expect(allImports(join(SRC, 'commands/main.ts')).map(topOf)).toContain('ui');
  });
});

const linesOf = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Every function, method and arrow of a file with its length in lines, as `file:name`. */
function functionLengths(file: string): { id: string; lines: number }[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: { id: string; lines: number }[] = [];
  const nameOf = (n: ts.FunctionLikeDeclaration, enclosing: string | undefined): string => {
    if (n.name) return n.name.getText(sf);
    const p = n.parent;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && p.name) return p.name.getText(sf);
    return enclosing ? `${enclosing} (inner)` : '(anonymous)';
  };
  const visit = (n: ts.Node, enclosing: string | undefined): void => {
    let inside = enclosing;
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(n.end).line;
      inside = nameOf(n, enclosing);
      out.push({ id: `${relative(SRC, file)}:${inside}`, lines: end - start + 1 });
    }
    ts.forEachChild(n, (c) => visit(c, inside));
  };
  visit(sf, undefined);
  return out;
}

describe('size', () => {
  const files = sourceFiles(SRC).filter((f) => !f.endsWith('.d.ts'));

  it('no src file is over 400 lines', () => {
    const long = files.map((f) => ({ file: relative(SRC, f), lines: linesOf(readFileSync(f, 'utf8')) })).filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });

  it('no function is over 120 lines, none in src/agent over 80', () => {
    const limitOf = (id: string) => (id.startsWith('agent/') ? 80 : 120);
    const long = files.flatMap(functionLengths).filter((f) => f.lines > limitOf(f.id));
    expect(long).toEqual([]);
  });

  it('the measure counts a function from its first line to its last', () => {
    const lengths = functionLengths(join(SRC, 'core/run-limited.ts'));
    expect(lengths.find((f) => f.id === 'core/run-limited.ts:runLimited')?.lines).toBe(
      linesOf(readFileSync(join(SRC, 'core/run-limited.ts'), 'utf8')) - 1,
    );
  });
});
