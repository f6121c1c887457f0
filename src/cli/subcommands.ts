/**
 * The subcommands that are not a run: sessions, skills, auth, config, doctor, map, check, faults, checkpoint, diff, rewind, mcp. Each
 * loads its module under src/commands/ (or src/mcp/server/) with import() when it runs.
 */
import type { Command } from 'commander';
import { act } from './process.js';
import { addSettingsOptions, collect, loadFor, settingsFlags, type SettingGroup } from './options.js';
import type { Settings } from '../config/schema.js';

type Opts = Record<string, unknown>;

/** An abort signal for a subcommand that talks to devices: Ctrl-C (SIGINT/SIGTERM) stops it between steps. */
function abortOnSignal(): AbortSignal {
  const ac = new AbortController();
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => ac.abort('interrupted'));
  return ac.signal;
}

/**
 * A subcommand's action: commander passes the positional arguments, then the options,
 * then the command; `run` gets them with the settings loaded for that command.
 */
function withSettings(run: (positional: string[], opts: Opts, settings: Settings) => Promise<number | void>) {
  return act(async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = params[params.length - 2] as Opts;
    const { settings } = await loadFor(cmd);
    return run(params.slice(0, -2).map(String), opts, settings);
  });
}

export function addSubcommands(program: Command): void {
  // sessions (src/commands/sessions.ts)
  const sessions = program.command('sessions').description('list, show, rename, pin, delete, export saved sessions and stop a running one');
  type SessionAction = 'list' | 'show' | 'rename' | 'pin' | 'unpin' | 'delete' | 'export' | 'stop';
  function sessionsSub(name: SessionAction, args: string[], describe: string, setup?: (c: Command) => void) {
    const c = sessions.command(name).description(describe);
    for (const a of args) c.argument(a);
    setup?.(c);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { sessionsCommand } = await import('../commands/sessions.js');
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
  sessionsSub('delete', ['<id>'], 'delete a session', (c) =>
    c
      .option('--yes', 'do not ask for confirmation')
      .option('--force', 'take over the lease of a session held from another host whose process is gone'),
  );
  sessionsSub('export', ['<id>'], 'export a session', (c) =>
    c.option('--format <md|json>', 'md or json', 'md').option('--output <file>', 'write to a file instead of stdout'),
  );
  sessionsSub(
    'stop',
    ['<id>'],
    "stop a session's running request (from another terminal), or with --agent one sub-agent and its subtree",
    (c) => c.option('--agent <id>', 'only this sub-agent (an id or a unique prefix, as /tree shows it) and its sub-agents'),
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
        const { skillsCommand } = await import('../commands/skills.js');
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
        const { skillsCommand } = await import('../commands/skills.js');
        return skillsCommand('show', [name], opts, settings);
      }),
    );

  // auth
  const auth = program.command('auth').description('store the LLM API key and GNS3 credentials in the OS keychain');
  auth
    .command('login')
    .description('store the LLM API key, read from stdin or a hidden prompt; secrets are never accepted as arguments (shell history, ps)')
    .option('--gns3-user <name>', 'store GNS3 controller credentials instead: this user, password from stdin/prompt')
    .option('--mcp-token', 'store the bearer token `gns3-copilot mcp --http` requires instead (from stdin/prompt)')
    // a secret typed as an argument is refused by authLogin with advice, not by commander's "too many arguments"
    .allowExcessArguments()
    .action(act(async (opts: Opts, cmd: Command) => (await import('../commands/auth.js')).authLogin(opts, cmd.args)));
  auth
    .command('logout')
    .description('delete stored secrets (default: all of them)')
    .option('--llm', 'only the LLM API key')
    .option('--gns3', 'only the GNS3 credentials and tokens')
    .action(act(async (opts: Opts) => (await import('../commands/auth.js')).authLogout(opts)));
  auth
    .command('status')
    .description('show which secrets are stored and where (never their values)')
    .option('--json', 'JSON output')
    .action(act(async (opts: Opts) => (await import('../commands/auth.js')).authStatus(opts)));

  // config
  const config = program.command('config').description('read and change settings (user config file)');
  config
    .command('get')
    .description('print the effective value of a setting')
    .argument('<key>')
    .option('--origin', 'also print where the value came from')
    .action(
      act(async (key: string, opts: Opts, cmd: Command) =>
        (await import('../commands/config.js')).configGet(key, opts, await settingsFlags(cmd)),
      ),
    );
  config
    .command('set')
    .description('set a value in the user config file')
    .argument('<key>')
    .argument('<value>')
    .action(act(async (key: string, value: string) => (await import('../commands/config.js')).configSet(key, value)));
  config
    .command('unset')
    .description('remove a value from the user config file')
    .argument('<key>')
    .action(act(async (key: string) => (await import('../commands/config.js')).configUnset(key)));
  config
    .command('list')
    .description('print every effective setting')
    .option('--origin', 'show where each value came from')
    .option('--json', 'JSON output')
    .action(act(async (opts: Opts, cmd: Command) => (await import('../commands/config.js')).configList(opts, await settingsFlags(cmd))));
  config
    .command('path')
    .description('print the config file locations')
    .action(act(async () => (await import('../commands/config.js')).configPath()));

  // doctor
  const doctor = program
    .command('doctor')
    .description("check Node, config, keychain, controller, LLM endpoint, tools and where the project's topology comes from");
  addSettingsOptions(doctor, ['controller', 'project', 'llm', 'output']);
  doctor.option('--json', 'JSON output');
  doctor.action(act(async (opts: Opts, cmd: Command) => (await import('../commands/doctor.js')).runDoctor(await settingsFlags(cmd), opts)));

  // map (src/commands/map.ts): the lab drawn once as text
  const map = program
    .command('map')
    .description('draw the lab once as text: nodes as boxes with their status, links with their ports (reads only)')
    .option('--width <columns>', 'lay the map out for this many columns (default: the terminal, else 120)');
  addSettingsOptions(map);
  map.action(withSettings(async (_positional, opts, settings) => (await import('../commands/map.js')).mapCommand(settings, opts)));

  // diff and rewind (src/commands/rewind.ts): what a session changed in the lab, and undoing it
  const diff = program
    .command('diff')
    .description('what a session changed in the lab since just before a request: device configuration diffs and topology changes')
    .argument('[session]', 'session id or prefix (default: the latest session)')
    .option('--to <request>', 'since just before this request (default: the first)')
    .option('--device <name>', 'only this device (repeatable)', collect)
    .option('--json', 'JSON output');
  addSettingsOptions(diff, ['controller', 'project', 'output']);
  diff.action(
    act(async (session: string | undefined, opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      const { diffCommand } = await import('../commands/rewind.js');
      return diffCommand(session, opts, settings, abortOnSignal());
    }),
  );
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
      const { rewindCommand } = await import('../commands/rewind.js');
      return rewindCommand(session, opts, settings, abortOnSignal());
    }),
  );

  // checkpoint (src/commands/checkpoint.ts): named lab checkpoints, no session needed
  const checkpoint = program
    .command('checkpoint')
    .description("save the whole lab of a project under a name (every device's configuration and the topology), compare, restore");
  type CheckpointAction = 'save' | 'list' | 'show' | 'delete' | 'diff' | 'restore';
  function checkpointSub(name: CheckpointAction, args: string[], describe: string, groups: SettingGroup[], setup?: (c: Command) => void) {
    const c = checkpoint.command(name).description(describe);
    for (const a of args) c.argument(a);
    setup?.(c);
    c.option('--json', 'JSON output');
    addSettingsOptions(c, groups);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { checkpointCommand } = await import('../commands/checkpoint.js');
        return checkpointCommand(name, positional, opts, settings, abortOnSignal());
      }),
    );
  }
  const lab: SettingGroup[] = ['controller', 'project', 'output'];
  checkpointSub('save', ['<name>'], "save every device's configuration and the topology under NAME", lab, (c) =>
    c.option('--note <text>', 'a note kept with the checkpoint').option('--replace', 'overwrite a checkpoint of that name'),
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
        .option('--yes', 'approve the plan (without it the plan is printed and the exit code is 6)'),
  );

  // check (src/commands/check.ts): a check file against the live lab
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
      const { checkCommand } = await import('../commands/check.js');
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

  // faults (src/commands/faults.ts): the fault ledger of inject mode
  const faults = program
    .command('faults')
    .description('the faults inject mode applied: still present or fixed, a score, and restoring them');
  type FaultsAction = 'list' | 'show' | 'check' | 'restore';
  function faultsSub(name: FaultsAction, args: string[], describe: string, groups: SettingGroup[], setup?: (c: Command) => void) {
    const c = faults.command(name).description(describe);
    for (const a of args) c.argument(a);
    c.option('--session <id>', 'only the faults of this session (id or prefix)').option('--json', 'JSON output');
    setup?.(c);
    addSettingsOptions(c, groups);
    c.action(
      withSettings(async (positional, opts, settings) => {
        const { faultsCommand } = await import('../commands/faults.js');
        return faultsCommand(name, positional, opts, settings, abortOnSignal());
      }),
    );
  }
  // every faults command takes the lab's options (a script passes the same ones to all of them); restore also --approve
  faultsSub('list', [], 'list the recorded faults: open, fixed (when) or restored, and the score', ['controller', 'project', 'output']);
  faultsSub('show', ['<id>'], 'one fault: what was applied, its restore, its repair check and every check run', [
    'controller',
    'project',
    'output',
  ]);
  faultsSub(
    'check',
    [],
    "run the open faults' repair checks: which are still present, when each was fixed; exit 7 while one is open",
    ['controller', 'project', 'output'],
    (c) => c.option('--watch [seconds]', 're-run every few seconds (default 5) until no fault is open, recording each fix when it happens'),
  );
  faultsSub('restore', ['<id>'], "apply a fault's restore through the approval gate", ['controller', 'project', 'approve', 'output'], (c) =>
    c.option('--yes', 'approve the restore (without it the plan is printed and the exit code is 6)'),
  );

  // mcp (src/mcp/server): the lab tools for other agents
  const mcp = program
    .command('mcp')
    .description('serve the lab tools, topology, skills and mode prompts over MCP (stdio, or --http)')
    .option('--http <host:port>', 'streamable HTTP on this address instead of stdio (loopback, e.g. 127.0.0.1:8765)')
    .option('--listen', 'allow a non-loopback --http address (needs GNS3_COPILOT_MCP_TOKEN or mcp_token in the keychain)');
  addSettingsOptions(mcp, ['controller', 'project', 'mode', 'approve', 'output']);
  mcp.action(
    act(async (opts: Opts, cmd: Command) => {
      const { settings } = await loadFor(cmd);
      const { runMcpCommand } = await import('../mcp/server/command.js');
      return runMcpCommand(settings, { ...(typeof opts.http === 'string' ? { http: opts.http } : {}), listen: opts.listen === true });
    }),
  );
}
