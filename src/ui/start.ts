/**
 * `startTui(settings, invocation, {opener})`: the interactive entry point called by
 * runMain. Loads Ink lazily, renders the App, resolves with the exit code.
 */
import { setFlagsFromString } from 'node:v8';
import type { InvocationOptions, Settings } from '../config/schema.js';
import { createLogger } from '../log.js';
import { colorEnabled } from './style.js';
import { dropFirstFrame, takeFirstFrame } from './first-frame.js';
import type { SessionOpener, UiServices } from './services.js';

export interface StartTuiOptions {
  /** opens the agent sessions (the composition root's, src/commands/agent-session.ts) */
  opener: SessionOpener;
  /** test seam: replaces the real adapters */
  services?: UiServices;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

export async function startTui(settings: Settings, invocation: InvocationOptions, opts: StartTuiOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  if (!stdin.isTTY) {
    dropFirstFrame();
    // No terminal to read keys from (runMain sends such runs to one-shot; this guards direct calls).
    process.stderr.write('gns3-copilot: the interactive TUI needs a terminal on stdin; use -p "<prompt>" for one-shot mode\n');
    return 2;
  }
  // React reads NODE_ENV when first imported: without this the shipped CLI would
  // run React's development build (several times the CPU and memory per frame).
  process.env.NODE_ENV ??= 'production';
  // A TUI session lives for hours and its per-frame work is small: without TurboFan
  // (bytecode + Sparkplug only) it holds 10–15 MB less after 200 turns (optimised
  // code, deopt data, compiler zone memory) at no measurable CPU cost while streaming
  // (bench/ui.bench.ts). The session sets --optimize-for-size after its first request
  // (src/agent/idle-gc.ts).
  setFlagsFromString('--no-opt');
  // React is CommonJS: its exports are the namespace's default once bundled (tsup.config.ts)
  const [{ render }, { default: React }, { App }, { createRealServices }] = await Promise.all([
    import('ink'),
    import('react'),
    import('./components/App.js'),
    import('./services.js'),
  ]);
  const log = createLogger(settings.log_level);
  const services = opts.services ?? createRealServices(log, opts.opener);
  let code = 0;
  // Ink's first frame replaces the one src/cli.ts drew, with what was typed on it.
  const early = takeFirstFrame();
  const instance = render(
    React.createElement(App, {
      settings,
      invocation,
      services,
      ...(early ? { early } : {}),
      color: colorEnabled(settings.color),
      onExit: (c: number) => {
        code = c;
      },
    }),
    { stdin, stdout, exitOnCtrlC: false, patchConsole: true, maxFps: 30 },
  );
  // SIGTERM/SIGHUP (terminal closed): leave cleanly with the abort code.
  const onSignal = () => {
    code = 130;
    instance.unmount();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
  return code;
}
