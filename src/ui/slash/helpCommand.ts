import { helpText } from './registry.js';
import type { SlashCommand } from './types.js';

export const helpCommand: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  description: 'show commands and keys',
  run: (_args, ctx) => ctx.notice(helpText(ctx.commands)),
};
