/**
 * `gns3-copilot eval` on the command line (src/commands/eval.ts): its own flags, the lab's
 * and the limits' settings flags, and the model's except `--model`, which eval repeats (one
 * per model to compare). `--level` is a difficulty (easy|medium|hard) or, as everywhere, an
 * exam level (ccna|ccnp|ccie: the inject_level setting).
 */
import type { Command } from 'commander';
import { act } from './process.js';
import { addSettingsOptions, collect, loadFor } from './options.js';

const DIFFICULTY = ['easy', 'medium', 'hard'];

export function addEvalCommand(program: Command): void {
  const cmd = program
    .command('eval')
    .description('measure models on your lab: inject each fitting scenario, give the agent its ticket, score, restore the lab')
    .option('--scenarios <ids>', 'these scenarios, comma-separated (default: every eval-ready one that fits the lab)')
    .option('--category <c>', 'only scenarios of this category (ospf, bgp, interface, link, …)')
    .option('--level <l>', 'only scenarios of this difficulty (easy|medium|hard), or up to this exam level (ccna|ccnp|ccie)')
    .option('--model <name>', 'a model to evaluate (repeatable; default the model setting)', collect)
    .option('--runs <n>', 'runs per scenario and model, 1..100 (default 1)')
    .option('--mode <m>', 'lab: diagnose and repair, every change approved (default) | teaching: diagnosis only')
    .option('--json', 'print {runs, models} as one JSON object (the progress rows go to stderr)')
    .option('--junit <file>', 'also write a JUnit XML report: one testcase per scenario × model × run')
    .option('--seed <s>', 'the seed that draws each scenario its target (same seed, same lab: same targets; default 0)')
    .option('--from <checkpoint>', 'start every run from this named checkpoint (the lab is restored to it first) instead of saving one')
    .option('--estimate', 'print the plan and its worst-case cost; nothing is sent')
    .option('--resume', 'after an eval was killed: restore the lab to its checkpoint and close its faults')
    .option('--yes', 'approve the plan: every injection and restore of the eval (without it and a terminal: exit 6)')
    .option('--provider <name>', 'openai | deepseek | openrouter | ollama | lmstudio | vllm | custom')
    .option('--base-url <url>', 'OpenAI-compatible API base URL (env GNS3_COPILOT_BASE_URL)')
    .option('--temperature <t>', 'sampling temperature, 0..2')
    .option('--context-limit <k>', 'model context in thousands of tokens (positive integer)');
  addSettingsOptions(cmd, ['controller', 'project', 'agent', 'output']);
  cmd.action(
    act(async (opts: Record<string, unknown>, c: Command) => {
      const level = typeof opts.level === 'string' ? opts.level.toLowerCase() : undefined;
      const difficulty = level !== undefined && DIFFICULTY.includes(level) ? (level as 'easy' | 'medium' | 'hard') : undefined;
      const models = (opts.model as string[] | undefined) ?? [];
      const loaded = await loadFor(c, {
        ...(models.length > 0 ? { model: models[0] } : {}),
        ...(difficulty ? { inject_level: undefined } : {}),
      });
      const { evalCommand } = await import('../commands/eval.js');
      return evalCommand(
        {
          scenarios:
            typeof opts.scenarios === 'string'
              ? opts.scenarios
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean)
              : undefined,
          category: opts.category as string | undefined,
          difficulty,
          models,
          runs: opts.runs as string | undefined,
          mode: opts.mode as string | undefined,
          json: opts.json === true,
          junit: opts.junit as string | undefined,
          seed: opts.seed as string | undefined,
          yes: opts.yes === true,
          from: opts.from as string | undefined,
          estimate: opts.estimate === true,
          resume: opts.resume === true,
        },
        loaded.settings,
      );
    }),
  );
}
