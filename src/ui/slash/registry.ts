/** Lookup, Tab completion and help text over a list of slash commands. Pure. */
import type { SlashCommand } from './types.js';

export const isCommand = (line: string): boolean => /^\/[^\s/]/.test(line.trim());

/** `/rename OSPF lab` → name `rename`, args `OSPF lab`. */
export function splitCommandLine(line: string): { name: string; args: string } {
  const t = line.trim().replace(/^\//, '');
  const name = t.split(/\s+/)[0] ?? '';
  return { name, args: t.slice(name.length).trim() };
}

export function findCommand(commands: readonly SlashCommand[], name: string): SlashCommand | undefined {
  const n = name.toLowerCase();
  return commands.find((c) => c.name === n || c.aliases?.includes(n));
}

/** Tab: completes a command name, or the argument of a command that can complete it. Returns the new line, or the line unchanged. */
export function completeCommand(commands: readonly SlashCommand[], line: string): { line: string; candidates: string[] } {
  if (!line.startsWith('/')) return { line, candidates: [] };
  const arg = /^\/(\S+)\s+(\S*)$/.exec(line);
  const withArg = arg ? findCommand(commands, arg[1]!) : undefined;
  if (arg && withArg?.complete) {
    const c = withArg.complete(arg[2]!.toLowerCase());
    return c.length === 1 ? { line: `/${arg[1]} ${c[0]}`, candidates: c } : { line, candidates: c };
  }
  if (/\s/.test(line)) return { line, candidates: [] };
  const prefix = line.slice(1).toLowerCase();
  const names = commands.map((c) => c.name).filter((n) => n.startsWith(prefix));
  if (names.length === 1) return { line: `/${names[0]} `, candidates: names };
  if (names.length > 1) {
    // Extend to the longest common prefix.
    let common = names[0]!;
    for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
    return { line: `/${common}`, candidates: names };
  }
  return { line, candidates: [] };
}

export function helpText(commands: readonly SlashCommand[]): string {
  const head = (c: SlashCommand) => `/${c.name} ${c.usage ?? ''}`;
  const w = Math.max(...commands.map((c) => head(c).length));
  return [
    'Commands',
    ...commands.map((c) => `  ${head(c).padEnd(w)}  ${c.description}`),
    '',
    'Keys',
    '  Enter        send            ↑/↓      history',
    '  Tab          complete        Ctrl-O   show/hide the last tool output',
    '  Esc          abort the turn  Ctrl-C   abort; twice to exit',
    '  Ctrl-D       exit',
  ].join('\n');
}
