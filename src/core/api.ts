/**
 * The agent core's public face. Front ends (TUI, one-shot printers) create a
 * session and iterate the events of each request; they never touch the graph.
 */
import type { AgentEvent, ApprovalWhy } from './events.js';
import type { CopilotMode } from './modes.js';
import type { DevicePreview } from './preview.js';
import { formatUsd } from './usd.js';

export type ApprovalDecision =
  { kind: 'allow_once' } | { kind: 'allow_session' } | { kind: 'deny' } | { kind: 'deny_with_feedback'; feedback: string };

export interface ApprovalRequest {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** why it needs approval (absent: a config change) */
  why?: ApprovalWhy;
  /** per device it changes, the diff its commands would make to the configuration read just before asking */
  preview?: DevicePreview[];
}

/** Asked by the core when a tool needs approval; absent in one-shot runs. */
export type Approver = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** A limit a running request reached, offered to the user to raise (the TUI; one-shot and MCP follow on_limit). */
export interface LimitRaiseRequest {
  id: string;
  /** e.g. "Tool call limit", "Tool call limit for execute_multiple_device_commands", "Iteration limit" */
  label: string;
  used: number;
  max: number;
  raise_to: number;
  /** `usd`: used, max and raise_to are dollars (the cost limit); absent: counts */
  unit?: 'usd';
  /** the sub-agent whose run reached it (absent: the root) */
  agent_id?: string;
}

/** once: this request only · session: this request and the rest of the session · no: answer with what you have (warn) */
export type LimitRaiseDecision = 'once' | 'session' | 'no';

export type LimitAsker = (req: LimitRaiseRequest, signal: AbortSignal) => Promise<LimitRaiseDecision>;

/** The question the TUI shows for a reached limit. */
export function limitRaiseQuestion(r: LimitRaiseRequest): string {
  const v = (n: number) => (r.unit === 'usd' ? formatUsd(n) : String(n));
  return `${r.label} reached (${v(r.used)}/${v(r.max)}). Raise to ${v(r.raise_to)} and go on? [y] once · [a] for this session · [n] answer with what you have`;
}

export interface RequestLimits {
  max_iterations: number;
  max_tool_calls?: number;
  max_time?: number;
  /** USD this request may spend on LLM calls (--max-cost); never soft */
  max_cost?: number;
  tool_limits: Record<string, number>;
  on_limit: 'fail' | 'warn' | 'continue';
  /** absent: LIMIT_DEFAULTS (src/agent/limits.ts) */
  max_parallel_tools?: number;
  max_retries_per_tool?: number;
  retry_on_tool_error?: boolean;
  /** caps on the config-changing / read-only tool groups */
  max_device_config_calls?: number;
  max_diagnostic_calls?: number;
}

/**
 * The lab as a session sees it (the TUI's /map): live from the controller's notification
 * stream where the session listens. `T` is the topology (src/gns3/types.ts `Topology`; the
 * core names no layer above it).
 */
export interface LabView<T = unknown> {
  topology(signal?: AbortSignal): Promise<T>;
  /** called with the topology after every change the stream brings (never without a stream); returns the unsubscribe */
  onChange(fn: (t: T) => void): () => void;
  /** live from the stream now, or why not (one line) */
  status(): { live: boolean; reason: string };
}

/** What `stopAgent` did: the full id of the sub-agent stopped, or why nothing was. */
export type StopOutcome = { stopped: string } | { refused: string };

export interface AgentSession {
  readonly id: string;
  readonly mode: CopilotMode;
  /** Runs one user request; the iterator ends after the `done` event. */
  send(prompt: string, opts?: { signal?: AbortSignal }): AsyncIterable<AgentEvent>;
  /** throws a UsageError naming the classroom lock when the mode is locked to another value */
  setMode(mode: CopilotMode): void;
  /** throws a UsageError for a cost limit on a model without a price (it could not hold) */
  setLimits(limits: Partial<RequestLimits>): void;
  readonly limits: RequestLimits;
  /** one-line notices for the user when the session opens: a classroom lock changed its mode, an agent mode asked for that a resumed tree did not apply */
  readonly notices?: readonly string[];
  /** the sub-agent task tree as text lines (`/tree`) */
  treeText?(): string[];
  /** stops a running sub-agent (its id or a unique prefix, as `/tree` shows it) and its subtree, siblings and parent go on */
  stopAgent?(agentId: string): StopOutcome;
  /** the tree budget for the status bar (`agents 3/50 · llm 12/150 · $0.04/15`), recursive trees only */
  budgetLine?(): string | undefined;
  /** the session's lab (opens its project); undefined without a project */
  lab?(): Promise<LabView | undefined>;
  close(): Promise<void>;
}
