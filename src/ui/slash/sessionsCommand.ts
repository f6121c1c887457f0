import type { SlashCommand } from './types.js';

export const sessionsCommand: SlashCommand = {
  name: 'sessions',
  usage: '[search]',
  description: 'pick a past session to resume',
  async run(search, ctx) {
    if (!ctx.needsIdle('/sessions')) await ctx.openPicker('sessions', search);
  },
};
