/** `diff` and `rewind` (src/commands/rewind.ts): what a session changed in the lab, and undoing it. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { addSettingsOptions, collect, loadFor } from '../options.js';
import { abortOnSignal, type Opts } from './action.js';

export function addDiffCommand(program: Command): void {
  const diff = program
    .command('diff')
    .description('what a session changed in the lab since just before a request: device configuration diffs and topology changes')
    .argument('[session]', 'session id or prefix (default: the latest session)')
    .option('--to <request>', 'since just before this request (default: the first)')
    .option('--device <name>', 'only this device (repeatable)', collect)
    .option(
      '--state',
      "also the operational differences (interfaces, neighbours, routes) from the verifications' baselines to a fresh read",
    )
    .option('--json', 'JSON output');
  addSettingsOptions(diff, ['controller', 'project', 'output']);
  diff.action(
    act(async (session: string | undefined, opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      const { diffCommand } = await import('../../commands/rewind.js');
      return diffCommand(session, opts, settings, abortOnSignal());
    }),
  );
}

export function addRewindCommand(program: Command): void {
  const rewind = program
    .command('rewind')
    .description('restore the devices and topology a session changed to how they were just before a request')
    .argument('[session]', 'session id or prefix (default: the latest session)')
    .option('--to <request>', 'to just before this request (default: the last one)')
    .option('--device <name>', 'only this device (repeatable)', collect)
    .option('--dry-run', 'print the plan, change nothing')
    .option('--yes', 'approve the plan (without it a one-shot prints the plan and exits 6)')
    .option('--json', 'JSON output');
  addSettingsOptions(rewind, ['controller', 'project', 'approve', 'output']);
  rewind.action(
    act(async (session: string | undefined, opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      const { rewindCommand } = await import('../../commands/rewind.js');
      return rewindCommand(session, opts, settings, abortOnSignal());
    }),
  );
}
