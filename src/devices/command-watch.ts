/**
 * What a console shows while one command runs: its prompt back (the command is done), a
 * pager to page through, or a confirmation question. A pager or question already answered
 * is not seen again until new text arrives.
 */
import { CONFIRMATIONS, PAGER } from './drivers.js';
import type { ConsoleBuffer } from './output.js';
import { cleanText } from './text.js';

export type CommandEvent = { kind: 'prompt' } | { kind: 'pager' } | { kind: 'confirm'; index: number; line: string };

/** The console the command runs on, as the watch reads it. */
export interface WatchedConsole {
  readonly buf: ConsoleBuffer;
  tailLine(): string;
  isPrompt(line: string, renaming: boolean): boolean;
  /** a telnet console always echoes what we type */
  readonly echoes: boolean;
}

export class CommandWatch {
  private echoAt = -1;
  private pagerAt = -1;
  private confirmAt = -1;

  /**
   * `probe`: the start of the command, found in its echo; `renaming`: the command changes the
   * host name, so any prompt of the platform ends it.
   */
  constructor(
    private readonly c: WatchedConsole,
    private readonly probe: string,
    private readonly renaming: boolean,
  ) {}

  /** The event on the console now, or undefined to keep waiting. */
  next(): CommandEvent | undefined {
    const { buf } = this.c;
    // Prompts, pagers and questions never end in a newline: skip complete lines cheaply.
    if (buf.endsWith('\n')) return undefined;
    const line = this.c.tailLine();
    if (PAGER.test(line) && buf.received > this.pagerAt) return { kind: 'pager' };
    if (buf.received > this.confirmAt) {
      const index = CONFIRMATIONS.findIndex((c) => c.re.test(line));
      if (index >= 0 && !this.c.isPrompt(line, false)) return { kind: 'confirm', index, line };
    }
    if (!this.c.isPrompt(line, this.renaming)) return undefined;
    if (this.probe === '') return { kind: 'prompt' };
    if (this.echoAt < 0) {
      const full = cleanText(buf.text);
      this.echoAt = full.indexOf(this.probe);
      if (this.echoAt < 0) {
        // A telnet console always echoes: a prompt before our echo ends another client's
        // command on a shared console, never ours.
        if (this.c.echoes) return undefined;
        // No echo (some SSH shells): accept a prompt that follows real output,
        // never a lone stray prompt from an earlier Enter.
        const body = full.split('\n').slice(0, -1);
        return body.some((l) => l.trim() !== '' && !this.c.isPrompt(l, this.renaming)) ? { kind: 'prompt' } : undefined;
      }
    }
    return { kind: 'prompt' };
  }

  /** The pager was answered: wait for new text before answering another. */
  pagerAnswered(): void {
    this.pagerAt = this.c.buf.received;
  }

  /** The question was answered: wait for new text before answering another. */
  confirmAnswered(): void {
    this.confirmAt = this.c.buf.received;
  }
}
