/**
 * The tool registry: which tools a copilot mode shows the model (`forMode`,
 * `schemas`) and running one call (`executeTool`: argument validation, abort race,
 * the tool's ToolOutcome serialised and capped into a ToolResult). Whether a call
 * may run is decided before, by the pure gate (./gate.ts `assessCall`: mode, limits,
 * approval policy; ./approval.ts asks). docs/ARCHITECTURE.md, Tools.
 */
import type { ToolStatus } from '../core/events.js';
import { MODE_TOOLS, RESTORE_TOOLS, type CopilotMode } from '../core/modes.js';
import type { Caller } from '../core/caller.js';
import { failure, limitGroupOf, type ToolContext, type ToolDef, type ToolOutcome } from './types.js';

/** The review gate's tool (recursive trees): shown only while reports await the caller's review. */
const REVIEW_TOOL = 'review_task';
/** the Validator's one protocol tool: it reads the sub-agent's cut results, never the tree */
export const READ_REF_TOOL = 'read_context_ref';
import { errorMessage } from '../errors.js';
import { isTransientError, isUnsentError } from './retry.js';
import { capOutput } from './cap.js';
import { fullParameters, modelParameters } from './model-schema.js';

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

/** The model's text of an outcome: a string as it is, an object as compact JSON with the outcome's `status` first. */
export function outcomeText(o: ToolOutcome): string {
  if (typeof o.data === 'string') return o.data;
  const { status: _own, ...data } = o.data;
  return JSON.stringify({ status: o.status, ...data });
}

/** Serialises and caps an outcome (once, here) and carries its status, display line, error code and transient/unsent flags. */
export function toolResultOf(o: ToolOutcome, maxChars: number): ToolResult {
  return {
    status: o.status,
    output: capOutput(outcomeText(o), maxChars),
    ...(o.display ? { display: o.display } : {}),
    ...(o.status === 'error' ? { code: o.code ?? 'failed' } : {}),
    ...(o.status === 'error' && o.transient ? { transient: true } : {}),
    ...(o.status === 'error' && o.transient && o.unsent ? { unsent: true } : {}),
    ...(o.verification ? { verification: o.verification } : {}),
  };
}

/** A call the stopped run did not run, or cut short. */
const stoppedResult = (message: string): ToolResult => ({ status: 'aborted', output: resultJson('aborted', message), code: 'stopped' });

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

  /**
   * The tools a caller may use in a mode: the mode's set, narrowed to a sub-agent's
   * frozen set, to a Validator's read-only part, and while reports await the caller's
   * review (the review gate) to `review_task` and its read-only tools; the CLI's restores get the
   * mode's set and RESTORE_TOOLS. The one answer for both the schemas the model is shown and what the
   * gate lets run, so the two cannot disagree.
   */
  visible(mode: CopilotMode, caller: Caller): ToolDef[] {
    const all = this.forMode(mode);
    const frozen = caller.tools;
    const mine = frozen ? all.filter((t) => frozen.has(t.name)) : all;
    // a Validator re-observes the lab: read-only tools only, whatever its sub-agent had, and
    // pages the sub-agent's cut results (read_context_ref, the one protocol tool that only reads)
    if (caller.kind === 'validator')
      return mine.filter((t) => t.risk === 'read' && (limitGroupOf(t) !== 'protocol' || t.name === READ_REF_TOOL));
    // the review gate: reports await this agent's review, so it reviews or observes, nothing else
    if (caller.pendingReviews?.length)
      return mine.filter((t) => t.name === REVIEW_TOOL || (t.risk === 'read' && limitGroupOf(t) !== 'delegation'));
    // the CLI's own calls are restores (rewind, faults restore): what a restore sends, in any mode
    if (caller.kind === 'cli')
      return [...mine, ...this.restoreTools().filter((t) => !mine.includes(t))].filter((t) => t.name !== REVIEW_TOOL);
    return mine.filter((t) => t.name !== REVIEW_TOOL);
  }

  private restoreTools(): ToolDef[] {
    return RESTORE_TOOLS.map((n) => this.byName.get(n)).filter((t): t is ToolDef => t !== undefined);
  }

  /** Built-in tools that are made after the registry (the session's task tree, whose engine runs the graph built over this registry). */
  add(tools: ToolDef[]): void {
    for (const t of tools) this.byName.set(t.name, t);
  }

  addExternal(tools: ToolDef[]): void {
    for (const t of tools) if (!this.byName.has(t.name)) this.external.set(t.name, t);
  }

  /** Removes the external tools whose name starts with prefix; returns their names. */
  removeExternal(prefix: string): string[] {
    const names = [...this.external.keys()].filter((n) => n.startsWith(prefix));
    for (const n of names) {
      this.external.delete(n);
      for (const key of [...this.schemaCache.keys()]) if (key.endsWith(`:${n}`)) this.schemaCache.delete(key);
    }
    return names;
  }

  /** The visible tools as the model is shown them: compact (./model-schema.ts), the mode's arguments only. */
  schemas(mode: CopilotMode, caller: Caller): ToolSchema[] {
    return this.visible(mode, caller).map((t) => this.schema(t, mode));
  }

  /** The visible tools with their whole descriptions and argument schemas (MCP clients list these). */
  fullSchemas(mode: CopilotMode, caller: Caller): ToolSchema[] {
    return this.visible(mode, caller).map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: fullParameters(t, mode) },
    }));
  }

  private schema(t: ToolDef, mode: CopilotMode): ToolSchema {
    const key = `${mode}:${t.name}`;
    let s = this.schemaCache.get(key);
    if (!s) {
      s = { type: 'function', function: { name: t.name, description: t.brief ?? t.description, parameters: modelParameters(t, mode) } };
      this.schemaCache.set(key, s);
    }
    return s;
  }
}

/**
 * A tool's prepare step (ToolDef.prepare) on validated arguments: the arguments it will run
 * with, or the result that ends the call (invalid arguments, a template that does not render).
 */
export async function prepareTool(
  def: ToolDef,
  args: unknown,
  ctx: ToolContext,
  maxOutputChars: number,
): Promise<{ args: Record<string, unknown> } | { result: ToolResult }> {
  const parsed = def.schema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return {
      result: toolResultOf(failure(`invalid arguments for ${def.name}: ${issues}`, {}, { code: 'invalid_arguments' }), maxOutputChars),
    };
  }
  if (!def.prepare) return { args: parsed.data as Record<string, unknown> };
  const r = await def.prepare(parsed.data, ctx);
  return 'error' in r ? { result: toolResultOf(r.error, maxOutputChars) } : r;
}

/** The dispatch's prepare hook for a front end whose tool context is `ctxOf(call)`. */
export function preparer(ctxOf: (def: ToolDef, call: { id: string }) => ToolContext | Promise<ToolContext>, maxOutputChars: number) {
  return async <C extends { id: string; args: Record<string, unknown> }>(def: ToolDef, call: C): Promise<C | ToolResult> => {
    const r = await prepareTool(def, call.args, await ctxOf(def, call), maxOutputChars);
    return 'result' in r ? r.result : { ...call, args: r.args };
  };
}

/** Runs a validated, approved call; abort wins the race so a stuck device cannot hold the run. */
export async function executeTool(def: ToolDef, args: unknown, ctx: ToolContext, maxOutputChars: number): Promise<ToolResult> {
  const parsed = def.schema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return toolResultOf(failure(`invalid arguments for ${def.name}: ${issues}`, {}, { code: 'invalid_arguments' }), maxOutputChars);
  }
  if (ctx.signal.aborted) return stoppedResult('not executed: the run was stopped');
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve(stoppedResult(`${def.name} was cancelled: ${abortReason(ctx.signal)}`));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  const run = (async (): Promise<ToolResult> => {
    try {
      return toolResultOf(await def.run(parsed.data, ctx), maxOutputChars);
    } catch (err) {
      if (ctx.signal.aborted) return stoppedResult(`${def.name} was cancelled: ${abortReason(ctx.signal)}`);
      const unsent = isUnsentError(err);
      const failed = failure(
        errorMessage(err).split('\n')[0] ?? 'error',
        {},
        {
          code: unsent ? 'unreachable' : 'failed',
          transient: isTransientError(err),
        },
      );
      return toolResultOf(unsent ? { ...failed, unsent: true } : failed, maxOutputChars);
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
