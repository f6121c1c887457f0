import { errorMessage } from '../../errors.js';
import type { SlashCommand } from './types.js';

export const deleteCommand: SlashCommand = {
  name: 'delete',
  usage: '<id>|current',
  description: 'delete a session and its history',
  async run(target, ctx) {
    const current = ctx.state.sessionId ?? ctx.session?.id;
    if (!target) return ctx.notice('Usage: /delete <id> (see /sessions) or /delete current', 'error');
    const meta =
      target === 'current'
        ? current
          ? { id: current }
          : undefined
        : await ctx.services.getSession(ctx.settings(), target).catch(() => undefined);
    if (!meta) return ctx.notice(target === 'current' ? 'No session yet' : `No session "${target}"`, 'error');
    const isCurrent = meta.id === current;
    if (isCurrent && ctx.needsIdle('/delete')) return;
    try {
      const ok = await ctx.services.deleteSession(ctx.settings(), meta.id);
      ctx.notice(ok ? `Deleted session ${meta.id.slice(0, 8)}` : 'Session not saved yet: nothing to delete', ok ? 'info' : 'warn');
    } catch (e) {
      return ctx.notice(`✗ ${errorMessage(e)}`, 'error');
    }
    if (isCurrent) await ctx.openSession({ announce: 'new' });
  },
};
