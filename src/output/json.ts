/** `--json`: one object on stdout when the run ends (README, Command line). */
import type { OneShotResult } from './summary.js';
import type { Sink } from './text.js';
import { jsonText } from './json-text.js';

export function printJsonResult(out: Sink, r: OneShotResult): void {
  out.write(jsonText(r) + '\n');
}
