/** Reading a finished command off a console: its output, its error line, its confirmations. */
import type { Driver } from './drivers.js';
import { cleanText } from './text.js';

/**
 * The host's prompt with something typed after it (`R1# show version`, `R1#show version`): on a
 * console shared with other clients, the device's prompt that ended our command followed by the
 * echo of another client's next command. Made from the host's prompt pattern (`^…$`) without its
 * end; none for a pattern that would then match nearly any line (a shell prompt known only by its
 * last `$` or `#`).
 */
export function promptWithInput(promptRe: RegExp): RegExp | undefined {
  const src = promptRe.source;
  if (!src.startsWith('^') || !src.endsWith('$') || src.startsWith('^[^')) return undefined;
  return new RegExp(`${src.slice(0, -1)}\\S`);
}

/**
 * The command's output in the console text: after its echo line, before the prompt that ended it —
 * a bare prompt, or (a shared console whose next text arrived in the same read) the prompt with
 * another client's command typed after it.
 */
export function extractOutput(buf: string, probe: string, promptRe: RegExp, paged: boolean, endsWithPrompt: boolean): string {
  let lines = cleanText(buf).split('\n');
  if (endsWithPrompt) lines = lines.slice(0, -1);
  if (probe !== '') {
    const at = lines.findIndex((l) => l.includes(probe));
    if (at >= 0) lines = lines.slice(at + 1);
  }
  while (lines.length > 0 && (lines[0]!.trim() === '' || promptRe.test(lines[0]!))) lines.shift();
  // A second Enter (CR LF counted twice) leaves an extra prompt: output ends at the first,
  // and at another client's command typed at it.
  const typed = promptWithInput(promptRe);
  const end = lines.findIndex((l) => promptRe.test(l) || typed?.test(l) === true);
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

/**
 * What a console sent since the last command was written, bounded for chatty
 * consoles nobody is reading: past `head + 2 × tail` characters it keeps the
 * real first `head` characters and the last `tail` (the prompt that ends the
 * command is there), and counts what it dropped between them as output
 * characters, so a 20 MB output is shown with its true start and a true
 * omitted count.
 */
export class ConsoleBuffer {
  private start = '';
  private end = '';
  private split = false;
  /** characters dropped between the kept head and tail */
  dropped = 0;
  /** characters received since the last reset (a position that only grows) */
  received = 0;

  constructor(
    /** how many characters of output a dropped piece was (the console's CR, ANSI and NUL do not count) */
    private readonly measure: (dropped: string) => number = (d) => d.length,
    private readonly headKeep = 1_000_000,
    private readonly tailKeep = 2_000_000,
  ) {}

  append(t: string): void {
    this.received += t.length;
    if (!this.split) {
      this.start += t;
      if (this.start.length <= this.headKeep + 2 * this.tailKeep) return;
      this.end = this.start.slice(this.headKeep);
      this.start = this.start.slice(0, this.headKeep);
      this.split = true;
    } else this.end += t;
    // trimmed in large steps, so a stream of small chunks does not copy the tail each time
    if (this.end.length > 2 * this.tailKeep) {
      this.dropped += this.measure(this.end.slice(0, -this.tailKeep));
      this.end = this.end.slice(-this.tailKeep);
    }
  }

  reset(): void {
    this.start = this.end = '';
    this.split = false;
    this.dropped = this.received = 0;
  }

  /** The kept text: head and tail joined where the dropped part was. */
  get text(): string {
    return this.split ? this.start + this.end : this.start;
  }

  /** The last n characters received (the current line, a prompt). */
  last(n: number): string {
    const s = this.split ? this.end : this.start;
    return s.length >= n || !this.split ? s.slice(-n) : (this.start + this.end).slice(-n);
  }

  endsWith(s: string): boolean {
    return (this.split ? this.end : this.start).endsWith(s);
  }
}
