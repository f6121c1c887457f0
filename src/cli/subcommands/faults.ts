/** `faults` (src/commands/faults.ts): the fault ledger of inject mode. */
import type { Command } from 'commander';
import { addSettingsOptions, type SettingGroup } from '../options.js';
import { abortOnSignal, withSettings } from './action.js';

type FaultsAction = 'list' | 'show' | 'check' | 'restore';

export function addFaultsCommand(program: Command): void {
  const faults = program
    .command('faults')
    .description('the faults inject mode applied: still present or fixed, a score, and restoring them');
  function faultsSub(name: FaultsAction, args: string[], describe: string, groups: SettingGroup[], setup?: (c: Command) => void) {
    const c = faults.command(name).description(describe);
    for (const a of args) c.argument(a);
    c.option('--session <id>', 'only the faults of this session (id or prefix)').option('--json', 'JSON output');
    setup?.(c);
    addSettingsOptions(c, groups);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { faultsCommand } = await import('../../commands/faults.js');
        return faultsCommand(name, positional, opts, settings, abortOnSignal());
      }),
    );
  }
  // every faults command takes the lab's options (a script passes the same ones to all of them); restore also --approve
  faultsSub('list', [], 'list the recorded faults: open, fixed (when) or restored, and the score', ['controller', 'project', 'output']);
  faultsSub('show', ['<id>'], 'one fault: what was applied, its restore, its repair check and every check run', [
    'controller',
    'project',
    'output',
  ]);
  faultsSub(
    'check',
    [],
    "run the open faults' repair checks: which are still present, when each was fixed; exit 7 while one is open",
    ['controller', 'project', 'output'],
    (c) =>
      c
        .option('--watch [seconds]', 're-run every few seconds (default 5) until no fault is open, recording each fix when it happens')
        .option('--projects <glob>', "every matching project's ledger, e.g. 'student-*' (a row per project, in parallel)")
        .option('--jobs <n>', 'with --projects: projects checked at once, 1..32 (default 8)'),
  );
  faultsSub('restore', ['<id>'], "apply a fault's restore through the approval gate", ['controller', 'project', 'approve', 'output'], (c) =>
    c.option('--yes', 'approve the restore (without it the plan is printed and the exit code is 6)'),
  );
}
