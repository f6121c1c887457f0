/**
 * The one typed event stream the agent core yields (docs/ARCHITECTURE.md). The Ink UI, the
 * --json printer and the --stream-json printer all render exactly this.
 * Field names are part of the external contract: do not rename.
 */
import type { CopilotMode } from './modes.js';
import type { DevicePreview } from './preview.js';
import type { Verification } from './verification.js';

/** How sub-agents run (docs/task-trees.md). Releases before `flat` called it `legacy`: src/config/agent-mode.ts reads that word. */
export type AgentMode = 'flat' | 'recursive';
/** `partial`: a batch where some items failed (docs/ARCHITECTURE.md, Tools); `error`: the call or every item failed. */
export type ToolStatus = 'success' | 'partial' | 'error' | 'blocked' | 'limit' | 'aborted';
/**
 * Why a tool call did not succeed, for programs: the TUI, MCP clients and tests read this,
 * never the message (which is worded for the model and a person and may change).
 * not_available     – not among the caller's tools (the mode's set, a sub-agent's set, the
 *                     review gate's narrowing) or its MCP server stopped
 * invalid_arguments – arguments not valid JSON, too large, or not matching the tool's schema (or
 *                     inject mode's fault that does not resolve)
 * approval_denied   – the user was asked and said no
 * approval_required – the approval policy refused it without asking (`--approve never`, nobody to ask)
 * limit             – a count limit refused it (max_tool_calls, a per-tool or named cap, the task
 *                     tree's depth, budget or a parent's sub-agent quota)
 * stopped           – the run was stopped (Ctrl-C, --max-time) before or while it ran
 * unreachable       – nothing reached the target: the console or controller refused the connection
 * failed            – the tool ran and failed (the default for an error outcome)
 */
export type ToolErrorCode =
  'not_available' | 'invalid_arguments' | 'approval_denied' | 'approval_required' | 'limit' | 'stopped' | 'unreachable' | 'failed';
export type StoppedReason =
  | 'done'
  | 'max_iterations'
  | 'max_tool_calls'
  | 'max_time'
  | 'tool_limit'
  /** --max-cost: the next LLM call could have crossed the request's cost limit */
  | 'max_cost'
  | 'aborted'
  | 'error'
  /** the sub-agent tree budget (AGENT_MODE=recursive) ran out */
  | 'budget';

/**
 * Why a tool call needs approval: it changes device configuration or traffic, the user
 * listed it in approval_tools, or it is a tool of an MCP server the user did not trust.
 */
export type ApprovalWhy = 'config' | 'approval_list' | 'untrusted_mcp';

/** `controller` → exit 3, `provider` → exit 4, `limit` → exit 5 (with --on-limit fail),
 *  `approval` → exit 6, `aborted` → 130, `usage` → 2, `internal` → 1. */
export type ErrorType = 'controller' | 'provider' | 'limit' | 'approval' | 'aborted' | 'usage' | 'internal';

/** One agent's share of a request (`stats.by_agent`). */
export interface AgentStats {
  llm_calls: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
}

/** What a call of a request is for (`stats.by_kind`): the agents' own loops, or one of the calls around them. */
export type CallKind = 'agent' | 'title' | 'summary' | 'validator' | 'root_validator';

/**
 * A request's totals over the root and every sub-agent, every call of the request counted
 * (the agents' own, the title, summaries, the Validators); `iterations` is the root's own loop.
 */
export interface RunStats {
  iterations: number;
  llm_calls: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number;
  /** USD at the model's price (src/agent/pricing.ts, model_prices); null when the price is unknown */
  cost_usd?: number | null;
  /** each agent's share, keyed `root` or by sub-agent id (a Validator's calls are its sub-agent's); adds up to the totals (absent: nothing ran) */
  by_agent?: Record<string, AgentStats>;
  /** the same totals split by what the calls were for; adds up to the totals (absent: nothing ran) */
  by_kind?: Record<CallKind, AgentStats>;
}

/** Which node of the sub-agent tree an event comes from (absent: the root). */
export interface AgentTag {
  agent_id?: string;
  depth?: number;
  /** the root's `agent` tool call this sub-agent's subtree was started by (several may run in one response) */
  root_call_id?: string;
}

export type AgentEvent = AgentTag &
  (
    | {
        type: 'init';
        session_id: string;
        project_id: string | null;
        mode: CopilotMode;
        agent_mode: AgentMode;
        model: string;
      }
    | { type: 'content'; delta: string }
    | { type: 'tool_call'; id: string; name: string; args: Record<string, unknown> }
    | { type: 'tool_start'; id: string; name: string }
    | {
        type: 'tool_end';
        id: string;
        name: string;
        status: ToolStatus;
        duration_ms: number;
        output: string;
        /** the tool's one short line for a person (absent: printers show a generic line) */
        display?: string;
        /** why it did not succeed (every status but success and partial carries one) */
        code?: ToolErrorCode;
      }
    /**
     * After the `tool_end` of a configuration change: the automatic verification against the
     * baseline (docs/tools.md, Verification after a change); `id` is the call's.
     */
    | ({ type: 'verification'; id: string; name: string } & Verification)
    /** a call failed transiently and runs again after delay_ms (attempt 1 = first retry) */
    | { type: 'tool_retry'; id: string; name: string; attempt: number; max_retries: number; delay_ms: number; error: string }
    | {
        type: 'approval';
        id: string;
        name: string;
        args: Record<string, unknown>;
        why: ApprovalWhy;
        /** per device the call changes, the diff its commands would make, as the approver is shown it (absent: no preview was made) */
        preview?: DevicePreview[];
      }
    /**
     * before the call ran, the device's configuration (or `topology`) was checkpointed, or could not be: `error` says why.
     * `checkpoint_id`: the stored device checkpoint, the one a regression's rewind of this call restores (absent: topology, error)
     */
    | { type: 'checkpoint'; id: string; name: string; device: string; error?: string; checkpoint_id?: number }
    | {
        type: 'context';
        tokens: number;
        tools_tokens: number;
        limit: number;
        percent: number;
        /** number of messages dropped (or summarized) to fit the budget */
        trimmed: number;
        /** which LLM call of this request the context is for (1 = the first; what `stats.llm_calls` counts) */
        llm_call?: number;
      }
    | { type: 'error'; error: { type: ErrorType; message: string } }
    /**
     * A limit was reached: the run stops, answers once more without tools (`wrap_up`),
     * or (on_limit continue) goes on past it (`continue`, listed in --json `limits_exceeded`).
     */
    | { type: 'limit'; reason: StoppedReason; action: 'stop' | 'wrap_up' | 'continue'; message: string }
    /** something the user should know that does not fail the request (e.g. an MCP server died) */
    | { type: 'notice'; message: string }
    /**
     * At the start of a request: the lab changed since the session's last request, by someone
     * other than the copilot (the GNS3 GUI, another client). `changes` names the first 20
     * ("R3 stopped", "link R1:e0–R2:e0 deleted", "node PC5 added"), `total` counts them all;
     * the model is told the same in a protocol note.
     */
    | { type: 'drift'; changes: string[]; total: number }
    /** a sub-agent's report was validated (AGENT_MODE=recursive); agent_id names the sub-agent, absent for the root Validator's verdict on the root's answer */
    | {
        type: 'validation';
        /** `skipped` (the root answer only): no validation ran, `reason` says why */
        verdict: 'pass' | 'fail' | 'uncertain' | 'skipped';
        /** why a validation was skipped: `budget`, the tree budget ended the tree and its reserved call went to the answer */
        reason?: 'budget';
        summary: string;
        checks: ValidationCheckEvent[];
      }
    /** a parent decided on a sub-agent's report (`review_task`); agent_id names the sub-agent */
    | { type: 'review'; decision: 'accept' | 'revise' | 'replan' | 'split'; note: string }
    | { type: 'done'; stopped_reason: StoppedReason; stats: RunStats }
  );

/** One claim the Validator checked. */
export interface ValidationCheckEvent {
  claim: string;
  ok: boolean;
  evidence: string;
  note?: string;
}

export type AgentEventType = AgentEvent['type'];
export type EventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
