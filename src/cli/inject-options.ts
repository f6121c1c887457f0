/**
 * `inject --scenario ID | --random N`: faults from the scenario library without an LLM
 * (src/commands/inject-scenario.ts). The options join `inject`'s own; any of them
 * without `--scenario` or `--random` is a usage error, never silently ignored.
 */
import type { Command } from 'commander';
import { collect, loadFor, typed } from './options.js';

export function addScenarioOptions(cmd: Command): Command {
  return cmd
    .option('--scenario <id>', 'apply this scenario of the library without an LLM (see `skills list --kind injection`)')
    .option('--random <n>', 'apply n scenarios drawn from those that fit the lab, 1..50')
    .option('--device <name>', 'the device the scenario goes on (with --random: draw only for it)')
    .option('--link <a-b>', 'the link a link scenario goes on, e.g. "R1:e0-R2:e0" (with --random: only link scenarios)')
    .option('--set <name=value>', "a scenario parameter, instead of the value read from the device's facts (repeatable)", collect)
    .option('--seed <s|per-project>', '--random: the seed of the draw (same seed, same picks); per-project: one per project')
    .option('--allow-repeat', '--random: may pick scenarios the project has used already')
    .option('--projects <glob>', "every matching project on the controller, e.g. 'student-*' (in parallel)")
    .option('--jobs <n>', 'with --projects: projects at once, 1..32 (default 8)')
    .option('--yes', 'approve the faults (without it the plan is printed and the exit code is 6)');
}

/** Flags that only make sense for a scenario run. */
const SCENARIO_ONLY = ['device', 'link', 'set', 'seed', 'allowRepeat', 'projects', 'jobs', 'yes'] as const;
const FLAG_OF: Record<string, string> = { allowRepeat: '--allow-repeat' };

/** True when the command line asks for a scenario run; a scenario flag without one is a usage error. */
export async function isScenarioRun(cmd: Command): Promise<boolean> {
  if (typed(cmd, 'scenario').given || typed(cmd, 'random').given) return true;
  const stray = SCENARIO_ONLY.find((k) => cmd.getOptionValueSource(k) === 'cli');
  if (stray) {
    const { UsageError } = await import('../errors.js');
    throw new UsageError(`${FLAG_OF[stray] ?? `--${stray}`} needs --scenario ID or --random N (inject without them asks the agent)`);
  }
  return false;
}

const DIFFICULTY = ['easy', 'medium', 'hard'];

/** Runs `inject --scenario|--random`: `--level easy|medium|hard` picks the draw's difficulty; ccna|ccnp|ccie stays the inject_level setting. */
export async function runScenarioInject(prompt: string | undefined, cmd: Command): Promise<number> {
  const { UsageError } = await import('../errors.js');
  if (prompt !== undefined) throw new UsageError(`inject --scenario/--random takes no prompt (got "${prompt}")`);
  for (const k of ['prompt', 'streamJson', 'estimate', 'continue', 'resume', 'fork'])
    if (typed(cmd, k).given)
      throw new UsageError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for an agent run, not inject --scenario/--random`);
  const level = typed(cmd, 'level').value as string | undefined;
  const difficulty = level !== undefined && DIFFICULTY.includes(level.toLowerCase()) ? level.toLowerCase() : undefined;
  const loaded = await loadFor(
    cmd,
    { mode: 'troubleshooting_injection', ...(difficulty ? { inject_level: undefined } : {}) },
    { mode: cmd.name() },
  );
  const opts = cmd.opts();
  const { injectScenarioCommand } = await import('../commands/inject-scenario.js');
  return injectScenarioCommand(
    {
      scenario: opts.scenario as string | undefined,
      random: opts.random as string | undefined,
      device: opts.device as string | undefined,
      link: opts.link as string | undefined,
      set: (opts.set as string[] | undefined) ?? [],
      difficulty,
      seed: opts.seed as string | undefined,
      allowRepeat: opts.allowRepeat === true,
      projects: opts.projects as string | undefined,
      jobs: opts.jobs as string | undefined,
      yes: opts.yes === true,
      json: typed(cmd, 'json').given,
      projectFromFlag: loaded.origins.project?.startsWith('flag') === true,
    },
    loaded.settings,
  );
}
