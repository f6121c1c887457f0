/**
 * House rules checked on the source tree: no load-time import cycle in src/
 * (static value imports; `import type` and lazy `import()` do not load a module).
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

/** Relative value imports of one file, resolved to files. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]/g)) {
    const names = (m[2] ?? '').trim();
    const typeOnly = m[1] !== undefined || (/^\{[^}]*\}$/.test(names) && names.slice(1, -1).split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type ')));
    if (typeOnly) continue;
    const base = resolve(dirname(file), m[3]!).replace(/\.js$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target) out.push(target);
  }
  return out;
}

function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, valueImports(f)]));
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
  it('has no load-time import cycle', () => {
    expect(cycles(sourceFiles(SRC))).toEqual([]);
  });

  it('the GNS3 client loads the project, the project does not load the client (resolvers in gns3/resolve.ts)', () => {
    const dir = join(SRC, 'gns3');
    expect(valueImports(join(dir, 'client.ts')).map((p) => relative(SRC, p))).toContain('gns3/project.ts');
    expect(valueImports(join(dir, 'project.ts')).map((p) => relative(SRC, p))).not.toContain('gns3/client.ts');
  });
});
