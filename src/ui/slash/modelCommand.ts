import type { SlashCommand } from './types.js';

export const modelCommand: SlashCommand = {
  name: 'model',
  usage: '[name]',
  description: 'show or switch the LLM model',
  async run(model, ctx) {
    if (!model) return ctx.notice(`Model: ${ctx.state.model} (provider ${ctx.settings().provider})`);
    if (ctx.needsIdle('/model')) return;
    ctx.updateSettings({ model });
    ctx.dispatch({ type: 'set_model', model });
    if (ctx.session) await ctx.openSession({ sessionId: ctx.session.id });
    ctx.notice(`Model → ${model}`);
  },
};
