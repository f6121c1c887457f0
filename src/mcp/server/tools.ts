/**
 * Tools over MCP through the agent's own gate: the copilot mode decides what is
 * listed and what may run (ToolRegistry.forMode), each call is judged by the same
 * pure gate as the agent's (tools/gate.ts assessCall; askApproval when it says ask)
 * and executed by executeTool — so a call the listing did not offer is refused
 * exactly as the agent would refuse it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CopilotMode } from '../../core/modes.js';
import type { Approver, RequestLimits } from '../../core/api.js';
import { executeTool, resultJson, DEFAULT_MAX_OUTPUT_CHARS, type ToolResult } from '../../tools/registry.js';
import { assessCall, type ApprovePolicy } from '../../tools/gate.js';
import { askApproval, type ApprovalContext } from '../../tools/approval.js';
import type { ToolDef } from '../../tools/types.js';
import type { McpRuntime } from './runtime.js';
import { elicitationApprover } from './approval.js';
import { withProgress, type ProgressSink } from './progress.js';

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
  return rt.registry.schemas(mode).map((s) => ({
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
  const approver: Approver | undefined = gate.policy === 'ask' ? elicitationApprover(server) : undefined;
  const approval: ApprovalContext = {
    policy: gate.policy,
    approvalTools: rt.settings.approval_tools,
    sessionAllowed: new Set<string>(),
    interactive: false,
    ...(approver ? { approver } : {}),
  };
  const refused = (status: ToolResult['status'], reason: string): ToolResult => {
    const how = reason.replace(/rerun with (--approve \w+)/, 'restart `gns3-copilot mcp` with $1');
    return { status, output: resultJson(status, how) };
  };
  const verdict = assessCall(
    { name, args },
    { mode: gate.mode, limits: NO_REQUEST_LIMITS, count: 0, counts: {} },
    { tools: rt.registry, approval },
  );
  if (verdict.kind === 'blocked') return refused(verdict.status, verdict.reason);
  if (verdict.kind === 'limit') return refused('limit', verdict.reason);
  if (verdict.kind === 'ask') {
    rt.log.info('mcp: asking the client for approval', { tool: name });
    const answer = await askApproval({ id: String(extra.requestId), name, args }, approval, extra.signal);
    if (answer.kind === 'blocked') return refused('blocked', answer.reason);
  }
  const def = rt.registry.get(name)!; // the gate let it through, so it exists
  const t0 = performance.now();
  rt.log.info('mcp: tool call', { tool: name });
  const r = await withProgress(extra.progress, name, (device) =>
    executeTool(def, args, rt.toolContext(extra.signal, device), DEFAULT_MAX_OUTPUT_CHARS),
  );
  rt.log.info('mcp: tool done', { tool: name, status: r.status, duration_ms: Math.round(performance.now() - t0) });
  return r;
}
