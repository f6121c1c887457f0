/** `sessions` (src/commands/sessions.ts): list, show, rename, pin, delete, export saved sessions and stop a running one. */
import type { Command } from 'commander';
import { withSettings } from './action.js';

type SessionAction = 'list' | 'show' | 'rename' | 'pin' | 'unpin' | 'delete' | 'export' | 'stop';

export function addSessionsCommand(program: Command): void {
  const sessions = program.command('sessions').description('list, show, rename, pin, delete, export saved sessions and stop a running one');
  function sessionsSub(name: SessionAction, args: string[], describe: string, setup?: (c: Command) => void) {
    const c = sessions.command(name).description(describe);
    for (const a of args) c.argument(a);
    setup?.(c);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { sessionsCommand } = await import('../../commands/sessions.js');
        return sessionsCommand(name, positional, opts, settings);
      }),
    );
  }
  sessionsSub('list', [], 'list sessions, newest first', (c) =>
    c
      .option('--project <p>', 'only sessions of this GNS3 project')
      .option('--mode <m>', 'only sessions of this copilot mode')
      .option('--limit <n>', 'at most n sessions')
      .option('--offset <n>', 'skip the first n')
      .option('--json', 'JSON output'),
  );
  sessionsSub('show', ['<id>'], 'show one session and its messages', (c) => c.option('--json', 'JSON output'));
  sessionsSub('rename', ['<id>', '<title>'], 'set a session title');
  sessionsSub('pin', ['<id>'], 'pin a session (kept at the top, never pruned)');
  sessionsSub('unpin', ['<id>'], 'unpin a session');
  sessionsSub('delete', ['<id>'], 'delete a session', (c) =>
    c
      .option('--yes', 'do not ask for confirmation')
      .option('--force', 'take over the lease of a session held from another host whose process is gone'),
  );
  sessionsSub('export', ['<id>'], 'export a session', (c) =>
    c.option('--format <md|json>', 'md or json', 'md').option('--output <file>', 'write to a file instead of stdout'),
  );
  sessionsSub(
    'stop',
    ['<id>'],
    "stop a session's running request (from another terminal), or with --agent one sub-agent and its subtree",
    (c) => c.option('--agent <id>', 'only this sub-agent (an id or a unique prefix, as /tree shows it) and its sub-agents'),
  );
}
