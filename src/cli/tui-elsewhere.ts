/**
 * The TUI as the one-file bundle of agent runs has it (src/boot/, tsup.config.ts puts this file
 * in place of src/ui/start.ts there): it has no Ink, so a command line that was sent there and
 * turns out to start the TUI (`--project -p`: `-p` the project's name) runs again on the
 * code-split build, which has it, on the same terminal; its exit code is this run's. In the warm
 * one-shot process (src/boot/warm/) that terminal is the client's: the run goes back to it.
 */
import { spawnSync } from 'node:child_process';
import { CODE_CACHE_ENV } from '../boot/route.js';
import { currentRequest } from '../boot/warm/process-scope.js';

export function startTui(): Promise<number> {
  const warm = currentRequest();
  if (warm) {
    warm.handBack();
    return Promise.resolve(0);
  }
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [CODE_CACHE_ENV]: 'off' },
  });
  return Promise.resolve(r.status ?? (r.signal === 'SIGINT' ? 130 : 1));
}
