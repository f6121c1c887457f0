/** `--json`: one object on stdout when the run ends (README, Command line). */
import type { OneShotResult } from './summary.js';
import type { Sink } from './text.js';

export function printJsonResult(out: Sink, r: OneShotResult): void {
  out.write(JSON.stringify(r) + '\n');
}
