/** `--stream-json`: one JSON object per line, each event plus an ISO 8601 timestamp (docs/ARCHITECTURE.md). */
import type { AgentEvent } from '../agent/events.js';
import type { Sink } from './text.js';

export class StreamJsonPrinter {
  constructor(
    private readonly out: Sink,
    private readonly now: () => Date = () => new Date(),
  ) {}

  event(e: AgentEvent): void {
    this.out.write(JSON.stringify({ ...e, timestamp: this.now().toISOString() }) + '\n');
  }
}
