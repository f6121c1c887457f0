import { errorMessage } from '../../errors.js';
import type { SlashCommand } from './types.js';

export const renameCommand: SlashCommand = {
  name: 'rename',
  usage: '<title>',
  description: 'rename this session',
  async run(title, ctx) {
    if (!title) return ctx.notice('Usage: /rename <title>', 'error');
    const id = ctx.state.sessionId ?? ctx.session?.id;
    if (!id) return ctx.notice('No session yet', 'warn');
    const ok = await ctx.services.renameSession(ctx.settings(), id, title).catch((e: unknown) => {
      ctx.notice(`✗ ${errorMessage(e)}`, 'error');
      return null;
    });
    if (ok) ctx.notice(`Renamed to “${title.slice(0, 40)}”`);
    else if (ok === false) ctx.notice('Session not saved yet: send a message first', 'warn');
  },
};
