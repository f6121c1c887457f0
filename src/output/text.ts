/** Plain one-shot output: the answer streams to stdout, tool activity and errors to stderr. */
import type { AgentEvent } from '../core/events.js';
import { driftText } from '../core/drift-text.js';
import { sanitizeLine, StreamSanitizer } from '../security/sanitize.js';
import { verdictWords } from '../core/verdict.js';

export interface Sink {
  write(s: string): unknown;
}

export class TextPrinter {
  private endsWithNewline = true;
  private wrote = false;
  private readonly text = new StreamSanitizer();
  private warnedContext = false;
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
        {
          const delta = this.text.push(e.delta);
          if (!delta) return;
          this.out.write(delta);
          this.wrote = true;
          this.endsWithNewline = delta.endsWith('\n');
        }
        break;
      case 'tool_call':
        this.breakLine();
        this.err.write(this.dim(`→ ${sanitizeLine(e.name)} ${truncate(JSON.stringify(e.args), 160)}`) + '\n');
        break;
      case 'tool_end':
        this.err.write(
          this.dim(`← ${sanitizeLine(e.name)} ${e.status}${e.duration_ms ? ` (${e.duration_ms} ms)` : ''}${toolLine(e)}`) + '\n',
        );
        break;
      case 'tool_retry':
        this.err.write(
          this.dim(
            `↻ ${sanitizeLine(e.name)} failed transiently, retry ${e.attempt}/${e.max_retries} in ${e.delay_ms} ms: ${truncate(e.error, 160)}`,
          ) + '\n',
        );
        break;
      case 'error':
        this.breakLine();
        this.err.write(`error: ${sanitizeLine(e.error.message)}\n`);
        break;
      case 'context':
        // even after trimming the request does not fit the model's window: say so, once
        if (e.percent > 100 && !this.warnedContext) {
          this.warnedContext = true;
          this.breakLine();
          this.err.write(
            `warning: this request is ${e.tokens + e.tools_tokens} tokens, over the model's ${e.limit}-token context window (context_limit); the provider may refuse it\n`,
          );
        }
        break;
      case 'checkpoint':
        if (!e.error) break;
        this.breakLine();
        this.err.write(`warning: no checkpoint for ${sanitizeLine(e.device)}: ${sanitizeLine(e.error)}\n`);
        break;
      case 'notice':
        this.breakLine();
        this.err.write(`warning: ${e.message}\n`);
        break;
      case 'drift':
        this.breakLine();
        this.err.write(`lab changed since the last request: ${sanitizeLine(driftText(e))}\n`);
        break;
      // the task tree's verdicts and reviews (recursive): one line each; without agent_id, the root's answer
      case 'validation':
        this.breakLine();
        this.err.write(this.dim(`${verdictWords(e, whoOf(e.agent_id))}: ${truncate(e.summary, 200)}`) + '\n');
        break;
      case 'review':
        this.breakLine();
        this.err.write(this.dim(`${whoOf(e.agent_id)} review: ${e.decision}${e.note ? ` — ${truncate(e.note, 160)}` : ''}`) + '\n');
        break;
      default:
        break;
    }
  }

  private breakLine(): void {
    const rest = this.text.flush();
    if (rest) {
      this.out.write(rest);
      this.wrote = true;
      this.endsWithNewline = rest.endsWith('\n');
    }
    if (this.wrote && !this.endsWithNewline) {
      this.out.write('\n');
      this.endsWithNewline = true;
    }
  }

  finish(): void {
    this.breakLine();
  }
}

const whoOf = (agentId: string | undefined) => (agentId ? `sub-agent ${sanitizeLine(agentId).slice(0, 8)}` : 'answer');

/** After the status: the tool's display line, else (not success) the start of its output. */
function toolLine(e: { status: string; output: string; display?: string }): string {
  if (e.display) return `: ${truncate(e.display, 200)}`;
  return e.status === 'success' ? '' : `: ${truncate(e.output, 200)}`;
}

function truncate(s: string, n: number): string {
  const one = sanitizeLine(s).replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
