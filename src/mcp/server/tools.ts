/**
 * Tools over MCP through the agent's own dispatch: the copilot mode decides what is
 * listed and what may run (ToolRegistry.visible), each call goes through the same
 * gate → approval → execute sequence as the agent's (tools/dispatch.ts) — so a call
 * the listing did not offer is refused exactly as the agent would refuse it, and a
 * refusal is worded for an MCP user (./refusal-text.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CopilotMode } from '../../core/modes.js';
import type { RequestLimits } from '../../core/api.js';
import { executeTool, preparer, DEFAULT_MAX_OUTPUT_CHARS, type ToolResult } from '../../tools/registry.js';
import type { ApprovePolicy } from '../../tools/gate.js';
import type { ApprovalContext } from '../../tools/approval.js';
import { SessionAllowances } from '../../tools/allowances.js';
import { dispatchCalls } from '../../tools/dispatch.js';
import { MCP_CLIENT } from '../../core/caller.js';
import { mcpRefusalText } from './refusal-text.js';
import type { ToolDef } from '../../tools/types.js';
import type { McpRuntime } from './runtime.js';
import { elicitationApprover } from './approval.js';
import { withProgress, type ProgressSink } from './progress.js';
import { baselinePreviewer } from '../../tools/changeset/baseline-previewer.js';

export interface ToolGateOptions {
  mode: CopilotMode;
  policy: ApprovePolicy;
}

/** MCP behaviour hints from our risk classes (clients use them to decide whether to ask). */
function annotations(def: ToolDef): Tool['annotations'] {
  return {
    readOnlyHint: def.risk === 'read',
    destructiveHint: def.risk === 'config',
    idempotentHint: def.risk === 'read',
    openWorldHint: false,
  };
}

export function listTools(rt: McpRuntime, mode: CopilotMode): Tool[] {
  return rt.registry.fullSchemas(mode, MCP_CLIENT).map((s) => ({
    name: s.function.name,
    description: s.function.description,
    inputSchema: s.function.parameters as Tool['inputSchema'],
    annotations: annotations(rt.registry.get(s.function.name)!),
  }));
}

/**
 * Text for the model plus the same data as structuredContent (an object, as MCP
 * requires). `isError` when nothing worked: error, blocked, limit, aborted; a
 * `partial` batch is a result (its structured `status` says partial).
 */
export function toCallToolResult(r: ToolResult): CallToolResult {
  let structured: Record<string, unknown> | undefined;
  try {
    const v = JSON.parse(r.output) as unknown;
    structured = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { result: v };
  } catch {
    structured = undefined; // capped or plain text output: the text rendering carries it
  }
  return {
    content: [{ type: 'text', text: r.output }],
    ...(structured ? { structuredContent: structured } : {}),
    ...(r.status === 'success' || r.status === 'partial' ? {} : { isError: true }),
  };
}

export interface CallExtra {
  signal: AbortSignal;
  requestId: string | number;
  progress?: ProgressSink;
}

/** Each MCP call is a request of its own; the client, not this server, budgets them. */
const NO_REQUEST_LIMITS: RequestLimits = { max_iterations: 1, tool_limits: {}, on_limit: 'warn' };

export async function callTool(
  rt: McpRuntime,
  server: Server,
  gate: ToolGateOptions,
  name: string,
  args: Record<string, unknown>,
  extra: CallExtra,
): Promise<ToolResult> {
  // Only a client that declared elicitation can be asked; for the others the gate refuses with how to allow it.
  const canAsk = gate.policy !== 'never' && server.getClientCapabilities()?.elicitation !== undefined;
  const approval: ApprovalContext = {
    policy: gate.policy,
    approvalTools: rt.settings.approval_tools,
    allowances: new SessionAllowances(),
    interactive: false,
    canAsk,
    ...(canAsk ? { approver: elicitationApprover(server) } : {}),
  };
  const call = { id: String(extra.requestId), name, args };
  const missed: string[] = [];
  const out = await dispatchCalls([call], {
    tools: rt.registry,
    approval,
    mode: gate.mode,
    caller: MCP_CLIENT,
    limits: NO_REQUEST_LIMITS,
    counter: { count: 0, counts: {} },
    signal: extra.signal,
    stopped: () => undefined,
    wordRefusal: mcpRefusalText,
    checkpoints: rt.checkpoints,
    // read through the shared device pool when the client is asked, or ahead of a verified change (the dispatch decides);
    // the checkpoint and the baseline reuse the reading
    previewer: baselinePreviewer((signal) => rt.toolContext(signal)),
    maxParallel: 1,
    prepare: preparer(
      async (def) => ({ ...(await rt.callContext(def, extra.signal)), caller: MCP_CLIENT, callId: call.id }),
      DEFAULT_MAX_OUTPUT_CHARS,
    ),
    // the prepared call's arguments (a change set's rendering), not the client's own
    execute: (def, prepared) =>
      withProgress(extra.progress, name, async (device) =>
        executeTool(
          def,
          prepared.args,
          { ...(await rt.callContext(def, extra.signal, device)), caller: MCP_CLIENT, callId: call.id },
          DEFAULT_MAX_OUTPUT_CHARS,
        ),
      ),
    events: {
      approval: (_c, _need, preview) =>
        rt.log.info('mcp: asking the client for approval', { tool: name, previewed: preview?.map((p) => p.device) ?? [] }),
      start: () => rt.log.info('mcp: tool call', { tool: name }),
      end: (_c, r, ms) => rt.log.info('mcp: tool done', { tool: name, status: r.status, duration_ms: ms }),
      checkpoint: (_c, cp) => {
        if (!cp.error) return;
        missed.push(`no checkpoint for ${cp.device}: ${cp.error}`);
        rt.log.warn('mcp: no checkpoint', { tool: name, device: cp.device, error: cp.error });
      },
    },
  });
  return withCheckpointNotes(out.results[0]!, missed);
}

/** The client's model hears which devices changed without a checkpoint (`no_checkpoint` beside the result's own fields). */
function withCheckpointNotes(r: ToolResult, missed: string[]): ToolResult {
  if (missed.length === 0) return r;
  try {
    const v = JSON.parse(r.output) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ...r, output: JSON.stringify({ ...v, no_checkpoint: missed }) };
  } catch {
    // plain text output
  }
  return { ...r, output: `${r.output}\n${missed.join('\n')}` };
}
