/**
 * The event stream's redaction boundary: every AgentEvent a session yields
 * (model text, tool arguments and outputs, error messages) passes here before
 * any front end sees it, so the TUI, text, --json and --stream-json printers
 * never get a secret. Model text is held back at word/line boundaries so a
 * secret split across deltas is still caught (StreamRedactor); what is held
 * is released at the end of the answer, or after HOLD_MS without a delta.
 */
import type { AgentEvent } from '../core/events.js';
import { EventQueue } from '../core/queue.js';
import { StreamRedactor, redactDeep } from './redact.js';

/** A held word is released when no delta followed for this long (a stalled or aborted stream). */
export const HOLD_MS = 250;

export class RedactingEventQueue extends EventQueue<AgentEvent> {
  private readonly text = new StreamRedactor();
  private holdTimer: ReturnType<typeof setTimeout> | undefined;

  override push(e: AgentEvent): void {
    if (e.type === 'content') {
      // an empty delta marks the end of a streamed answer (graph.ts): release what is held
      const safe = e.delta ? this.text.push(e.delta) : this.text.flush();
      if (safe) super.push({ type: 'content', delta: safe });
      clearTimeout(this.holdTimer);
      this.holdTimer = setTimeout(() => this.flushText(), HOLD_MS);
      this.holdTimer.unref();
      return;
    }
    this.flushText();
    super.push(redactDeep(e));
  }

  override end(): void {
    this.flushText();
    super.end();
  }

  private flushText(): void {
    clearTimeout(this.holdTimer);
    const rest = this.text.flush();
    if (rest) super.push({ type: 'content', delta: rest });
  }
}
