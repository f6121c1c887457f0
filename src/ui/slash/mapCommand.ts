import type { SlashCommand } from './types.js';

export const mapCommand: SlashCommand = {
  name: 'map',
  description: 'draw the lab: nodes with their status, links with their ports (live with the notification stream; arrows pan, Esc closes)',
  async run(_args, ctx) {
    if (ctx.needsIdle('/map')) return;
    await ctx.openMap();
  },
};
