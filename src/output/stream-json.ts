/** `--stream-json`: one JSON object per line, each event plus an ISO 8601 timestamp (docs/ARCHITECTURE.md). */
import type { AgentEvent } from '../core/events.js';
import type { Sink } from './text.js';
import { jsonText } from './json-text.js';

export class StreamJsonPrinter {
  constructor(
    private readonly out: Sink,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** the root's id (from `init`): events of the root carry it as agent_id, depth 0 */
  private root: string | null = null;

  event(e: AgentEvent): void {
    if (e.type === 'init') this.root = e.session_id;
    const tag = { agent_id: e.agent_id ?? this.root, depth: e.depth ?? 0 };
    this.out.write(jsonText({ ...e, ...tag, timestamp: this.now().toISOString() }) + '\n');
  }
}
