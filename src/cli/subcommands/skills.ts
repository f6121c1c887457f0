/** `skills` (src/commands/skills.ts): list and show the device, packet and injection skills. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { loadFor } from '../options.js';
import type { Opts } from './action.js';

export function addSkillsCommand(program: Command): void {
  const skills = program.command('skills').description('list and show the device, packet and injection skills');
  skills
    .command('list')
    .description('list skills')
    .option('--kind <device|packet|injection>', 'only skills of this kind')
    .option('--json', 'JSON output')
    .action(
      act(async (opts: Opts, cmd: Command) => {
        const { settings } = await loadFor(cmd);
        const { skillsCommand } = await import('../../commands/skills.js');
        return skillsCommand('list', [], opts, settings);
      }),
    );
  skills
    .command('show')
    .description('show one skill')
    .argument('<name>')
    .option('--json', 'JSON output')
    .action(
      act(async (name: string, opts: Opts, cmd: Command) => {
        const { settings } = await loadFor(cmd);
        const { skillsCommand } = await import('../../commands/skills.js');
        return skillsCommand('show', [name], opts, settings);
      }),
    );
}
