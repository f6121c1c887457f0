import type { SlashCommand } from './types.js';

export const quitCommand: SlashCommand = {
  name: 'quit',
  aliases: ['exit', 'q'],
  description: 'exit (also /exit, Ctrl-D)',
  run: (_args, ctx) => ctx.exit(0),
};
