/**
 * The tool registry: which tools a copilot mode shows the model (`forMode`,
 * `schemas`) and the pieces of one guarded call, which the graph's tools node
 * (src/agent/graph.ts) applies in this order: `allowed` (a forged call outside the
 * mode's set is blocked before anything runs), the count limits (src/agent/limits.ts,
 * checked in the node), `decideApproval` (approval policy), then `executeTool`
 * (argument validation, abort race, `capOutput`). docs/ARCHITECTURE.md, Tools.
 */
import { z } from 'zod';
import type { Approver, ApprovalDecision } from '../agent/api.js';
import type { ToolStatus } from '../agent/events.js';
import { MODE_TOOLS, toolAllowed, type CopilotMode } from '../agent/modes.js';
import type { ToolContext, ToolDef } from './types.js';
import { errorMessage } from '../errors.js';
import { isTransientError } from './retry.js';

export type ApprovePolicy = 'never' | 'ask' | 'config' | 'all';

export type { ToolResult } from './types.js';
import type { ToolResult } from './types.js';

/** OpenAI function-tool shape; bindTools accepts it as is. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export const DEFAULT_MAX_OUTPUT_CHARS = 16_000;

export function resultJson(status: ToolStatus, error: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ status, error, ...extra });
}

/** Keeps head and tail of a huge output so one `show tech` cannot flood the context. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.7);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n…[output truncated: ${text.length - maxChars} of ${text.length} characters omitted; ask for a narrower command (e.g. | include, | section)]…\n${text.slice(text.length - tail)}`;
}

export class ToolRegistry {
  private readonly byName = new Map<string, ToolDef>();
  private readonly schemaCache = new Map<string, ToolSchema>();
  /** tools of the user's MCP servers (`server__tool`, src/mcp/client): offered in every mode */
  private readonly external = new Map<string, ToolDef>();

  constructor(tools: ToolDef[]) {
    for (const t of tools) this.byName.set(t.name, t);
  }

  get(name: string): ToolDef | undefined {
    return this.byName.get(name) ?? this.external.get(name);
  }

  /** Tools of the mode that exist in this build, in the mode table's order, then the MCP servers' tools. */
  forMode(mode: CopilotMode): ToolDef[] {
    return [...MODE_TOOLS[mode].map((n) => this.byName.get(n)).filter((t): t is ToolDef => t !== undefined), ...this.external.values()];
  }

  allowed(mode: CopilotMode, name: string): boolean {
    return (toolAllowed(mode, name) && this.byName.has(name)) || this.external.has(name);
  }

  addExternal(tools: ToolDef[]): void {
    for (const t of tools) if (!this.byName.has(t.name)) this.external.set(t.name, t);
  }

  /** Removes the external tools whose name starts with prefix; returns their names. */
  removeExternal(prefix: string): string[] {
    const names = [...this.external.keys()].filter((n) => n.startsWith(prefix));
    for (const n of names) {
      this.external.delete(n);
      this.schemaCache.delete(n);
    }
    return names;
  }

  schemas(mode: CopilotMode): ToolSchema[] {
    return this.forMode(mode).map((t) => this.schema(t));
  }

  private schema(t: ToolDef): ToolSchema {
    let s = this.schemaCache.get(t.name);
    if (!s) {
      let parameters: Record<string, unknown>;
      try {
        parameters = t.jsonSchema ? { ...t.jsonSchema } : (z.toJSONSchema(t.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
        delete parameters.$schema;
      } catch {
        parameters = { type: 'object', properties: {}, additionalProperties: true };
      }
      s = { type: 'function', function: { name: t.name, description: t.description, parameters } };
      this.schemaCache.set(t.name, s);
    }
    return s;
  }
}

export interface ApprovalContext {
  policy: ApprovePolicy;
  approver?: Approver;
  approvalTools: string[];
  /** tools the user allowed for the rest of the session */
  sessionAllowed: Set<string>;
  interactive: boolean;
}

export type ApprovalOutcome =
  | { kind: 'allowed'; asked: boolean }
  | { kind: 'blocked'; reason: string; needsApproval: true };

function needsApproval(def: ToolDef, approvalTools: string[]): boolean {
  return def.risk === 'config' || approvalTools.includes(def.name);
}

/**
 * never  – nothing that needs approval runs (blocked, with how to allow it)
 * ask    – the Approver decides (TUI); without one, blocked
 * config – config-risk tools run; `approval_tools` extras still ask (or block)
 * all    – everything runs
 */
export async function decideApproval(
  def: ToolDef,
  args: Record<string, unknown>,
  id: string,
  a: ApprovalContext,
  signal: AbortSignal,
  onAsk: () => void,
): Promise<ApprovalOutcome> {
  if (!needsApproval(def, a.approvalTools)) return { kind: 'allowed', asked: false };
  if (a.policy === 'all') return { kind: 'allowed', asked: false };
  if (a.policy === 'config' && def.risk === 'config') return { kind: 'allowed', asked: false };
  if (a.sessionAllowed.has(def.name)) return { kind: 'allowed', asked: false };
  const what = def.risk === 'config' ? 'changes device configuration or traffic' : 'is on the approval list (approval_tools)';
  if (a.policy === 'ask' || (a.policy === 'config' && a.approver)) {
    if (!a.approver)
      return { kind: 'blocked', needsApproval: true, reason: `${def.name} ${what} and needs approval, but nobody can approve in this run: rerun with --approve ${def.risk === 'config' ? 'config' : 'all'}` };
    onAsk();
    let d: ApprovalDecision;
    try {
      d = await a.approver({ id, name: def.name, args }, signal);
    } catch (err) {
      return { kind: 'blocked', needsApproval: true, reason: `approval was not given (${errorMessage(err)})` };
    }
    if (d.kind === 'allow_once') return { kind: 'allowed', asked: true };
    if (d.kind === 'allow_session') {
      a.sessionAllowed.add(def.name);
      return { kind: 'allowed', asked: true };
    }
    if (d.kind === 'deny_with_feedback') return { kind: 'blocked', needsApproval: true, reason: `the user denied ${def.name}: ${d.feedback}` };
    return { kind: 'blocked', needsApproval: true, reason: `the user denied ${def.name}; do not retry it, ask the user how to proceed` };
  }
  const how = def.risk === 'config' ? '--approve config (or --approve all)' : '--approve all';
  return {
    kind: 'blocked',
    needsApproval: true,
    reason: a.interactive
      ? `${def.name} ${what} and the approval policy is "${a.policy}": allow it with --approve ask|${def.risk === 'config' ? 'config' : 'all'}`
      : `${def.name} ${what} and needs approval, which a one-shot run cannot ask for: rerun with ${how} to allow it`,
  };
}

/** Runs a validated, approved call; abort wins the race so a stuck device cannot hold the run. */
export async function executeTool(def: ToolDef, args: unknown, ctx: ToolContext, maxOutputChars: number): Promise<ToolResult> {
  const parsed = def.schema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { status: 'error', output: resultJson('error', `invalid arguments for ${def.name}: ${issues}`) };
  }
  if (ctx.signal.aborted) return { status: 'aborted', output: resultJson('aborted', 'not executed: the run was stopped') };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve({ status: 'aborted', output: resultJson('aborted', `${def.name} was cancelled: ${abortReason(ctx.signal)}`) });
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  const run = (async (): Promise<ToolResult> => {
    try {
      const out = await def.run(parsed.data, ctx);
      return { status: toolStatusOf(out), output: capOutput(out, maxOutputChars) };
    } catch (err) {
      if (ctx.signal.aborted) return { status: 'aborted', output: resultJson('aborted', `${def.name} was cancelled: ${abortReason(ctx.signal)}`) };
      return { status: 'error', output: resultJson('error', errorMessage(err).split('\n')[0] ?? 'error'), ...(isTransientError(err) ? { transient: true } : {}) };
    }
  })();
  try {
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}

function abortReason(signal: AbortSignal): string {
  const r = signal.reason as unknown;
  if (typeof r === 'string') return r;
  if (r instanceof Error && r.message) return r.message;
  return 'the run was stopped';
}

/** A tool whose JSON says {"status":"error"} at top level reports an error; per-item failures stay success. */
function toolStatusOf(out: string): ToolStatus {
  if (out.startsWith('{"status":"error"')) return 'error';
  return 'success';
}
