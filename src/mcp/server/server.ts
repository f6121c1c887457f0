/**
 * One MCP server session (the SDK's Server; one per stdio process or per HTTP
 * session), wired to the shared runtime: tools through the agent's gate,
 * resources, prompts, progress and cancellation (the SDK aborts extra.signal
 * on notifications/cancelled, and the device run is aborted with it).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../../package.json' with { type: 'json' };
import { errorMessage } from '../../errors.js';
import type { McpRuntime } from './runtime.js';
import { callTool, listTools, toCallToolResult, type ToolGateOptions } from './tools.js';
import { listResources, readResource, RESOURCE_TEMPLATES, ResourceNotFound } from './resources.js';
import { getPrompt, listPrompts } from './prompts.js';

/** What a client must pass in inject mode, where every change is a fault in the ledger (src/faults). */
const INJECT_INSTRUCTIONS =
  ' Every change is a fault recorded in the fault ledger (`gns3-copilot faults`): execute_multiple_device_config_commands ' +
  '(one device per call) and manage_gns3_packet_filter set need a `fault` argument, {scenario, parameters?} with a scenario id ' +
  'from injection_skills, or {category, difficulty, restore_commands, repair_check} for a fault of your own. ' +
  'One open fault per category on a device or link: a second one is refused until the first is fixed or restored.';

export function createMcpServer(rt: McpRuntime, gate: ToolGateOptions): Server {
  const server = new Server(
    { name: 'gns3-copilot', version: pkg.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        `GNS3 lab tools from gns3-copilot in ${gate.mode} mode. Device commands run on all listed devices in parallel through their consoles; ` +
        "read the topology resource first to learn node names. Config-changing tools follow the server's approval policy." +
        (gate.mode === 'troubleshooting_injection' ? INJECT_INSTRUCTIONS : ''),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(rt, gate.mode) }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const r = await callTool(rt, server, gate, req.params.name, req.params.arguments ?? {}, {
      signal: extra.signal,
      requestId: extra.requestId,
      ...(token !== undefined
        ? { progress: (p) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } }) }
        : {}),
    });
    return toCallToolResult(r);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(rt) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    try {
      return await readResource(rt, req.params.uri, extra.signal);
    } catch (err) {
      if (err instanceof ResourceNotFound) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw new McpError(ErrorCode.InternalError, errorMessage(err).split('\n')[0] ?? 'error');
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: listPrompts() }));
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    const p = await getPrompt(rt, req.params.name, extra.signal);
    if (!p)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown prompt "${req.params.name}" (teaching_assistant, lab_automation_assistant, troubleshooting_injection)`,
      );
    return p;
  });
  return server;
}
