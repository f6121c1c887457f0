/**
 * Tools over MCP through the agent's own gate: the copilot mode decides what is
 * listed and what may run (ToolRegistry.forMode/allowed, i.e. modes.toolAllowed),
 * approvals go through decideApproval and execution through executeTool — so a
 * call the listing did not offer is refused exactly as the agent would refuse it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CopilotMode } from '../../core/modes.js';
import type { Approver } from '../../core/api.js';
import {
  decideApproval,
  executeTool,
  resultJson,
  DEFAULT_MAX_OUTPUT_CHARS,
  type ApprovePolicy,
  type ToolResult,
} from '../../tools/registry.js';
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

export async function callTool(
  rt: McpRuntime,
  server: Server,
  gate: ToolGateOptions,
  name: string,
  args: Record<string, unknown>,
  extra: CallExtra,
): Promise<ToolResult> {
  const def = rt.registry.get(name);
  if (!def || !rt.registry.allowed(gate.mode, name)) {
    const available = rt.registry
      .forMode(gate.mode)
      .map((t) => t.name)
      .join(', ');
    return {
      status: 'blocked',
      output: resultJson('blocked', `tool "${name}" is not available in ${gate.mode} mode; it was not executed. Available: ${available}`),
    };
  }
  const approver: Approver | undefined = gate.policy === 'ask' ? elicitationApprover(server) : undefined;
  const decision = await decideApproval(
    def,
    args,
    String(extra.requestId),
    {
      policy: gate.policy,
      approvalTools: rt.settings.approval_tools,
      sessionAllowed: new Set<string>(),
      interactive: false,
      ...(approver ? { approver } : {}),
    },
    extra.signal,
    () => rt.log.info('mcp: asking the client for approval', { tool: name }),
  );
  if (decision.kind === 'blocked') {
    const reason = decision.reason.replace(/rerun with (--approve \w+)/, 'restart `gns3-copilot mcp` with $1');
    return { status: 'blocked', output: resultJson('blocked', reason) };
  }
  const t0 = performance.now();
  rt.log.info('mcp: tool call', { tool: name });
  const r = await withProgress(extra.progress, name, (device) =>
    executeTool(def, args, rt.toolContext(extra.signal, device), DEFAULT_MAX_OUTPUT_CHARS),
  );
  rt.log.info('mcp: tool done', { tool: name, status: r.status, duration_ms: Math.round(performance.now() - t0) });
  return r;
}
