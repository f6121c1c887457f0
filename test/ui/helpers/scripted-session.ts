/**
 * A scripted AgentSession: the edge the TUI is tested against. Each send()
 * plays the next script of real AgentEvent values, pausing for approvals via
 * the real Approver callback and honouring the abort signal like the core does.
 */
import type { AgentEvent, RunStats } from '../../../src/core/events.js';
import type { AgentSession, Approver, ApprovalDecision, ApprovalRequest, RequestLimits } from '../../../src/core/api.js';
import type { CopilotMode } from '../../../src/core/modes.js';

export type ScriptStep =
  | AgentEvent
  | { type: 'wait'; ms: number }
  /** asks the approver; the decision is recorded and the matching tool_end is chosen */
  | {
      type: 'ask';
      id: string;
      name: string;
      args: Record<string, unknown>;
      onAllow: AgentEvent[];
      onDeny: AgentEvent[];
      /** the approval preview the core would attach (src/checkpoints/preview.ts) */
      preview?: ApprovalRequest['preview'];
    }
  /** blocks until aborted (a long-running tool or a stuck stream) */
  | { type: 'hang' };

export const stats = (over: Partial<RunStats> = {}): RunStats => ({
  iterations: 1,
  llm_calls: 1,
  tool_calls: 0,
  input_tokens: 100,
  output_tokens: 20,
  duration_ms: 5,
  ...over,
});

export class ScriptedSession implements AgentSession {
  readonly prompts: string[] = [];
  readonly decisions: ApprovalDecision[] = [];
  modeChanges: CopilotMode[] = [];
  limitChanges: Partial<RequestLimits>[] = [];
  closed = false;
  /** requests whose event stream has ended */
  completed = 0;
  mode: CopilotMode;
  limits: RequestLimits = { max_iterations: 20, tool_limits: {}, on_limit: 'warn' };

  constructor(
    private readonly scripts: ScriptStep[][],
    private readonly approver?: Approver,
    readonly id = 'sess-1',
    mode: CopilotMode = 'teaching_assistant',
  ) {
    this.mode = mode;
  }

  setMode(mode: CopilotMode): void {
    this.mode = mode;
    this.modeChanges.push(mode);
  }

  setLimits(limits: Partial<RequestLimits>): void {
    this.limits = { ...this.limits, ...limits };
    this.limitChanges.push(limits);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  send(prompt: string, opts?: { signal?: AbortSignal }): AsyncIterable<AgentEvent> {
    this.prompts.push(prompt);
    const script = this.scripts.shift() ?? [{ type: 'done', stopped_reason: 'done', stats: stats() }];
    const signal = opts?.signal ?? new AbortController().signal;
    const approver = this.approver;
    const decisions = this.decisions;
    const finished = () => {
      this.completed++;
    };
    return {
      async *[Symbol.asyncIterator]() {
        try {
          yield* play();
        } finally {
          finished();
        }
      },
    };
    async function* play(): AsyncGenerator<AgentEvent> {
      {
        // What the core yields for a user abort (session/run.ts): the error, then done.
        const aborted = function* (): Generator<AgentEvent> {
          yield { type: 'error', error: { type: 'aborted', message: 'aborted by the user' } };
          yield { type: 'done', stopped_reason: 'aborted', stats: stats() };
        };
        for (const step of script) {
          if (signal.aborted) {
            yield* aborted();
            return;
          }
          if (step.type === 'wait') {
            await sleep(step.ms, signal);
            continue;
          }
          if (step.type === 'hang') {
            await sleep(60_000, signal);
            yield* aborted();
            return;
          }
          if (step.type === 'ask') {
            yield { type: 'approval', id: step.id, name: step.name, args: step.args, why: 'config' };
            if (!approver) throw new Error('scripted ask without an approver');
            const d = await approver(
              { id: step.id, name: step.name, args: step.args, why: 'config', ...(step.preview ? { preview: step.preview } : {}) },
              signal,
            );
            decisions.push(d);
            const allowed = d.kind === 'allow_once' || d.kind === 'allow_session';
            for (const e of allowed ? step.onAllow : step.onDeny) yield e;
            continue;
          }
          yield step;
        }
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener('abort', done);
      clearTimeout(t);
      resolve();
    };
    // 0 ms = just yield to the event loop (like a token arriving on a socket).
    const t = ms === 0 ? (setImmediate(done), undefined) : setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Waits until `cond` holds (frames update asynchronously). */
export async function until(cond: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
