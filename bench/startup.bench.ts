/**
 * Start-up cost of the CLI: `gns3-copilot --version` and `--help` against bare
 * `node -e 0`, median of 15 runs each (interleaved so machine noise hits all
 * three alike). Target: --version <= 1.3x node. Runs the built binary; run
 * `npm run build` (or any test run) first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { median, fmtMs, type BenchTable } from './table.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'gns3-copilot.js');
const RUNS = 15;
const TARGET = 1.3;

function timeOnce(args: string[], attempt = 0): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    // A concurrent `tsup` (another test run) may be rewriting dist/ this instant.
    if (attempt < 3) {
      spawnSync('sleep', ['0.5']);
      return timeOnce(args, attempt + 1);
    }
    throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  }
  return ms;
}

export async function run(): Promise<BenchTable> {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const cases: [string, string[]][] = [
    ['node -e 0', ['-e', '0']],
    ['gns3-copilot --version', [BIN, '--version']],
    ['gns3-copilot --help', [BIN, '--help']],
  ];
  for (const [, args] of cases) timeOnce(args); // warm the page cache
  const samples = new Map<string, number[]>(cases.map(([n]) => [n, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, args] of cases) samples.get(name)!.push(timeOnce(args));
  const base = median(samples.get('node -e 0')!);
  const rows = cases.map(([name]) => {
    const m = median(samples.get(name)!);
    return [name, fmtMs(m), fmtMs(Math.min(...samples.get(name)!)), `${(m / base).toFixed(2)}x`];
  });
  const ratio = median(samples.get('gns3-copilot --version')!) / base;
  return {
    title: `startup (median of ${RUNS} runs)`,
    columns: ['command', 'median', 'min', 'vs node -e 0'],
    rows,
    notes: [`target: --version <= ${TARGET}x node -e 0 -> ${ratio <= TARGET ? 'met' : 'MISSED'} (${ratio.toFixed(2)}x)`],
  };
}
