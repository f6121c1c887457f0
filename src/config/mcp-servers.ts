/**
 * One entry of the `mcp_servers` setting, the shape of Gemini CLI's `mcpServers`:
 * a stdio server (command/args/env/cwd) or a streamable HTTP one (url/httpUrl,
 * headers), `trust` (its tools never need approval), include_tools/exclude_tools
 * and a connect/call timeout. The client that connects them is src/mcp/client/.
 */
import { z } from 'zod';

export const mcpServerSchema = z
  .object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    url: z.string().url().optional(),
    httpUrl: z.string().url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    trust: z.boolean().default(false),
    include_tools: z.array(z.string()).optional(),
    exclude_tools: z.array(z.string()).default([]),
    /** ms for connecting and for one tool call */
    timeout: z.number().int().min(100).max(600_000).default(60_000),
  })
  .refine((s) => [s.command, s.url, s.httpUrl].filter(Boolean).length === 1, 'give exactly one of command, url or httpUrl');

export type McpServerConfig = z.infer<typeof mcpServerSchema>;
