import type { SlashCommand } from './types.js';

export const newCommand: SlashCommand = {
  name: 'new',
  description: 'start a new session',
  async run(_args, ctx) {
    if (ctx.needsIdle('/new')) return;
    await ctx.openSession({ announce: 'new' });
  },
};
