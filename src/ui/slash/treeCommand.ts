import type { SlashCommand } from './types.js';

export const treeCommand: SlashCommand = {
  name: 'tree',
  description: 'show the sub-agent task tree with its usage',
  run(_args, ctx) {
    const lines = ctx.session?.treeText?.();
    if (!lines) return ctx.notice('No task tree yet: send a message first');
    ctx.dispatch({ type: 'block', title: 'Task tree', body: lines.join('\n') });
  },
};
