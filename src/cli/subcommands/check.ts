/** `check` (src/commands/check.ts): a check file against the live lab. */
import type { Command } from 'commander';
import { act } from '../process.js';
import { addSettingsOptions, loadFor } from '../options.js';
import type { Opts } from './action.js';

export function addCheckCommand(program: Command): void {
  const check = program
    .command('check')
    .description('run a check file (YAML/JSON lab intents) against the live lab: ✓/✗ table, score, exit 7 when a check fails')
    .argument('[file]', 'check file (YAML or JSON)')
    .option('--init <file>', 'write a check file describing the live lab (nodes, links, addresses, neighbours, routes)')
    .option('--json', 'print the report as one JSON object')
    .option('--junit <file>', 'also write a JUnit XML report (one testcase per check)')
    .option('--watch [seconds]', 're-run every few seconds (default 5) until every check passes')
    .option('--only <name...>', 'run only the checks with these names')
    .option(
      '--stage <name>',
      'run one stage of a staged check file; with --init, write the lab as that stage (appended to an existing file)',
    )
    .option('--projects <glob>', "grade every matching project, e.g. 'student-*' (one row per project; with --watch a live class grid)")
    .option('--jobs <n>', 'with --projects: projects graded at once, 1..32 (default 8)');
  addSettingsOptions(check, ['controller', 'project', 'output']);
  check.action(
    act(async (file: string | undefined, opts: Opts, cmd: Command) => {
      const { settings, origins } = await loadFor(cmd);
      const { checkCommand } = await import('../../commands/check.js');
      return checkCommand(settings, {
        ...(file !== undefined ? { file } : {}),
        ...(typeof opts.init === 'string' ? { init: opts.init } : {}),
        json: opts.json === true,
        ...(typeof opts.junit === 'string' ? { junit: opts.junit } : {}),
        ...(opts.watch !== undefined ? { watch: opts.watch as string | boolean } : {}),
        ...(Array.isArray(opts.only) ? { only: opts.only as string[] } : {}),
        ...(typeof opts.stage === 'string' ? { stage: opts.stage } : {}),
        ...(typeof opts.projects === 'string' ? { projects: opts.projects } : {}),
        ...(typeof opts.jobs === 'string' ? { jobs: opts.jobs } : {}),
        projectFromFlag: origins.project?.startsWith('flag') === true,
      });
    }),
  );
}
