/**
 * The command line (README, Command line). `--version` loads nothing at all; everything
 * else loads only commander up front, so `--help` stays close to bare `node`
 * start-up; every command loads what it needs with `import()` when it runs.
 */
import type { Command as CommandT } from 'commander';
import pkg from '../package.json' with { type: 'json' };

// `--version` alone is answered before anything else loads (not even
// commander): it is what scripts and shell prompts call most.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
const { Command, Option, CommanderError } = await import('commander');
// tiny and dependency-free: every error line goes through it (src/security/redact.ts)
const { redact } = await import('./security/redact.js');
const { sanitizeLine, sanitizeText } = await import('./security/sanitize.js');
type Command = CommandT;

type Opts = Record<string, unknown>;

const EXIT_USAGE = 2;
const EXIT_INTERNAL = 1;
const EXIT_ABORTED = 130;

// Read before parsing so that even a parse-time failure honours it.
const verbose = process.argv.includes('--verbose') || process.argv.includes('-v');

// ---------------------------------------------------------------- errors & exit

/** One line on stderr; a stack only for unexpected errors and only with --verbose. */
function reportError(err: unknown): number {
  // Duck-typed CopilotError (src/errors.ts) so that this file imports nothing but commander.
  const e = err as { exitCode?: unknown; stack?: unknown };
  const known = err instanceof Error && typeof e.exitCode === 'number';
  const message = redact(err instanceof Error ? err.message : String(err));
  const firstLine = sanitizeLine(message.split('\n')[0] ?? message);
  if (known) {
    process.stderr.write(`error: ${firstLine}\n`);
    return e.exitCode as number;
  }
  process.stderr.write(`error: internal error: ${firstLine}\n`);
  if (verbose && typeof e.stack === 'string') process.stderr.write(`${sanitizeText(redact(e.stack))}\n`);
  return EXIT_INTERNAL;
}

async function exit(code: number): Promise<never> {
  // Let pending stdout/stderr writes drain before leaving (pipes to slow readers).
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await new Promise<void>((r) => process.stderr.write('', () => r()));
  process.exit(code);
}

let signalled = false;
/**
 * Ctrl-C / SIGTERM. When a run installed its own handler (one-shot and TUI abort the run and
 * print what they have), we only make sure the exit code ends up 130; with
 * nobody else listening, or on a second signal, we leave at once.
 */
function onSignal(signal: NodeJS.Signals): void {
  const othersListening = process.listenerCount(signal) > 1;
  if (signalled || !othersListening) {
    void exit(EXIT_ABORTED);
    return;
  }
  signalled = true;
  setTimeout(() => void exit(EXIT_ABORTED), 5_000).unref();
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// `gns3-copilot --help | head`: a closed pipe is the reader's choice, not our error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
}
process.on('unhandledRejection', (err) => void exit(reportError(err)));
process.on('uncaughtException', (err) => void exit(reportError(err)));

// ---------------------------------------------------------------- options

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Commands that carry the settings flags (and, for runs, the run flags). */
const withSettings = new Set<Command>();

/**
 * The value of a flag the user typed, looking at the command itself first and
 * then its parents (`gns3-copilot --json inject x` and `inject x --json` both
 * count). Commander's optsWithGlobals lets a parent's *default* win over a
 * child's typed value, which would lose `inject --no-color`.
 */
function typed(cmd: Command, key: string): { given: boolean; value?: unknown } {
  for (let c: Command | null = cmd; c; c = c.parent) {
    if (!withSettings.has(c)) continue;
    if (c.getOptionValueSource(key) === 'cli') return { given: true, value: c.getOptionValue(key) };
  }
  return { given: false };
}

/** The persistent-settings flags: on the program, `inject` and `doctor`. */
function addSettingsOptions(cmd: Command): Command {
  withSettings.add(cmd);
  return cmd
    .option('-s, --server <url>', 'GNS3 controller URL (env GNS3_SERVER; default http://127.0.0.1:3080)')
    .option('--project <name|id>', 'GNS3 project (env GNS3_PROJECT); the TUI offers a picker when absent')
    .option('-m, --mode <mode>', 'teaching | lab | inject (env GNS3_COPILOT_MODE; default teaching)')
    .option('--max-iterations <n>', 'LLM<->tool iterations per request, 1..100 (default 20)')
    .option('--max-tool-calls <n>', 'tool calls per request, 1..50 (default unlimited)')
    .option('--max-time <s>', 'wall-clock budget per request in seconds, 1..86400')
    .option('--tool-limit <name=n>', 'per-tool cap, repeatable (e.g. execute_multiple_device_commands=3)', collect)
    .option('--on-limit <fail|warn|continue>', 'what a reached limit does (default warn)')
    .option('--max-parallel-tools <n>', 'tool calls of one response run at most n at a time, 1..20 (default 5)')
    .option('--max-retries-per-tool <n>', 'retries of a transiently failing tool call, 0..5 (default 1)')
    .option('--max-device-config-calls <n>', 'config-changing tool calls per request, 1..1000')
    .option('--max-diagnostic-calls <n>', 'read-only tool calls per request, 1..1000')
    .option('--child-execution-mode <m>', 'AGENT_MODE=recursive: sub-agents of one batch run sequential (default) | parallel')
    .option('--max-parallel-children <n>', 'sub-agents running at once with --child-execution-mode parallel, 1..2 (default 2)')
    .option('--provider <name>', 'openai | deepseek | openrouter | ollama | lmstudio | vllm | custom')
    .option('--model <name>', 'model name (env GNS3_COPILOT_MODEL)')
    .option('--base-url <url>', 'OpenAI-compatible API base URL (env GNS3_COPILOT_BASE_URL)')
    .option('--temperature <t>', 'sampling temperature, 0..2')
    .option('--context-limit <k>', 'model context in thousands of tokens (positive integer)')
    .option('--context-strategy <s>', 'conservative (60%) | balanced (75%) | aggressive (85%)')
    .option('--approve <who>', 'who approves config-changing tools: never | ask | config | all (one-shot: not ask)')
    .option('--insecure', 'skip TLS verification of the controller (warns)')
    .option('--no-color', 'plain output (env NO_COLOR)')
    .option('-v, --verbose', 'debug-level log file (env GNS3_COPILOT_LOG=debug)');
}

function addRunOptions(cmd: Command): Command {
  return cmd
    .option('-p, --prompt <prompt>', 'one-shot: run this request and exit')
    .addOption(new Option('--json', 'one-shot: print one JSON object at the end'))
    .addOption(new Option('--stream-json', 'one-shot: print one JSON event per line'))
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
  onLimit: 'on_limit',
  maxParallelTools: 'max_parallel_tools',
  maxRetriesPerTool: 'max_retries_per_tool',
  maxDeviceConfigCalls: 'max_device_config_calls',
  maxDiagnosticCalls: 'max_diagnostic_calls',
  provider: 'provider',
  model: 'model',
  baseUrl: 'base_url',
  temperature: 'temperature',
  contextLimit: 'context_limit',
  contextStrategy: 'context_strategy',
  approve: 'approve',
  childExecutionMode: 'child_execution_mode',
  maxParallelChildren: 'max_parallel_children',
};

/** Parses repeated `--tool-limit name=n` into a record; bad syntax or unknown tool -> usage error. */
async function parseToolLimits(values: string[]): Promise<Record<string, string>> {
  const { TOOL_NAMES } = await import('./agent/modes.js');
  const { UsageError } = await import('./errors.js');
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = /^([A-Za-z0-9_.-]+)=([0-9]+)$/.exec(v.trim());
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 1000) throw new UsageError(`--tool-limit: expected <tool>=<n> with n 1..1000 (got ${v})`);
    const [, name, n] = m as unknown as [string, string, string];
    // `server__tool`: a tool of one of the user's MCP servers (mcp_servers)
    if (!(TOOL_NAMES as readonly string[]).includes(name) && !/^[A-Za-z0-9-]+__[A-Za-z0-9_.-]+$/.test(name)) {
      throw new UsageError(`--tool-limit: unknown tool "${name}" (one of ${TOOL_NAMES.join(', ')})`);
    }
    out[name] = n;
  }
  return out;
}

/** Settings flags the user actually typed (commander fills defaults for --no-color). */
async function settingsFlags(cmd: Command): Promise<Record<string, unknown>> {
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

async function loadFor(cmd: Command, extra: Record<string, unknown> = {}, flagLabels: Record<string, string> = {}) {
  const { loadSettings } = await import('./config/load.js');
  const loaded = await loadSettings({ flags: { ...(await settingsFlags(cmd)), ...extra }, flagLabels });
  for (const w of loaded.warnings) process.stderr.write(`warning: ${sanitizeLine(w)}\n`);
  if (loaded.settings.insecure) process.stderr.write('warning: TLS certificate verification of the GNS3 controller is disabled (--insecure)\n');
  return loaded;
}

// ---------------------------------------------------------------- actions

async function mainAction(cmd: Command, extra: { mode?: string; prompt?: string }): Promise<number> {
  // `inject` implies its mode: a classroom lock names the command, not a --mode nobody typed
  const loaded = await loadFor(cmd, extra.mode ? { mode: extra.mode } : {}, extra.mode ? { mode: cmd.name() } : {});
  const main = await import('./commands/main.js');
  const invocation = await main.resolveInvocation({
    prompt: (typed(cmd, 'prompt').value as string | undefined) ?? extra.prompt,
    json: typed(cmd, 'json').given,
    streamJson: typed(cmd, 'streamJson').given,
    continueLatest: typed(cmd, 'continue').given,
    resumeId: typed(cmd, 'resume').value as string | undefined,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    readStdin: () => main.readAllStdin(),
  });
  if (loaded.origins.project?.startsWith('flag')) invocation.projectExplicit = true;
  if (typed(cmd, 'fork').given) invocation.fork = true;
  const settings = main.applyApprovalPolicy(loaded.settings, invocation, loaded.origins.approve);
  return main.runMain(settings, invocation);
}

/** Runs an action and turns its result or error into the process exit code. */
function act<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return async (...args: A) => {
    let code: number;
    try {
      code = (await fn(...args)) ?? 0;
    } catch (err) {
      code = reportError(err);
    }
    await exit(signalled ? EXIT_ABORTED : code);
  };
}

// ---------------------------------------------------------------- program

const EXAMPLES = `
Examples:
  $ gns3-copilot                                   interactive TUI (teaching mode)
  $ gns3-copilot -s http://10.0.0.5:3080 --project ospf-lab -m lab
  $ gns3-copilot -p "why is R2 not an OSPF neighbour of R1?" --json
  $ echo "show ip route on all routers" | gns3-copilot --project lab1 --stream-json
  $ gns3-copilot -p "configure OSPF area 0 on R1-R3" -m lab --approve config --max-tool-calls 20
  $ gns3-copilot inject "break one OSPF adjacency for the students"
  $ gns3-copilot auth login                        store the LLM API key in the OS keychain
  $ gns3-copilot config set server http://10.0.0.5:3080
  $ gns3-copilot config list --origin
  $ gns3-copilot sessions list --json
  $ gns3-copilot doctor

Exit codes: 0 done, 1 internal error, 2 usage, 3 GNS3 controller unreachable/auth,
4 LLM provider error/auth, 5 limit reached (--on-limit fail), 6 approval unavailable,
130 aborted.`;

const program = new Command('gns3-copilot')
  .description('Terminal copilot for GNS3 network labs: an LLM agent that drives the GNS3 API and device consoles')
  .version(pkg.version, '-V, --version', 'print the version')
  .enablePositionalOptions()
  .showSuggestionAfterError(true)
  .configureOutput({
    outputError: (str, write) => write(str.endsWith('\n') ? str : `${str}\n`),
  })
  .exitOverride();
addRunOptions(addSettingsOptions(program));
program.addHelpText('after', EXAMPLES);
program.allowExcessArguments(true);
program.action(
  act(async (_opts: Opts, cmd: Command) => {
    if (cmd.args.length > 0) {
      const { UsageError } = await import('./errors.js');
      throw new UsageError(`unknown command '${cmd.args[0]}' (see --help); to send a request use -p "<prompt>"`);
    }
    return mainAction(cmd, {});
  }),
);

const inject = program
  .command('inject')
  .description('one-shot or TUI in troubleshooting_injection mode (break the lab for students to fix)')
  .argument('[prompt]', 'request; without it: piped stdin, or the TUI on a terminal');
addRunOptions(addSettingsOptions(inject));
inject.action(
  act(async (prompt: string | undefined, _opts: Opts, cmd: Command) => mainAction(cmd, { mode: 'troubleshooting_injection', prompt })),
);

// sessions (src/commands/sessions.ts)
const sessions = program.command('sessions').description('list, show, rename, pin, delete and export saved sessions');
type SessionAction = 'list' | 'show' | 'rename' | 'pin' | 'unpin' | 'delete' | 'export';
function sessionsSub(name: SessionAction, args: string[], describe: string, setup?: (c: Command) => void) {
  const c = sessions.command(name).description(describe);
  for (const a of args) c.argument(a);
  setup?.(c);
  c.action(
    act(async (...params: unknown[]) => {
      const cmd = params[params.length - 1] as Command;
      const opts = params[params.length - 2] as Opts;
      const positional = params.slice(0, -2).map(String);
      const { settings } = await loadFor(cmd);
      const { sessionsCommand } = await import('./commands/sessions.js');
      return sessionsCommand(name, positional, opts, settings);
    }),
  );
}
sessionsSub('list', [], 'list sessions, newest first', (c) =>
  c
    .option('--project <p>', 'only sessions of this GNS3 project')
    .option('--mode <m>', 'only sessions of this copilot mode')
    .option('--limit <n>', 'at most n sessions')
    .option('--offset <n>', 'skip the first n')
    .option('--json', 'JSON output'),
);
sessionsSub('show', ['<id>'], 'show one session and its messages', (c) => c.option('--json', 'JSON output'));
sessionsSub('rename', ['<id>', '<title>'], 'set a session title');
sessionsSub('pin', ['<id>'], 'pin a session (kept at the top, never pruned)');
sessionsSub('unpin', ['<id>'], 'unpin a session');
sessionsSub('delete', ['<id>'], 'delete a session', (c) => c.option('--yes', 'do not ask for confirmation'));
sessionsSub('export', ['<id>'], 'export a session', (c) =>
  c.option('--format <md|json>', 'md or json', 'md').option('--output <file>', 'write to a file instead of stdout'),
);

// skills (src/commands/skills.ts)
const skills = program.command('skills').description('list and show the device, packet and injection skills');
skills
  .command('list')
  .description('list skills')
  .option('--kind <device|packet|injection>', 'only skills of this kind')
  .option('--json', 'JSON output')
  .action(
    act(async (opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      const { skillsCommand } = await import('./commands/skills.js');
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
      const { skillsCommand } = await import('./commands/skills.js');
      return skillsCommand('show', [name], opts, settings);
    }),
  );

// auth
const auth = program.command('auth').description('store the LLM API key and GNS3 credentials in the OS keychain');
auth
  .command('login')
  .description('store the LLM API key (read from stdin or a hidden prompt, never from arguments)')
  .argument('[refused...]', 'nothing: secrets are never accepted as arguments')
  .option('--gns3-user <name>', 'store GNS3 controller credentials instead: this user, password from stdin/prompt')
  .option('--mcp-token', 'store the bearer token `gns3-copilot mcp --http` requires instead (from stdin/prompt)')
  .action(act(async (refused: string[], opts: Opts) => (await import('./commands/auth.js')).authLogin(opts, refused)));
auth
  .command('logout')
  .description('delete stored secrets (default: all of them)')
  .option('--llm', 'only the LLM API key')
  .option('--gns3', 'only the GNS3 credentials and tokens')
  .action(act(async (opts: Opts) => (await import('./commands/auth.js')).authLogout(opts)));
auth
  .command('status')
  .description('show which secrets are stored and where (never their values)')
  .option('--json', 'JSON output')
  .action(act(async (opts: Opts) => (await import('./commands/auth.js')).authStatus(opts)));

// config
const config = program.command('config').description('read and change settings (user config file)');
config
  .command('get')
  .description('print the effective value of a setting')
  .argument('<key>')
  .option('--origin', 'also print where the value came from')
  .action(act(async (key: string, opts: Opts, cmd: Command) => (await import('./commands/config.js')).configGet(key, opts, await settingsFlags(cmd))));
config
  .command('set')
  .description('set a value in the user config file')
  .argument('<key>')
  .argument('<value>')
  .action(act(async (key: string, value: string) => (await import('./commands/config.js')).configSet(key, value)));
config
  .command('unset')
  .description('remove a value from the user config file')
  .argument('<key>')
  .action(act(async (key: string) => (await import('./commands/config.js')).configUnset(key)));
config
  .command('list')
  .description('print every effective setting')
  .option('--origin', 'show where each value came from')
  .option('--json', 'JSON output')
  .action(act(async (opts: Opts, cmd: Command) => (await import('./commands/config.js')).configList(opts, await settingsFlags(cmd))));
config
  .command('path')
  .description('print the config file locations')
  .action(act(async () => (await import('./commands/config.js')).configPath()));

// doctor
const doctor = program.command('doctor').description('check Node, config, keychain, controller, LLM endpoint and tools');
addSettingsOptions(doctor);
doctor.option('--json', 'JSON output');
doctor.action(act(async (opts: Opts, cmd: Command) => (await import('./commands/doctor.js')).runDoctor(await settingsFlags(cmd), opts)));

// mcp (src/mcp/server): the lab tools for other agents
const mcp = program
  .command('mcp')
  .description('serve the lab tools, topology, skills and mode prompts over MCP (stdio, or --http)')
  .option('--http <host:port>', 'streamable HTTP on this address instead of stdio (loopback, e.g. 127.0.0.1:8765)')
  .option('--listen', 'allow a non-loopback --http address (needs GNS3_COPILOT_MCP_TOKEN or mcp_token in the keychain)');
addSettingsOptions(mcp);
mcp.action(
  act(async (opts: Opts, cmd: Command) => {
    const { settings } = await loadFor(cmd);
    const { runMcpCommand } = await import('./mcp/server/command.js');
    return runMcpCommand(settings, { ...(typeof opts.http === 'string' ? { http: opts.http } : {}), listen: opts.listen === true });
  }),
);

// ---------------------------------------------------------------- run

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; every parse error (unknown option, missing argument) is a usage error.
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0;
    await exit(ok ? 0 : EXIT_USAGE);
  }
  await exit(reportError(err));
}
