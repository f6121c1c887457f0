/**
 * The event stream's redaction boundary: every AgentEvent a session yields
 * (model text, tool arguments and outputs, error messages) passes here before
 * any front end sees it, so the TUI, text, --json and --stream-json printers
 * never get a secret. Model text is held back at word/line boundaries so a
 * secret split across deltas is still caught (StreamRedactor).
 */
import type { AgentEvent } from '../agent/events.js';
import { EventQueue } from '../agent/queue.js';
import { StreamRedactor, redactDeep } from './redact.js';

export class RedactingEventQueue extends EventQueue<AgentEvent> {
  private readonly text = new StreamRedactor();

  override push(e: AgentEvent): void {
    if (e.type === 'content') {
      const safe = this.text.push(e.delta);
      if (safe) super.push({ type: 'content', delta: safe });
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
    const rest = this.text.flush();
    if (rest) super.push({ type: 'content', delta: rest });
  }
}
