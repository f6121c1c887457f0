import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distIsCurrent } from './dist-fresh.js';

// End-to-end tests run the built binary (bin/ -> dist/), so build before the suite
// whenever a source changed since the last build: a stale dist/ would test yesterday's code.
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (distIsCurrent(root)) return;
  execFileSync(process.execPath, [`${root}node_modules/tsup/dist/cli-default.js`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
