/** `doctor` lines for the user's MCP servers: ✓ connected, n tools / ✗ why. */
import type { Settings } from '../../config/schema.js';
import type { CheckResult } from '../../core/check-result.js';
import { ExitCode } from '../../errors.js';
import { nullLogger } from '../../log.js';
import { connectMcpServers } from './attach.js';

export async function checkMcpServers(settings: Pick<Settings, 'mcp_servers'>): Promise<CheckResult[]> {
  if (Object.keys(settings.mcp_servers).length === 0) return [];
  const clients = await connectMcpServers(settings.mcp_servers, nullLogger);
  try {
    return clients.status.map((s) => ({
      name: `mcp:${s.name}`,
      ok: s.ok,
      required: true,
      // the entry in mcp_servers is what to fix: a bad setting (docs/cli.md, Exit codes)
      ...(s.ok ? {} : { exitCode: ExitCode.Usage }),
      detail: s.ok ? `${s.detail}${s.tools.length ? ` (${s.tools.join(', ')})` : ''}` : s.detail,
    }));
  } finally {
    await clients.close();
  }
}
