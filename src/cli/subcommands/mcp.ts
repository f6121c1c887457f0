/** `mcp` (src/mcp/server): the lab tools for other agents. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { addSettingsOptions, loadFor } from '../options.js';
import type { Opts } from './action.js';

export function addMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('serve the lab tools, topology, skills and mode prompts over MCP (stdio, or --http)')
    .option('--http <host:port>', 'streamable HTTP on this address instead of stdio (loopback, e.g. 127.0.0.1:8765)')
    .option('--listen', 'allow a non-loopback --http address (needs GNS3_COPILOT_MCP_TOKEN or mcp_token in the keychain)');
  addSettingsOptions(mcp, ['controller', 'project', 'mode', 'approve', 'output']);
  mcp.action(
    act(async (opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      // the check file its verifications would run: a bad one is a usage error before serving
      if (settings.checks !== undefined) await (await import('../../check/verify-checks.js')).loadSessionChecks(settings);
      const { runMcpCommand } = await import('../../mcp/server/command.js');
      return runMcpCommand(settings, { ...(typeof opts.http === 'string' ? { http: opts.http } : {}), listen: opts.listen === true });
    }),
  );
}
