/** `doctor` (src/commands/doctor.ts) and `map` (src/commands/map.ts): looking at the setup and the lab, changing nothing. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { addSettingsOptions, settingsFlags } from '../options.js';
import { withSettings, type Opts } from './action.js';

export function addDoctorCommand(program: Command): void {
  const doctor = program
    .command('doctor')
    .description("check Node, config, keychain, controller, LLM endpoint, tools and where the project's topology comes from");
  addSettingsOptions(doctor, ['controller', 'project', 'llm', 'output']);
  doctor.option('--json', 'JSON output');
  doctor.action(
    act(async (opts: Opts, cmd: Command) => (await import('../../commands/doctor.js')).runDoctor(await settingsFlags(cmd), opts)),
  );
}

/** The lab drawn once as text. */
export function addMapCommand(program: Command): void {
  const map = program
    .command('map')
    .description('draw the lab once as text: nodes as boxes with their status, links with their ports (reads only)')
    .option('--width <columns>', 'lay the map out for this many columns (default: the terminal, else 120)');
  addSettingsOptions(map);
  map.action(withSettings(async (_positional, opts, settings) => (await import('../../commands/map.js')).mapCommand(settings, opts)));
}
