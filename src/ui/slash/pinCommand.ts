import { errorMessage } from '../../errors.js';
import type { SlashCommand } from './types.js';

export const pinCommand: SlashCommand = {
  name: 'pin',
  description: 'pin or unpin this session',
  async run(_args, ctx) {
    const id = ctx.state.sessionId ?? ctx.session?.id;
    if (!id) return ctx.notice('No session yet', 'warn');
    try {
      const meta = await ctx.services.getSession(ctx.settings(), id);
      if (!meta) return ctx.notice('Session not saved yet: send a message first', 'warn');
      const wasPinned = meta.pinned; // services may update `meta` in place
      await ctx.services.setPinned(ctx.settings(), id, !wasPinned);
      ctx.notice(wasPinned ? 'Unpinned this session' : 'Pinned this session');
    } catch (e) {
      ctx.notice(`✗ ${errorMessage(e)}`, 'error');
    }
  },
};
