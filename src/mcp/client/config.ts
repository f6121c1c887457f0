/**
 * One entry of the `mcp_servers` setting, the shape of Gemini CLI's `mcpServers`:
 * a stdio server (command/args/env/cwd) or a streamable HTTP one (url/httpUrl,
 * headers), `trust` (its tools never need approval), include_tools/exclude_tools
 * and a connect/call timeout.
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

export const TOOL_SEPARATOR = '__';

export function prefixedName(server: string, tool: string): string {
  return `${server}${TOOL_SEPARATOR}${tool}`;
}

/** `$VAR` / `${VAR}` from the environment (as Gemini CLI does), so tokens can stay out of config files. */
export function expandEnv(value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a?: string, b?: string) => env[(a ?? b)!] ?? '');
}

const expandAll = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, expandEnv(v)]));

/** The entry with environment references expanded, at connect time. */
export function expandConfig(cfg: McpServerConfig): McpServerConfig {
  return {
    ...cfg,
    args: cfg.args.map((a) => expandEnv(a)),
    env: expandAll(cfg.env),
    headers: expandAll(cfg.headers),
    ...(cfg.url ? { url: expandEnv(cfg.url) } : {}),
    ...(cfg.httpUrl ? { httpUrl: expandEnv(cfg.httpUrl) } : {}),
  };
}

export function toolIncluded(cfg: McpServerConfig, tool: string): boolean {
  if (cfg.exclude_tools.includes(tool)) return false;
  return cfg.include_tools === undefined || cfg.include_tools.includes(tool);
}
