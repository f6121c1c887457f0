/** Mounts the real App on ink-testing-library streams with fake services. */
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/App.js';
import { stripAnsi } from '../../src/ui/style.js';
import type { InvocationOptions, Settings } from '../../src/config/schema.js';
import type { SlashCommand } from '../../src/ui/slash/index.js';
import type { CreateSessionOptions, UiServices } from '../../src/ui/services.js';
import type { CopilotSession } from '../../src/agent/session.js';
import { FakeServices, testSettings, tuiInvocation, type FakeServicesOptions } from './helpers/fake-services.js';
import { until } from './helpers/scripted-session.js';
import { fakeProject, session } from '../agent/helpers.js';
import type { ToolDef } from '../../src/tools/types.js';

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  tab: '\t',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlO: '\u000f',
  backspace: '\u007f',
  pageDown: '\u001b[6~',
};

export interface MountOptions extends FakeServicesOptions {
  settings?: Settings;
  invocation?: Partial<InvocationOptions>;
  color?: boolean;
  columns?: number;
  rows?: number;
  /** the App's slash commands (default: all) */
  commands?: readonly SlashCommand[];
  /** opens the session the App asks for (default: the fake services' scripted one) */
  createSession?: UiServices['createSession'];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function mount(o: MountOptions = {}) {
  const services = new FakeServices(o);
  const appServices = o.createSession ? Object.assign(Object.create(services) as UiServices, { createSession: o.createSession }) : services;
  let exitCode: number | undefined;
  const r = render(
    <App
      settings={o.settings ?? testSettings()}
      invocation={tuiInvocation(o.invocation)}
      services={appServices}
      color={o.color ?? false}
      onExit={(c) => {
        exitCode = c;
      }}
      retryMs={150}
      flushMs={5}
      {...(o.commands ? { commands: o.commands } : {})}
    />,
  );
  // eslint-disable-next-line no-restricted-syntax -- ink-testing-library's Stdout is a stub without these members in its type
  const stdout = r.stdout as unknown as { columns: number; rows: number; emit(e: string): void };
  const resize = (columns: number, rows: number) => {
    Object.defineProperty(stdout, 'columns', { value: columns, configurable: true });
    Object.defineProperty(stdout, 'rows', { value: rows, configurable: true });
    stdout.emit('resize');
  };
  if (o.columns || o.rows) resize(o.columns ?? 100, o.rows ?? 24);
  const frame = () => stripAnsi(r.lastFrame() ?? '');
  return {
    ...r,
    services,
    resize,
    frame,
    exitCode: () => exitCode,
    /** writes keys one chunk at a time, letting Ink and React settle in between */
    async press(...chunks: string[]) {
      for (const c of chunks) {
        r.stdin.write(c);
        await sleep(25);
      }
    },
    async type(text: string, submit = true) {
      r.stdin.write(text);
      await sleep(25);
      if (submit) {
        r.stdin.write(KEY.enter);
        await sleep(25);
      }
    },
    async waitFor(text: string | RegExp, timeoutMs = 3000) {
      await until(
        () => (typeof text === 'string' ? frame().includes(text) : text.test(frame())),
        timeoutMs,
        `frame to show ${String(text)}\n--- last frame ---\n${frame()}`,
      );
    },
    async ready() {
      await until(() => services.sessionsMade.length > 0 && frame().includes('›'), 3000, 'session ready');
      await sleep(20);
    },
  };
}

/**
 * Mounts the App over a real agent session (the real graph, SQLite, a fake LLM over HTTP):
 * `open` makes it when the App asks; `session()` is it once made.
 */
export function mountReal(settings: Settings, open: (o: CreateSessionOptions) => Promise<CopilotSession>) {
  let real: CopilotSession | undefined;
  const m = mount({ settings, createSession: async (o) => (real = await open(o)) });
  return {
    ...m,
    session: () => real,
    async ready() {
      await until(() => real !== undefined && m.frame().includes('›'), 10_000, 'session ready');
    },
    async close() {
      m.unmount();
      await real?.close();
    },
  };
}

/** The App over a real recursive session (AGENT_MODE=recursive) on the fake project, with `tools`. */
export function mountRecursive(settings: Settings, tools: ToolDef[], env: Record<string, string> = {}) {
  return mountReal(settings, (o) =>
    session(settings, tools, {
      env: { AGENT_MODE: 'recursive', ...env },
      approver: o.approver,
      ...(o.limitAsker ? { limitAsker: o.limitAsker } : {}),
      projectScope: async () => fakeProject(),
    }),
  );
}
