/** Mounts the real App on ink-testing-library streams with fake services. */
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/App.js';
import { stripAnsi } from '../../src/ui/style.js';
import type { InvocationOptions, Settings } from '../../src/config/schema.js';
import type { SlashCommand } from '../../src/ui/slash/index.js';
import { FakeServices, testSettings, tuiInvocation, type FakeServicesOptions } from './helpers/fake-services.js';
import { until } from './helpers/scripted-session.js';

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
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function mount(o: MountOptions = {}) {
  const services = new FakeServices(o);
  let exitCode: number | undefined;
  const r = render(
    <App
      settings={o.settings ?? testSettings()}
      invocation={tuiInvocation(o.invocation)}
      services={services}
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
