/**
 * Everything the TUI end-to-end test runs against: the real FRR lab, the fake
 * GNS3 controller whose nodes' consoles point at the lab, the fake LLM driven
 * by a script, temp HOME/XDG dirs, and a tmux server of our own (`-L`) running
 * the built binary in a real 100×30 terminal.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { startFakeLlm, type FakeLlm, type FakeTurn } from '../fakes/llm/server.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/gns3-copilot.js');

export interface TuiEnv {
  lab: Lab;
  gns3: FakeGns3;
  llm: FakeLlm;
  dir: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startTuiEnv(script: FakeTurn[], opts: { project?: string } = {}): Promise<TuiEnv> {
  const project = opts.project ?? 'tui-lab';
  const lab = await startLab({ routers: ['R1', 'R2'], links: [['R1', 'R2']] });
  let gns3: FakeGns3 | undefined;
  let llm: FakeLlm | undefined;
  try {
    gns3 = await startFakeGns3({ api: 'v2' });
    gns3.addProject({ name: project });
    for (const d of lab.devices) {
      gns3.addNode(frrLabNode(d, { ports: 2, project }));
    }
    gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project });
    llm = await startFakeLlm(script, { title: 'OSPF check on R1 and R2' });
  } catch (err) {
    await gns3?.close();
    await lab.stop();
    throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), `gcl-tui-${process.pid}-`));
  const env = tuiProcessEnv(dir, { gns3: gns3.url, llm: llm.url, apiKey: 'sk-test-tui-e2e' });
  const g = gns3;
  const l = llm;
  return {
    lab,
    gns3: g,
    llm: l,
    dir,
    env,
    async stop() {
      await l.close().catch(() => undefined);
      await g.close().catch(() => undefined);
      await lab.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment the binary runs in under tmux: HOME and the XDG dirs inside `dir` (nothing of
 * the user's is read or written), a UTF-8 xterm, the fake controller and the fake LLM.
 */
export function tuiProcessEnv(
  dir: string,
  peers: { gns3: string; llm: string; apiKey: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    GNS3_COPILOT_API_KEY: peers.apiKey,
    GNS3_SERVER: peers.gns3,
    GNS3_COPILOT_SYSTEM_CONFIG: join(dir, 'system-config.json'),
    GNS3_COPILOT_BASE_URL: peers.llm,
    ...extra,
  };
}

/** A tmux server of our own; only it is ever killed. */
export class Tmux {
  readonly socket = `gcl-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private started = false;

  constructor(
    readonly dir: string,
    readonly env: Record<string, string>,
    readonly size = { columns: 100, rows: 30 },
  ) {}

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env });
  }

  /** Starts the binary in a fresh window; its exit code is echoed as `EXIT:<n>`. */
  run(args: string[], name = 'main'): void {
    const script = join(this.dir, `run-${name}.sh`);
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    writeFileSync(script, `#!/bin/sh\ncd '${ROOT}'\n'${process.execPath}' '${BIN}' ${quoted}\necho "EXIT:$?"\nsleep 600\n`);
    chmodSync(script, 0o755);
    if (!this.started) {
      this.tmux('new-session', '-d', '-s', name, '-x', String(this.size.columns), '-y', String(this.size.rows), script);
      this.tmux('set-option', '-g', 'history-limit', '5000');
      this.tmux('set-option', '-s', 'escape-time', '50');
      this.started = true;
    } else {
      this.tmux('new-window', '-t', 'main', '-n', name, script);
    }
    this.target = name === 'main' ? 'main' : `main:${name}`;
  }

  private target = 'main';

  /** Literal text, no Enter. */
  type(text: string): void {
    this.tmux('send-keys', '-t', this.target, '-l', text);
  }

  /** tmux key names: Enter, Escape, C-c, C-d, Up, Tab … */
  keys(...names: string[]): void {
    this.tmux('send-keys', '-t', this.target, ...names);
  }

  /** The visible screen plus scrollback; `joined: false` keeps the rows the terminal wrapped apart. */
  capture(history = 1000, joined = true): string {
    return this.tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), '-t', this.target, '-S', `-${history}`);
  }

  /** Resizes the window, as a user dragging the terminal's edge would. */
  resize(columns: number, rows = this.size.rows): void {
    this.tmux('resize-window', '-t', this.target, '-x', String(columns), '-y', String(rows));
  }

  /** The visible screen with its escape sequences (colours, attributes). */
  screenWithEscapes(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.target);
  }

  /** Only the visible screen. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.target);
  }

  async waitFor(pattern: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const start = Date.now();
    for (;;) {
      const text = this.capture();
      if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return text;
      if (Date.now() - start > timeoutMs) {
        throw new Error(`tmux: timed out waiting for ${String(pattern)}\n----- screen -----\n${this.screen()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until the scrollback's rows (unjoined, as the terminal shows them) reach a state; returns them. */
  async waitForRows(reached: (rows: string[]) => boolean, what: string, timeoutMs = 15_000): Promise<string[]> {
    const start = Date.now();
    for (;;) {
      const rows = this.capture(1000, false).replace(/\s+$/, '').split('\n');
      if (reached(rows)) return rows;
      if (Date.now() - start > timeoutMs) throw new Error(`tmux: timed out waiting for ${what}\n----- screen -----\n${this.screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    if (!this.started) return;
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
    this.started = false;
  }
}
