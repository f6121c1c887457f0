/**
 * A separate process with the command line's process boundary and a run that holds its exit:
 * `node --import tsx held-exit-process.ts <cleanup ms>` prints `ready`, and on SIGINT spends
 * <cleanup ms> on its clean-up, prints `cleaned` and exits 130 — as the eval does while it puts
 * the lab back.
 */
import { installProcessHandlers } from '../../src/cli/process.js';
import { holdExitAfterSignal } from '../../src/core/interrupt.js';

const cleanupMs = Number(process.argv[2]);
installProcessHandlers();
const release = holdExitAfterSignal();
process.on('SIGINT', () => {
  setTimeout(() => {
    release();
    process.stdout.write('cleaned\n', () => process.exit(130));
  }, cleanupMs);
});
setInterval(() => undefined, 1_000);
process.stdout.write('ready\n');
