/** `auth` (src/commands/auth.ts): the LLM API key and GNS3 credentials in the OS keychain. */
import type { Command } from 'commander';
import { act } from '../process.js';
import type { Opts } from './action.js';

export function addAuthCommand(program: Command): void {
  const auth = program.command('auth').description('store the LLM API key and GNS3 credentials in the OS keychain');
  auth
    .command('login')
    .description('store the LLM API key, read from stdin or a hidden prompt; secrets are never accepted as arguments (shell history, ps)')
    .option('--gns3-user <name>', 'store GNS3 controller credentials instead: this user, password from stdin/prompt')
    .option('--mcp-token', 'store the bearer token `gns3-copilot mcp --http` requires instead (from stdin/prompt)')
    // a secret typed as an argument is refused by authLogin with advice, not by commander's "too many arguments"
    .allowExcessArguments()
    .action(act(async (opts: Opts, cmd: Command) => (await import('../../commands/auth.js')).authLogin(opts, cmd.args)));
  auth
    .command('logout')
    .description('delete stored secrets (default: all of them)')
    .option('--llm', 'only the LLM API key')
    .option('--gns3', 'only the GNS3 credentials and tokens')
    .action(act(async (opts: Opts) => (await import('../../commands/auth.js')).authLogout(opts)));
  auth
    .command('status')
    .description('show which secrets are stored and where (never their values)')
    .option('--json', 'JSON output')
    .action(act(async (opts: Opts) => (await import('../../commands/auth.js')).authStatus(opts)));
}
