import type { SlashCommand } from './types.js';

export const rewindCommand: SlashCommand = {
  name: 'rewind',
  description: 'pick a request of this session and put the lab back as it was just before it',
  async run(_args, ctx) {
    if (ctx.needsIdle('/rewind')) return;
    if (!ctx.session) return ctx.notice('No session yet: nothing to rewind', 'warn');
    await ctx.openPicker('rewind');
  },
};
