/** `--json`: one object on stdout when the run ends (docs/cli.md, One-shot output). */
import type { OneShotResult } from './summary.js';
import type { Sink } from './text.js';
import { jsonText } from './json-text.js';

export function printJsonResult(out: Sink, r: OneShotResult): void {
  out.write(jsonText(r) + '\n');
}
