/** What a console shows while we wake it: a prompt (with its platform), a login, the setup dialog or a pager. */
import { DRIVERS, LOGIN, PAGER, detectPrompt, type PlatformName } from './drivers.js';
import { cleanText } from './text.js';

export type WakeEvent =
  | { kind: 'prompt'; platform: PlatformName; host: string; line: string }
  | { kind: 'login'; line: string }
  | { kind: 'dialog' }
  | { kind: 'pager' };

/**
 * The event in `buf` (all text since our last Enter; `line` its last line), or undefined
 * to keep waiting. `hint` is the platform we expect; `retryWithoutHint` also tries the
 * other platforms (a later attempt, when the hint may be wrong).
 */
export function wakeEvent(buf: string, line: string, hint: PlatformName | undefined, retryWithoutHint: boolean): WakeEvent | undefined {
  const d = detectPrompt(line, hint) ?? (retryWithoutHint ? detectPrompt(line) : undefined);
  if (d) {
    // A banner (first connection to VPCS, an SSH login) ends in a prompt of its
    // own before the one answering our Enter. Sending the first command into
    // that gap loses it on some consoles (VPCS drops typed-ahead lines), so
    // wait for the answer: prompts seen >= Enters sent (+1 with a banner).
    const re = DRIVERS[d.platform].promptFor(d.host, line);
    const lines = cleanText(buf).split('\n');
    const prompts = lines.filter((l) => re.test(l)).length;
    const banner = lines.some((l) => l.trim() !== '' && !re.test(l));
    if (prompts >= 1 + (banner ? 1 : 0)) return { kind: 'prompt', ...d, line };
    return undefined;
  }
  if (PAGER.test(line)) return { kind: 'pager' };
  if (LOGIN.test(line)) return { kind: 'login', line };
  if (/initial configuration dialog\?\s*\[yes\/no\]:?\s*$/i.test(line)) return { kind: 'dialog' };
  return undefined;
}
