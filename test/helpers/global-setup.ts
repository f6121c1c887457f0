import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// End-to-end tests run the built binary (bin/ -> dist/), so build once before
// the suite: a stale dist/ would test yesterday's code.
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/tsup/dist/cli-default.js`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
