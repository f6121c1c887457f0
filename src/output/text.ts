/** Plain one-shot output: the answer streams to stdout, tool activity and errors to stderr. */
import type { AgentEvent } from '../agent/events.js';

export interface Sink {
  write(s: string): unknown;
}

export class TextPrinter {
  private endsWithNewline = true;
  private wrote = false;
  constructor(
    private readonly out: Sink,
    private readonly err: Sink,
    private readonly color: boolean,
  ) {}

  private dim(s: string): string {
    return this.color ? `\x1b[2m${s}\x1b[22m` : s;
  }

  event(e: AgentEvent): void {
    switch (e.type) {
      case 'content':
        if (!e.delta) return;
        this.out.write(e.delta);
        this.wrote = true;
        this.endsWithNewline = e.delta.endsWith('\n');
        break;
      case 'tool_call':
        this.breakLine();
        this.err.write(this.dim(`→ ${e.name} ${truncate(JSON.stringify(e.args), 160)}`) + '\n');
        break;
      case 'tool_end':
        this.err.write(this.dim(`← ${e.name} ${e.status}${e.duration_ms ? ` (${e.duration_ms} ms)` : ''}${e.status === 'success' ? '' : `: ${truncate(e.output, 200)}`}`) + '\n');
        break;
      case 'error':
        this.breakLine();
        this.err.write(`error: ${e.error.message}\n`);
        break;
      case 'notice':
        this.breakLine();
        this.err.write(`warning: ${e.message}\n`);
        break;
      default:
        break;
    }
  }

  private breakLine(): void {
    if (this.wrote && !this.endsWithNewline) {
      this.out.write('\n');
      this.endsWithNewline = true;
    }
  }

  finish(): void {
    this.breakLine();
  }
}

function truncate(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
