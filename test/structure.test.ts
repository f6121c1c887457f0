/**
 * House rules checked on the source tree: no import cycle in src/, counting
 * `import type` too (lazy `import()` is how a command loads what it needs and
 * is not followed).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

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

/** Every relative module a file names, static or lazy (`import('…')`), as paths under src/. */
function allImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => (m[1] ?? m[2])!);
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

describe('source tree', () => {
  it('has no import cycle', () => {
    expect(cycles(sourceFiles(SRC))).toEqual([]);
  });

  it('the GNS3 client loads the project, the project does not load the client (resolvers in gns3/resolve.ts)', () => {
    const dir = join(SRC, 'gns3');
    expect(staticImports(join(dir, 'client.ts')).map((p) => relative(SRC, p))).toContain('gns3/project.ts');
    expect(staticImports(join(dir, 'project.ts')).map((p) => relative(SRC, p))).not.toContain('gns3/client.ts');
  });

  it('the agent core imports nothing from mcp/, not even lazily (the composition root hands MCP tools in)', () => {
    const files = sourceFiles(join(SRC, 'agent'));
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((f) =>
      allImports(f)
        .filter((p) => p.startsWith('mcp/'))
        .map((p) => `${relative(SRC, f)} → ${p}`),
    );
    expect(offending).toEqual([]);
  });
});
