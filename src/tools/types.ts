/**
 * What a tool is, independent of LangChain. The registry (./registry.ts) turns
 * these into LangChain tools, filters them by copilot mode and wraps dispatch
 * with mode checks, limits and approvals.
 */
import type { z } from 'zod';
import type { Settings } from '../config/schema.js';
import type { ProjectScope } from '../gns3/types.js';
import type { CopilotMode, ToolName } from '../core/modes.js';
import type { FaultLedger } from '../faults/store.js';
import type { Logger } from '../log.js';
import type { ToolErrorCode, ToolStatus } from '../core/events.js';
import type { Caller } from '../core/caller.js';
import type { ToolTargets } from '../core/targets.js';
import type { Verification } from '../core/verification.js';
import type { DeviceState } from '../check/state.js';

/**
 * read   – observes only (show commands, topology, templates, skills)
 * lab    – changes the lab's shape or power (create node/link, start, rename)
 * config – changes device configuration or traffic (config commands, stop/suspend,
 *          link filters): needs approval under the default policies
 */
export type ToolRisk = 'read' | 'lab' | 'config';
/** The risks of a tool that changes something: its ToolDef must name its targets. */
export type ChangeRisk = Exclude<ToolRisk, 'read'>;

/**
 * What the request's named caps count a tool as (docs/agent.md, Tool calls and named caps):
 * diagnostic – observes devices or traffic (show commands, captures): max_diagnostic_calls
 * config     – changes device configuration or traffic: max_device_config_calls
 * lab        – changes the lab's shape or power (create, link, start, rename)
 * delegation – starts sub-agents (`agent`)
 * knowledge  – reads the copilot's own references (skills, templates, the topology)
 * protocol   – the task tree's bookkeeping (reviews, context refs): never counted against limits
 */
export type LimitGroup = 'diagnostic' | 'config' | 'lab' | 'delegation' | 'knowledge' | 'protocol';

/** A tool's limit group: its own `group`, else the one its risk implies. */
export function limitGroupOf(def: { risk: ToolRisk; group?: LimitGroup }): LimitGroup {
  return def.group ?? (def.risk === 'config' ? 'config' : def.risk === 'lab' ? 'lab' : 'diagnostic');
}

export interface ToolContext {
  settings: Settings;
  signal: AbortSignal;
  log: Logger;
  /** the session's GNS3 project; throws a ControllerError when there is none */
  project(): Promise<ProjectScope>;
  /** long-lived services shared across tool calls (connection pools); keyed by owner */
  services: Map<string, unknown>;
  /** optional progress of a long call (device fan-outs report each finished device) */
  progress?(p: { done: number; total: number; message: string }): void;
  /** the id of the tool call being run (the model's tool_call id) */
  callId?: string;
  /** who called it (set by the dispatch's front ends: the agent, an MCP client) */
  caller?: Caller;
  /** the copilot mode the call runs in (the agent sets it; absent: not an agent's call) */
  mode?: CopilotMode;
  /** the session's fault ledger: in inject mode the injection tools record every fault in it (src/faults) */
  faults?: FaultLedger;
  /** the session stores long results whole and cuts them by tokens: no command output is cut by characters here */
  wholeOutput?: boolean;
  /** keeps the state a change's verification read before the change, for `diff --state` (the session's sessions.db) */
  recordBaseline?(states: readonly DeviceState[], callId: string | undefined): void;
}

interface ToolDefBase<S extends z.ZodType> {
  /** a built-in tool, or `server__tool` from one of the user's MCP servers (src/mcp/client) */
  name: ToolName | `${string}__${string}`;
  /** the whole description: MCP clients and the docs read it */
  description: string;
  /** the model's description, sent on every LLM call: a line or two (absent: `description`) */
  brief?: string;
  /**
   * Arguments only some modes can use (`fault`: inject mode): the model is shown them only
   * there (./model-schema.ts); zod still validates the whole shape at dispatch.
   */
  argModes?: Readonly<Record<string, readonly CopilotMode[]>>;
  schema: S;
  /** the parameters as JSON Schema when they come from elsewhere (an MCP server); else derived from `schema` */
  jsonSchema?: Record<string, unknown>;
  /** what the named caps count it as; absent: `config` for config risk, `lab` for lab risk, else `diagnostic` */
  group?: LimitGroup;
  /**
   * Does the work and says how it went (a ToolOutcome). Expected failures are
   * outcomes (`status: 'error'`, or per-item statuses in a batch); a thrown error
   * becomes an error outcome in the registry.
   */
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
  /**
   * Resolves what the call will send before the gate asks about it (a change set's template
   * rendered for every device: src/tools/changeset/). The dispatch runs it after the mode and
   * limit checks and before the approval, and goes on with `args` in place of the model's;
   * `error` ends the call there, nothing sent. Absent: the arguments are what is sent.
   */
  prepare?(args: z.infer<S>, ctx: ToolContext): Promise<{ args: Record<string, unknown> } | { error: ToolOutcome }>;
}

/**
 * What a call touches (devices, nodes, links) and whether it changes configuration or
 * topology (./targets.ts). The dispatch checkpoints what a change touches before it runs,
 * the approval shows a preview of it, a rewind restores it, and "allow for this session"
 * is remembered per target.
 */
export type ToolTargetsFn = (args: Record<string, unknown>) => ToolTargets;

/**
 * A tool. One that changes something (risk `lab` or `config`) must say what it touches:
 * without `targets` it would silently lose its checkpoints, preview and rewind, so the type
 * requires it; `null` says so on purpose (a user MCP server's tool, whose targets nobody
 * knows: "allow for this session" then covers the whole tool). A read-only tool may name
 * its targets for the TUI's lines.
 */
export type ToolDef<S extends z.ZodType = z.ZodType> = ToolDefBase<S> &
  ({ risk: 'read'; targets?: ToolTargetsFn | null } | { risk: ChangeRisk; targets: ToolTargetsFn | null });

/**
 * How a call went, one vocabulary for a whole call and for each item of a batch:
 * success – everything worked; partial – some items failed; error – nothing worked.
 */
export type OutcomeStatus = 'success' | 'partial' | 'error';

/** What a tool's run() returns (the registry serialises, caps and maps it: ./registry.ts `executeTool`). */
export interface ToolOutcome {
  status: OutcomeStatus;
  /**
   * What the model reads. An object is sent as compact JSON with `status` first
   * (`{"status":"error","error":"…"}`); a string is sent as it is.
   */
  data: Record<string, unknown> | string;
  /** one short line for a person (TUI, text printer); absent: they show a generic line */
  display?: string;
  /** the failure may go away on its own, so the call may run again (./retry.ts) */
  transient?: boolean;
  /** nothing of the call reached its target (the connection failed before anything was sent): running it again repeats nothing */
  unsent?: boolean;
  /** why an error outcome failed, for programs (absent on an error: `failed`) */
  code?: ToolErrorCode;
  /** the automatic verification of a configuration change (also inside `data` for the model) */
  verification?: Verification;
}

/**
 * An error outcome: `{"status":"error","error":message,…extra}` for the model, the message for a
 * person, and `how`: a `code` for programs (default `failed`) and whether it may go away on its own.
 */
export function failure(
  message: string,
  extra: Record<string, unknown> = {},
  how: { code?: ToolErrorCode; transient?: boolean } = {},
): ToolOutcome {
  return {
    status: 'error',
    data: { error: message, ...extra },
    display: message,
    code: how.code ?? 'failed',
    ...(how.transient ? { transient: true } : {}),
  };
}

/** Helper so each tool file keeps full type inference for its args. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

/** What one tool call gave (the registry's result of running a tool, carried by the `tool_end` event). */
export interface ToolResult {
  status: ToolStatus;
  /** text for the model (and the `tool_end` event) */
  output: string;
  /** the tool's short line for a person (ToolOutcome.display) */
  display?: string;
  /** the failure may go away on its own (see ./retry.ts) */
  transient?: boolean;
  /** nothing reached the call's target (ToolOutcome.unsent) */
  unsent?: boolean;
  /** why it did not succeed, for programs: set on every status but success and partial */
  code?: ToolErrorCode;
  /** the automatic verification of a configuration change (the `verification` event) */
  verification?: Verification;
}
