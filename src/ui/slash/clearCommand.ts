import type { SlashCommand } from './types.js';

export const clearCommand: SlashCommand = {
  name: 'clear',
  description: 'clear the screen',
  run(_args, ctx) {
    ctx.clearScreen();
    ctx.dispatch({ type: 'clear' });
  },
};
