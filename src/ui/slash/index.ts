/**
 * Every slash command of the TUI, in /help order. Adding a command: write its
 * <name>Command.ts (a SlashCommand) and list it here; /help, Tab and dispatch follow.
 */
import { clearCommand } from './clearCommand.js';
import { contextCommand } from './contextCommand.js';
import { deleteCommand } from './deleteCommand.js';
import { helpCommand } from './helpCommand.js';
import { limitsCommand } from './limitsCommand.js';
import { modeCommand } from './modeCommand.js';
import { modelCommand } from './modelCommand.js';
import { newCommand } from './newCommand.js';
import { pinCommand } from './pinCommand.js';
import { projectCommand } from './projectCommand.js';
import { quitCommand } from './quitCommand.js';
import { renameCommand } from './renameCommand.js';
import { rewindCommand } from './rewindCommand.js';
import { sessionsCommand } from './sessionsCommand.js';
import { topologyCommand } from './topologyCommand.js';
import { mapCommand } from './mapCommand.js';
import { treeCommand } from './treeCommand.js';
import { findCommand, splitCommandLine } from './registry.js';
import type { CommandContext, SlashCommand } from './types.js';

export type { CommandContext, OpenSessionOptions, SlashCommand } from './types.js';
export { completeCommand, findCommand, helpText, isCommand, splitCommandLine } from './registry.js';

export const COMMANDS: readonly SlashCommand[] = [
  modeCommand,
  limitsCommand,
  modelCommand,
  projectCommand,
  sessionsCommand,
  newCommand,
  renameCommand,
  pinCommand,
  deleteCommand,
  topologyCommand,
  mapCommand,
  rewindCommand,
  contextCommand,
  treeCommand,
  clearCommand,
  helpCommand,
  quitCommand,
];

/** Runs one `/command args` line with the commands of `ctx`; an unknown name is an error notice. */
export async function runCommandLine(line: string, ctx: CommandContext): Promise<void> {
  const { name, args } = splitCommandLine(line);
  const command = findCommand(ctx.commands, name);
  if (!command) return ctx.notice(`Unknown command /${name} (/help lists commands)`, 'error');
  await command.run(args, ctx);
}
