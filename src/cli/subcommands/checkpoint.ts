/** `checkpoint` (src/commands/checkpoint.ts): named lab checkpoints, no session needed. */
import type { Command } from 'commander';
import { addSettingsOptions, collect, type SettingGroup } from '../options.js';
import { abortOnSignal, withSettings } from './action.js';

type CheckpointAction = 'save' | 'list' | 'show' | 'delete' | 'diff' | 'restore';

export function addCheckpointCommand(program: Command): void {
  const checkpoint = program
    .command('checkpoint')
    .description("save the whole lab of a project under a name (every device's configuration and the topology), compare, restore");
  function checkpointSub(name: CheckpointAction, args: string[], describe: string, groups: SettingGroup[], setup?: (c: Command) => void) {
    const c = checkpoint.command(name).description(describe);
    for (const a of args) c.argument(a);
    setup?.(c);
    c.option('--json', 'JSON output');
    addSettingsOptions(c, groups);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { checkpointCommand } = await import('../../commands/checkpoint.js');
        return checkpointCommand(name, positional, opts, settings, abortOnSignal());
      }),
    );
  }
  const lab: SettingGroup[] = ['controller', 'project', 'output'];
  checkpointSub('save', ['<name>'], "save every device's configuration and the topology under NAME", lab, (c) =>
    classOptions(c.option('--note <text>', 'a note kept with the checkpoint').option('--replace', 'overwrite a checkpoint of that name')),
  );
  checkpointSub('list', [], "the project's checkpoints, oldest first", lab);
  checkpointSub('show', ['<name>'], 'one checkpoint: its devices (saved or why not), topology and restores', lab);
  checkpointSub('delete', ['<name>'], 'delete a checkpoint', lab);
  checkpointSub('diff', ['<name>'], 'the saved lab against the lab now: device configuration diffs and topology changes', lab, (c) =>
    c.option('--device <name>', 'only this device (repeatable)', collect),
  );
  checkpointSub(
    'restore',
    ['<name>'],
    'put the lab (or --device) back to the checkpoint through the approval gate',
    [...lab, 'approve'],
    (c) =>
      c
        .option('--device <name>', 'only this device (repeatable); the topology is then left as it is', collect)
        .option('--dry-run', 'print the plan, change nothing')
        .option('--yes', 'approve the plan (without it the plan is printed and the exit code is 6)')
        .option('--projects <glob>', "every matching project, e.g. 'student-*': one plan and one approval for the whole class")
        .option('--jobs <n>', 'with --projects: projects at once, 1..32 (default 8)'),
  );
}

/** `--projects GLOB` and `--jobs N` of `checkpoint save` (restore has its own --projects text). */
function classOptions(c: Command): Command {
  return c
    .option('--projects <glob>', "save it in every matching project, e.g. 'student-*' (in parallel)")
    .option('--jobs <n>', 'with --projects: projects at once, 1..32 (default 8)');
}
