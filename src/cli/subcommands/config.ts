/** `config` (src/commands/config.ts): read and change settings in the user config file. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { settingsFlags } from '../options.js';
import type { Opts } from './action.js';

export function addConfigCommand(program: Command): void {
  const config = program.command('config').description('read and change settings (user config file)');
  config
    .command('get')
    .description('print the effective value of a setting')
    .argument('<key>')
    .option('--origin', 'also print where the value came from')
    .action(
      act(async (key: string, opts: Opts, cmd: Command) =>
        (await import('../../commands/config.js')).configGet(key, opts, await settingsFlags(cmd)),
      ),
    );
  config
    .command('set')
    .description('set a value in the user config file')
    .argument('<key>')
    .argument('<value>')
    .action(act(async (key: string, value: string) => (await import('../../commands/config.js')).configSet(key, value)));
  config
    .command('unset')
    .description('remove a value from the user config file')
    .argument('<key>')
    .action(act(async (key: string) => (await import('../../commands/config.js')).configUnset(key)));
  config
    .command('list')
    .description('print every effective setting')
    .option('--origin', 'show where each value came from')
    .option('--json', 'JSON output')
    .action(act(async (opts: Opts, cmd: Command) => (await import('../../commands/config.js')).configList(opts, await settingsFlags(cmd))));
  config
    .command('path')
    .description('print the config file locations')
    .action(act(async () => (await import('../../commands/config.js')).configPath()));
}
