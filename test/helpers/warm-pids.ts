/**
 * The warm one-shot processes (src/boot/warm/) serving in an XDG_RUNTIME_DIR, read from the
 * `.sock.pid` file each writes beside its socket once it listens: for the tests and benches that
 * start them through a one-shot and must stop them by pid.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function warmPids(runtime: string): number[] {
  const dir = join(runtime, 'gns3-copilot');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sock.pid'))
    .map((f) => Number(readFileSync(join(dir, f), 'utf8')));
}
