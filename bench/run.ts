/**
 * `npm run bench`: runs every bench/<area>.bench.ts in order and prints one
 * table per area. Each module exports `run(): Promise<BenchTable>`.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { BenchTable } from './table.js';
import { formatTable } from './table.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = false;
for (const f of files) {
  const mod = (await import(pathToFileURL(join(dir, f)).href)) as { run: () => Promise<BenchTable> };
  try {
    const table = await mod.run();
    process.stdout.write(formatTable(table) + '\n\n');
  } catch (err) {
    failed = true;
    process.stderr.write(`bench ${f} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
