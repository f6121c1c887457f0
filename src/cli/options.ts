/**
 * The command line's flags: the settings flags (in groups: each command lists those it reads),
 * the run flags, and turning the flags the user typed into settings (docs/ARCHITECTURE.md, Layers).
 */
import type { Command } from 'commander';
import { sanitizeLine } from '../security/sanitize.js';

/** A repeatable flag's values in the order typed (`--device R1 --device R2`): commander's parser for it. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Commands that carry the settings flags (and, for runs, the run flags). */
const withSettings = new WeakSet<Command>();

/**
 * The value of a flag the user typed, looking at the command itself first and
 * then its parents (`gns3-copilot --json inject x` and `inject x --json` both
 * count). Commander's optsWithGlobals lets a parent's *default* win over a
 * child's typed value, which would lose `inject --no-color`.
 */
export function typed(cmd: Command, key: string): { given: boolean; value?: unknown } {
  for (let c: Command | null = cmd; c; c = c.parent) {
    if (!withSettings.has(c)) continue;
    if (c.getOptionValueSource(key) === 'cli') return { given: true, value: c.getOptionValue(key) };
  }
  return { given: false };
}

/**
 * The settings flags in groups, so that each command lists the ones it reads: the program (and
 * its one-shot) all of them, a subcommand its own (`check` the controller, project and output
 * groups, `inject` everything but the mode it implies). A flag a subcommand does not list is still taken before
 * the subcommand's name (`gns3-copilot --server URL check lab.yaml`), where the program reads it.
 */
const SETTING_GROUPS = {
  /** the GNS3 controller and its TLS */
  controller: (c: Command) =>
    c
      .option('-s, --server <url>', 'GNS3 controller URL (env GNS3_SERVER; default http://127.0.0.1:3080)')
      .option('--insecure', 'skip TLS verification of the controller (warns)'),
  project: (c: Command) => c.option('--project <name|id>', 'GNS3 project (env GNS3_PROJECT); the TUI offers a picker when absent'),
  mode: (c: Command) => c.option('-m, --mode <mode>', 'teaching | lab | inject (env GNS3_COPILOT_MODE; default teaching)'),
  /** a request's limits and the agent's run mode */
  agent: (c: Command) =>
    c
      .option('--max-iterations <n>', 'LLM<->tool iterations per request, 1..100 (default 20)')
      .option('--max-tool-calls <n>', 'tool calls per request, 1..50 (default unlimited)')
      .option('--max-time <s>', 'wall-clock budget per request in seconds, 1..86400')
      .option('--max-cost <usd>', 'USD one request may spend on LLM calls, 0.001..1000 (needs the model in model_prices)')
      .option('--tool-limit <name=n>', 'per-tool cap, repeatable (e.g. execute_multiple_device_commands=3)', collect)
      .option('--on-limit <fail|warn|continue>', 'what a reached limit does (default warn)')
      .option('--max-parallel-tools <n>', 'tool calls of one response run at most n at a time, 1..20 (default 5)')
      .option('--max-retries-per-tool <n>', 'retries of a transiently failing tool call, 0..5 (default 1)')
      .option('--max-device-config-calls <n>', 'config-changing tool calls per request, 1..1000')
      .option('--max-diagnostic-calls <n>', 'read-only tool calls per request, 1..1000')
      .option('--verify-timeout <s>', 'seconds a change is re-read until its state is stable before it is verified, 1..600 (default 30)')
      .option('--on-regression <keep|rewind>', 'one-shot: a change whose verification regressed is kept (exit 7, default) or rewound')
      .option(
        '--checks <file>',
        "a check file a change's verification also runs: a check that passed before and fails after is a regression",
      )
      .option('--agent-mode <mode>', 'sub-agents of a new session: flat (default) | recursive task trees (env AGENT_MODE)')
      .option('--child-execution-mode <m>', 'agent mode recursive: sub-agents of one batch run sequential (default) | parallel')
      .option('--max-parallel-children <n>', 'sub-agents running at once with --child-execution-mode parallel, 1..2 (default 2)'),
  /** the model */
  llm: (c: Command) =>
    c
      .option('--provider <name>', 'openai | deepseek | openrouter | ollama | lmstudio | vllm | custom')
      .option('--model <name>', 'model name (env GNS3_COPILOT_MODEL)')
      .option('--base-url <url>', 'OpenAI-compatible API base URL (env GNS3_COPILOT_BASE_URL)')
      .option('--temperature <t>', 'sampling temperature, 0..2')
      .option('--context-limit <k>', 'model context in thousands of tokens (positive integer)')
      .option('--context-strategy <s>', 'conservative (60%) | balanced (75%) | aggressive (85%)')
      .option(
        '--topology-inline-max <n>',
        'nodes up to which the system prompt lists the topology; above: a summary, 0..100000 (default 150)',
      ),
  approve: (c: Command) =>
    c.option('--approve <who>', 'who approves config-changing tools: never | ask | config | all (one-shot: not ask)'),
  /** how the command talks to the user */
  output: (c: Command) =>
    c.option('--no-color', 'plain output (env NO_COLOR)').option('-v, --verbose', 'debug-level log file (env GNS3_COPILOT_LOG=debug)'),
} satisfies Record<string, (c: Command) => Command>;

export type SettingGroup = keyof typeof SETTING_GROUPS;
const ALL_GROUPS: SettingGroup[] = ['controller', 'project', 'mode', 'agent', 'llm', 'approve', 'output'];

/** The settings flags of these groups on a command (default: every group, as the program has them). */
export function addSettingsOptions(cmd: Command, groups: readonly SettingGroup[] = ALL_GROUPS): Command {
  withSettings.add(cmd);
  for (const g of ALL_GROUPS) if (groups.includes(g)) SETTING_GROUPS[g](cmd);
  return cmd;
}

export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('-p, --prompt <prompt>', 'one-shot: run this request and exit')
    .addOption(cmd.createOption('--json', 'one-shot: print one JSON object at the end'))
    .addOption(cmd.createOption('--stream-json', 'one-shot: print one JSON event per line'))
    .option('--estimate', 'one-shot: count the first LLM call and the worst-case cost; nothing is sent, no tool runs')
    .option('-c, --continue', 'resume the latest session')
    .option('-r, --resume <id>', 'resume the given session')
    .option('--fork', 'with -r/-c: branch that session into a new id (also when it is in use elsewhere)');
}

/** commander option name -> settings key, for options that map 1:1 */
const SETTING_FLAGS: Record<string, string> = {
  server: 'server',
  project: 'project',
  mode: 'mode',
  maxIterations: 'max_iterations',
  maxToolCalls: 'max_tool_calls',
  maxTime: 'max_time',
  maxCost: 'max_cost',
  onLimit: 'on_limit',
  maxParallelTools: 'max_parallel_tools',
  maxRetriesPerTool: 'max_retries_per_tool',
  maxDeviceConfigCalls: 'max_device_config_calls',
  maxDiagnosticCalls: 'max_diagnostic_calls',
  verifyTimeout: 'verify_timeout',
  onRegression: 'on_regression',
  checks: 'checks',
  provider: 'provider',
  model: 'model',
  baseUrl: 'base_url',
  temperature: 'temperature',
  contextLimit: 'context_limit',
  contextStrategy: 'context_strategy',
  topologyInlineMax: 'topology_inline_max',
  approve: 'approve',
  agentMode: 'agent_mode',
  childExecutionMode: 'child_execution_mode',
  maxParallelChildren: 'max_parallel_children',
  level: 'inject_level',
};

/** Parses repeated `--tool-limit name=n` into a record; bad syntax or unknown tool -> usage error. */
async function parseToolLimits(values: string[]): Promise<Record<string, string>> {
  const { TOOL_NAMES } = await import('../core/modes.js');
  const { UsageError } = await import('../errors.js');
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = /^([A-Za-z0-9_.-]+)=([0-9]+)$/.exec(v.trim());
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 1000) throw new UsageError(`--tool-limit: expected <tool>=<n> with n 1..1000 (got ${v})`);
    const name = m[1]!;
    const n = m[2]!;
    // `server__tool`: a tool of one of the user's MCP servers (mcp_servers)
    if (!(TOOL_NAMES as readonly string[]).includes(name) && !/^[A-Za-z0-9-]+__[A-Za-z0-9_.-]+$/.test(name)) {
      throw new UsageError(`--tool-limit: unknown tool "${name}" (one of ${TOOL_NAMES.join(', ')})`);
    }
    out[name] = n;
  }
  return out;
}

/** Settings flags the user actually typed (commander fills defaults for --no-color). */
export async function settingsFlags(cmd: Command): Promise<Record<string, unknown>> {
  const flags: Record<string, unknown> = {};
  for (const [opt, key] of Object.entries(SETTING_FLAGS)) {
    const t = typed(cmd, opt);
    if (t.given) flags[key] = t.value;
  }
  const toolLimit = typed(cmd, 'toolLimit');
  if (toolLimit.given) flags.tool_limits = await parseToolLimits(toolLimit.value as string[]);
  if (typed(cmd, 'insecure').given) flags.insecure = true;
  if (typed(cmd, 'color').value === false) flags.color = false;
  if (typed(cmd, 'verbose').given) flags.log_level = 'debug';
  return flags;
}

export async function loadFor(cmd: Command, extra: Record<string, unknown> = {}, flagLabels: Record<string, string> = {}) {
  const { loadSettings } = await import('../config/load.js');
  const loaded = await loadSettings({ flags: { ...(await settingsFlags(cmd)), ...extra }, flagLabels });
  for (const w of loaded.warnings) process.stderr.write(`warning: ${sanitizeLine(w)}\n`);
  if (loaded.settings.insecure)
    process.stderr.write('warning: TLS certificate verification of the GNS3 controller is disabled (--insecure)\n');
  return loaded;
}
