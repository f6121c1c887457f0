import { compactNumber } from '../format.js';
import type { SlashCommand } from './types.js';

export const contextCommand: SlashCommand = {
  name: 'context',
  description: 'show context window use',
  run(_args, ctx) {
    const c = ctx.state.context;
    if (!c) return ctx.notice('No context measured yet: send a message first');
    ctx.notice(
      `Context: ~${compactNumber(c.tokens)} tokens + ${compactNumber(c.tools_tokens)} tools = ${compactNumber(c.tokens + c.tools_tokens)} / ${compactNumber(c.limit)} (${Math.round(c.percent)}%)` +
        (c.trimmed ? ` · ${c.trimmed} old messages trimmed` : '') +
        ` · strategy ${ctx.settings().context_strategy}`,
    );
  },
};
