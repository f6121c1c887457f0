/** Reading a finished command off a console: its output, its error line, its confirmations. */
import type { Driver } from './drivers.js';
import { cleanText } from './text.js';

/** The command's output in the console text: after its echo line, before the final prompt. */
export function extractOutput(buf: string, probe: string, promptRe: RegExp, paged: boolean, endsWithPrompt: boolean): string {
  let lines = cleanText(buf).split('\n');
  if (endsWithPrompt) lines = lines.slice(0, -1);
  if (probe !== '') {
    const at = lines.findIndex((l) => l.includes(probe));
    if (at >= 0) lines = lines.slice(at + 1);
  }
  while (lines.length > 0 && (lines[0]!.trim() === '' || promptRe.test(lines[0]!))) lines.shift();
  // A second Enter (CR LF counted twice) leaves an extra prompt: output ends at the first.
  const end = lines.findIndex((l) => promptRe.test(l));
  if (end >= 0 && endsWithPrompt) lines = lines.slice(0, end);
  if (paged) lines = lines.map((l) => l.replace(/\s*(?:-{2,4} ?More ?-{2,4}|-{2,3}\(more(?: \d+%)?\)-{2,3}|<-+ More -+>)\s*/gi, ''));
  while (lines.length > 0 && (lines[0]!.trim() === '' || promptRe.test(lines[0]!))) lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines.join('\n');
}

/** The first output line the platform reports as an error (config mode adds its own patterns). */
export function findDeviceError(driver: Driver, output: string, config: boolean): string | undefined {
  const patterns = config ? [...driver.errors, ...(driver.configErrors ?? [])] : driver.errors;
  for (const l of output.split('\n')) if (patterns.some((p) => p.test(l))) return l.trim();
  return undefined;
}

/** A device question may be answered yes only for commands starting with an allow-listed prefix. */
export function confirmAllowed(allow: readonly string[], command: string): boolean {
  const c = command.trim().toLowerCase();
  return allow.some((a) => a.trim() !== '' && c.startsWith(a.trim().toLowerCase()));
}
