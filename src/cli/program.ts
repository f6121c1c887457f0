/**
 * The commander program behind src/cli.ts: the main action (TUI or one-shot), `inject` and the
 * subcommands, and the process boundary around parsing (one error line, its exit code, --json
 * failures). Loaded once the cheap fast paths (`--version`, the TUI's first frame) are done; both
 * bundles run it (the ES module chunks and the one-file bundle of agent runs, src/boot.ts).
 */
import { Command, CommanderError } from 'commander';
import { act, exit, installProcessHandlers, failWith, noteVerbose, onJsonFailure, EXIT_USAGE } from './process.js';
import { addRunOptions, addSettingsOptions, loadFor, typed } from './options.js';
import { addSubcommands } from './subcommands.js';
import { addScenarioOptions, isScenarioRun, runScenarioInject } from './inject-options.js';
import { addEvalCommand } from './eval-options.js';
import pkg from '../../package.json' with { type: 'json' };
import { dropFirstFrame } from '../ui/first-frame.js';

type Opts = Record<string, unknown>;

async function mainAction(cmd: Command, extra: { mode?: string; prompt?: string }): Promise<number> {
  // `inject` implies its mode: a classroom lock names the command, not a --mode nobody typed
  const loaded = await loadFor(cmd, extra.mode ? { mode: extra.mode } : {}, extra.mode ? { mode: cmd.name() } : {});
  const main = await import('../commands/main.js');
  const invocation = await main.resolveInvocation({
    prompt: (typed(cmd, 'prompt').value as string | undefined) ?? extra.prompt,
    json: typed(cmd, 'json').given,
    streamJson: typed(cmd, 'streamJson').given,
    estimate: typed(cmd, 'estimate').given,
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

const EXAMPLES = `
Examples:
  $ gns3-copilot                                   interactive TUI (teaching mode)
  $ gns3-copilot -s http://10.0.0.5:3080 --project ospf-lab -m lab
  $ gns3-copilot -p "why is R2 not an OSPF neighbour of R1?" --json
  $ echo "show ip route on all routers" | gns3-copilot --project lab1 --stream-json
  $ gns3-copilot -p "configure OSPF area 0 on R1-R3" -m lab --approve config --max-tool-calls 20
  $ gns3-copilot -p "check every router's routes" --estimate --max-cost 0.50   tokens and worst-case cost, nothing sent
  $ gns3-copilot inject "break one OSPF adjacency for the students"
  $ gns3-copilot inject --scenario ospf_hello_interval_mismatch --device R1 --yes   no LLM: the library's lines
  $ gns3-copilot inject --random 3 --seed 1 --projects 'student-*' --yes            the same three faults for the class
  $ gns3-copilot auth login                        store the LLM API key in the OS keychain
  $ gns3-copilot config set server http://10.0.0.5:3080
  $ gns3-copilot config list --origin
  $ gns3-copilot sessions list --json
  $ gns3-copilot doctor
  $ gns3-copilot faults check                      which injected faults the students have fixed
  $ gns3-copilot checkpoint save stage1 --project ospf-lab   the whole lab under a name

Exit codes: 0 done, 1 internal error, 2 usage, 3 GNS3 controller unreachable/auth,
4 LLM provider error/auth, 5 limit reached (--on-limit fail), 6 approval unavailable,
7 check failed or a fault still present (faults check) or a kept regression (one-shot
--on-regression), 8 rewind, checkpoint restore
or faults restore did not restore everything (inject --scenario: not every fault was
applied), 130 aborted.`;

/** The program: flags, the main action, `inject` and the subcommands. */
function buildProgram(): Command {
  const program = new Command('gns3-copilot')
    .description('Terminal copilot for GNS3 network labs: an LLM agent that drives the GNS3 API and device consoles')
    .version(pkg.version, '-V, --version', 'print the version')
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .configureOutput({
      outputError: (str, write) => {
        dropFirstFrame();
        write(str.endsWith('\n') ? str : `${str}\n`);
      },
    })
    .exitOverride();
  addRunOptions(addSettingsOptions(program));
  program.addHelpText('after', EXAMPLES);
  program.allowExcessArguments(true);
  program.action(
    act(async (_opts: Opts, cmd: Command) => {
      if (cmd.args.length > 0) {
        const { UsageError } = await import('../errors.js');
        throw new UsageError(`unknown command '${cmd.args[0]}' (see --help); to send a request use -p "<prompt>"`);
      }
      return mainAction(cmd, {});
    }),
  );

  const inject = program
    .command('inject')
    .description('one-shot or TUI in troubleshooting_injection mode (break the lab for students to fix)')
    .argument('[prompt]', 'request; without it: piped stdin, or the TUI on a terminal');
  // its mode is the command's own: no --mode
  addRunOptions(addSettingsOptions(inject, ['controller', 'project', 'agent', 'llm', 'approve', 'output']));
  inject.option(
    '--level <level>',
    'ccna|ccnp|ccie: offer only fault scenarios of this exam level (setting inject_level; default ccie = all); with --random: easy|medium|hard',
  );
  addScenarioOptions(inject);
  inject.action(
    act(async (prompt: string | undefined, _opts: Opts, cmd: Command) =>
      (await isScenarioRun(cmd)) ? runScenarioInject(prompt, cmd) : mainAction(cmd, { mode: 'troubleshooting_injection', prompt }),
    ),
  );

  addSubcommands(program);
  addEvalCommand(program);
  return program;
}

/** Parses the command line (`argv`: after node and the script) and runs the command; ends the process. */
export async function runProgram(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  noteVerbose(argv);
  installProcessHandlers();
  const program = buildProgram();
  // with --json / --stream-json every failure is also a JSON document on stdout (src/cli/json-failure.ts)
  const subcommandNames = program.commands.map((c) => c.name());
  const printFailure = async (code: number, line: string) => {
    const { jsonFailureShape, printJsonFailure } = await import('./json-failure.js');
    const shape = jsonFailureShape(argv, subcommandNames);
    if (shape) await printJsonFailure(shape, code, line);
  };
  onJsonFailure(printFailure);

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit 0; every parse error (unknown option, missing argument) is a usage error.
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0;
      if (!ok) await printFailure(EXIT_USAGE, err.message.replace(/^error: /, ''));
      await exit(ok ? 0 : EXIT_USAGE);
    }
    await exit(await failWith(err));
  }
}
