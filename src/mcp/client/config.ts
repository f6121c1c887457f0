/**
 * An entry of the `mcp_servers` setting (its shape: src/config/mcp-servers.ts) as the
 * client uses it: the tools' prefixed names, `$VAR` expansion at connect time and the
 * include/exclude lists.
 */
import type { McpServerConfig } from '../../config/mcp-servers.js';

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
