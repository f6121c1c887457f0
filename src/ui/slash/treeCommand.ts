import type { CommandContext, SlashCommand } from './types.js';

/** `/tree stop <agent_id>`: that sub-agent and its descendants stop; its siblings and parent go on. */
function stopSubtree(id: string, ctx: CommandContext): void {
  if (!id) return ctx.notice('Usage: /tree stop <agent_id> (the id as /tree shows it)', 'error');
  const session = ctx.session;
  if (!session?.stopAgent) return ctx.notice('This session has no task tree to stop', 'warn');
  if (!ctx.turnRunning()) return ctx.notice('No turn is running: no sub-agent to stop', 'warn');
  const r = session.stopAgent(id);
  if ('refused' in r) return ctx.notice(r.refused, 'warn');
  ctx.notice(`Stopped sub-agent ${r.stopped.slice(0, 8)} and its sub-agents; the rest of the tree goes on`);
}

export const treeCommand: SlashCommand = {
  name: 'tree',
  usage: '[stop <agent_id>]',
  description: 'show the sub-agent task tree with its usage; `stop <agent_id>` stops that sub-agent and its subtree',
  complete: (prefix) => ['stop'].filter((w) => w.startsWith(prefix)),
  run(args, ctx) {
    const [word, ...rest] = args.split(/\s+/);
    if (word === 'stop') return stopSubtree(rest.join(' ').trim(), ctx);
    if (word) return ctx.notice(`Unknown /tree argument "${word}": /tree or /tree stop <agent_id>`, 'error');
    const lines = ctx.session?.treeText?.();
    if (!lines) return ctx.notice('No task tree yet: send a message first');
    ctx.dispatch({ type: 'block', title: 'Task tree', body: lines.join('\n') });
  },
};
