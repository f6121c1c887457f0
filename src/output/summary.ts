/**
 * Folds the event stream into the one-shot result (the `--json` object) and the
 * exit code (docs/ARCHITECTURE.md, Errors and exit codes). Text and stream-json printers use the same fold so all
 * three formats agree on the outcome.
 */
import type {
  AgentEvent,
  ErrorType,
  EventOf,
  RunStats,
  StoppedReason,
  ToolErrorCode,
  ToolStatus,
  ValidationCheckEvent,
} from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import type { Verification } from '../core/verification.js';
import { EXIT_CODE_OF_TYPE, ExitCode } from '../errors.js';
import type { AgentView, ResourceUsage } from '../agent/tree/view.js';

export interface ToolCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolStatus | 'pending';
  duration_ms: number;
  output: string;
  /** the tool's short line for a person (absent when it gave none) */
  display?: string;
  /** why it did not succeed, for programs (ToolErrorCode; absent on success and partial) */
  code?: ToolErrorCode;
  /** transient failures that were retried (absent when none) */
  retries?: number;
  /** what was checkpointed before the call ran: per device, or `error` for `no checkpoint for R3: <why>` (absent: nothing to checkpoint) */
  checkpoints?: { device: string; error?: string }[];
  /** the automatic verification of a configuration change (the `verification` event; absent: none ran) */
  verification?: Verification;
}

export interface OneShotResult {
  session_id: string | null;
  project_id: string | null;
  mode: CopilotMode;
  response: string;
  tool_calls: ToolCallRecord[];
  stats: RunStats;
  stopped_reason: StoppedReason;
  error: { type: ErrorType; message: string } | null;
  /** limits crossed under --on-limit continue (by the root or any sub-agent), in the order crossed */
  limits_exceeded: StoppedReason[];
  /** the sub-agent tree: every child, and the tree budget's usage (recursive) */
  agents?: AgentView[];
  resource_usage?: ResourceUsage | null;
  /** the root Validator's verdict on this request's answer (recursive, when the request delegated) */
  validation?: { verdict: EventOf<'validation'>['verdict']; reason?: 'budget'; summary: string; checks: ValidationCheckEvent[] };
  /**
   * Configuration calls whose verification regressed, and what `--on-regression` did: `kept`
   * (exit 7), `rewound` (the devices are back at their checkpoint) or `not_rewound` (the rewind
   * was refused or did not restore everything: exit 7). Absent: nothing regressed.
   */
  regression?: RegressionOutcome;
}

export interface RegressionOutcome {
  action: 'keep' | 'rewind';
  status: 'kept' | 'rewound' | 'not_rewound';
  /** the regressed calls' ids */
  calls: string[];
  /** the devices those calls changed (what a rewind restores) */
  devices: string[];
  /** per device, the checkpoint taken just before the regressed call that changed it (what a rewind restores; `checkpoint` events' `checkpoint_id`) */
  checkpoints: number[];
  /** the rewind's summary (action rewind) */
  rewind?: string;
}

const ZERO: RunStats = { iterations: 0, llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0, cost_usd: null };

export class ResultBuilder {
  private r: OneShotResult;
  private calls = new Map<string, ToolCallRecord>();
  private errors: { type: ErrorType; message: string }[] = [];
  /** text since the last tool call: the final answer */
  private tail = '';

  constructor(mode: CopilotMode) {
    this.r = {
      session_id: null,
      project_id: null,
      mode,
      response: '',
      tool_calls: [],
      stats: { ...ZERO },
      stopped_reason: 'done',
      error: null,
      limits_exceeded: [],
    };
  }

  add(e: AgentEvent): void {
    if (e.type === 'limit' && e.action === 'continue' && !this.r.limits_exceeded.includes(e.reason)) this.r.limits_exceeded.push(e.reason);
    // sub-agents' own tool calls are reported under `agents`, not as the root's
    if (e.depth) return;
    switch (e.type) {
      case 'init':
        this.r.session_id = e.session_id;
        this.r.project_id = e.project_id;
        this.r.mode = e.mode;
        break;
      case 'context':
        // a new LLM call: the response is what the last call said (a tools-free last call may still
        // list tool calls the model was not offered; its text is the answer all the same)
        this.tail = '';
        break;
      case 'content':
        this.tail += e.delta;
        break;
      case 'tool_call': {
        const rec: ToolCallRecord = { id: e.id, name: e.name, args: e.args, status: 'pending', duration_ms: 0, output: '' };
        this.calls.set(e.id, rec);
        this.r.tool_calls.push(rec);
        break;
      }
      case 'tool_end': {
        let rec = this.calls.get(e.id);
        if (!rec) {
          rec = { id: e.id, name: e.name, args: {}, status: e.status, duration_ms: e.duration_ms, output: e.output };
          this.calls.set(e.id, rec);
          this.r.tool_calls.push(rec);
        }
        rec.status = e.status;
        rec.duration_ms = e.duration_ms;
        rec.output = e.output;
        if (e.display) rec.display = e.display;
        if (e.code) rec.code = e.code;
        break;
      }
      case 'checkpoint': {
        const rec = this.calls.get(e.id);
        if (rec) (rec.checkpoints ??= []).push({ device: e.device, ...(e.error ? { error: e.error } : {}) });
        break;
      }
      case 'verification': {
        const rec = this.calls.get(e.id);
        if (rec) rec.verification = verificationOf(e);
        break;
      }
      case 'tool_retry': {
        const rec = this.calls.get(e.id);
        if (rec) rec.retries = e.attempt;
        break;
      }
      case 'error':
        this.errors.push(e.error);
        break;
      // the root's answer (a sub-agent's validation is under `agents`); the last round's verdict
      case 'validation':
        if (!e.agent_id)
          this.r.validation = { verdict: e.verdict, ...(e.reason ? { reason: e.reason } : {}), summary: e.summary, checks: e.checks };
        break;
      case 'done':
        this.r.stats = e.stats;
        this.r.stopped_reason = e.stopped_reason;
        break;
      default:
        break;
    }
  }

  setTree(t: { agents: AgentView[]; resource_usage: ResourceUsage | null }): void {
    this.r.agents = t.agents;
    this.r.resource_usage = t.resource_usage;
  }

  /** An error outside the event stream (e.g. the session could not be created). */
  fail(type: ErrorType, message: string): void {
    this.errors.push({ type, message });
    this.r.stopped_reason = type === 'aborted' ? 'aborted' : 'error';
  }

  setRegression(r: RegressionOutcome): void {
    this.r.regression = r;
  }

  result(): OneShotResult {
    return {
      ...this.r,
      stats: { ...this.r.stats, cost_usd: this.r.stats.cost_usd ?? null },
      response: this.tail.trim(),
      error: this.errors[0] ?? null,
    };
  }
}

/** The verification an event carries, without the event's own fields. */
export function verificationOf(e: EventOf<'verification'>): Verification {
  return {
    status: e.status,
    regressions: e.regressions,
    intended: e.intended,
    settle_ms: e.settle_ms,
    ...(e.reason !== undefined ? { reason: e.reason } : {}),
    ...(e.report_only ? { report_only: true } : {}),
  };
}

export function exitCodeOf(r: OneShotResult): number {
  if (r.stopped_reason === 'aborted') return ExitCode.Aborted;
  if (r.error) return EXIT_CODE_OF_TYPE[r.error.type];
  if (r.stopped_reason === 'error') return ExitCode.Internal;
  // the lab fails as a check does: a change regressed it and the regression stays
  return r.regression && r.regression.status !== 'rewound' ? ExitCode.ChecksFailed : ExitCode.Ok;
}
