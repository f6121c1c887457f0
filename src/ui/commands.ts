/**
 * Slash commands: parsing and Tab completion. Pure; the App executes them.
 */
import { parseMode, type CopilotMode } from '../agent/modes.js';
import { parseLimitsArgs, type LimitsCommand } from './limits-command.js';

export interface CommandSpec {
  name: string;
  args?: string;
  help: string;
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'mode', args: '[teaching|lab|inject]', help: 'show or switch the copilot mode' },
  { name: 'limits', args: '[key=value …]', help: 'show or set per-request limits (keys: /limits)' },
  { name: 'model', args: '[name]', help: 'show or switch the LLM model' },
  { name: 'project', args: '[name|id]', help: 'show or switch the GNS3 project (picker without a name)' },
  { name: 'sessions', args: '[search]', help: 'pick a past session to resume' },
  { name: 'new', help: 'start a new session' },
  { name: 'rename', args: '<title>', help: 'rename this session' },
  { name: 'pin', help: 'pin or unpin this session' },
  { name: 'delete', args: '<id>|current', help: 'delete a session and its history' },
  { name: 'topology', help: 'show the current topology as a table' },
  { name: 'context', help: 'show context window use' },
  { name: 'tree', help: 'show the sub-agent task tree with its usage' },
  { name: 'clear', help: 'clear the screen' },
  { name: 'help', help: 'show commands and keys' },
  { name: 'quit', help: 'exit (also /exit, Ctrl-D)' },
];

const ALIASES: Record<string, string> = { exit: 'quit', q: 'quit', '?': 'help' };

export type ParsedCommand =
  | { kind: 'mode'; mode?: CopilotMode; invalid?: string }
  | LimitsCommand
  | { kind: 'delete'; target?: string }
  | { kind: 'model'; model?: string }
  | { kind: 'project'; project?: string }
  | { kind: 'sessions'; search?: string }
  | { kind: 'new' }
  | { kind: 'rename'; title?: string }
  | { kind: 'pin' }
  | { kind: 'topology' }
  | { kind: 'context' }
  | { kind: 'tree' }
  | { kind: 'clear' }
  | { kind: 'help' }
  | { kind: 'quit' }
  | { kind: 'unknown'; name: string };

export const isCommand = (line: string): boolean => /^\/[^\s/]/.test(line.trim());

export function parseCommand(line: string): ParsedCommand {
  const t = line.trim().replace(/^\//, '');
  const [rawName = '', ...rest] = t.split(/\s+/);
  const arg = t.slice(rawName.length).trim();
  const name = ALIASES[rawName.toLowerCase()] ?? rawName.toLowerCase();
  switch (name) {
    case 'mode': {
      if (!arg) return { kind: 'mode' };
      const mode = parseMode(arg);
      return mode ? { kind: 'mode', mode } : { kind: 'mode', invalid: arg };
    }
    case 'limits':
      return parseLimitsArgs(rest);
    case 'delete':
      return arg ? { kind: 'delete', target: arg } : { kind: 'delete' };
    case 'model':
      return arg ? { kind: 'model', model: arg } : { kind: 'model' };
    case 'project':
      return arg ? { kind: 'project', project: arg } : { kind: 'project' };
    case 'sessions':
      return arg ? { kind: 'sessions', search: arg } : { kind: 'sessions' };
    case 'rename':
      return arg ? { kind: 'rename', title: arg } : { kind: 'rename' };
    case 'new':
    case 'pin':
    case 'topology':
    case 'context':
    case 'tree':
    case 'clear':
    case 'help':
    case 'quit':
      return { kind: name };
    default:
      return { kind: 'unknown', name: rawName };
  }
}

const MODE_WORDS = ['teaching', 'lab', 'inject'];

/** Tab: completes a command name (or a /mode argument). Returns the new line, or the line unchanged. */
export function completeCommand(line: string): { line: string; candidates: string[] } {
  if (!line.startsWith('/')) return { line, candidates: [] };
  const modeArg = /^\/mode\s+(\S*)$/.exec(line);
  if (modeArg) {
    const c = MODE_WORDS.filter((w) => w.startsWith(modeArg[1]!.toLowerCase()));
    return c.length === 1 ? { line: `/mode ${c[0]}`, candidates: c } : { line, candidates: c };
  }
  if (/\s/.test(line)) return { line, candidates: [] };
  const prefix = line.slice(1).toLowerCase();
  const names = COMMANDS.map((c) => c.name).filter((n) => n.startsWith(prefix));
  if (names.length === 1) return { line: `/${names[0]} `, candidates: names };
  if (names.length > 1) {
    // Extend to the longest common prefix.
    let common = names[0]!;
    for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
    return { line: `/${common}`, candidates: names };
  }
  return { line, candidates: [] };
}

export function helpText(): string {
  const w = Math.max(...COMMANDS.map((c) => `/${c.name} ${c.args ?? ''}`.length));
  const lines = COMMANDS.map((c) => `  ${`/${c.name} ${c.args ?? ''}`.padEnd(w)}  ${c.help}`);
  return [
    'Commands',
    ...lines,
    '',
    'Keys',
    '  Enter        send            ↑/↓      history',
    '  Tab          complete        Ctrl-O   show/hide the last tool output',
    '  Esc          abort the turn  Ctrl-C   abort; twice to exit',
    '  Ctrl-D       exit',
  ].join('\n');
}
