/**
 * TUI: time to first frame (built binary in a real pty, and in-process), CPU
 * time and peak RSS while streaming a 5,000-token answer with 20 tool calls,
 * and RSS after a 200-turn session (target ≤ 150 MB).
 *
 * The streaming and 200-turn runs each happen in a fresh child process (this
 * file re-executed with GCL_UI_BENCH_WORKER set) so their RSS is their own.
 * Events are produced as fast as the event loop allows (one macrotask per
 * token), which is harsher than any real provider; the render throttle
 * (~30 fps) is what keeps the CPU bounded.
 */
import { spawn, execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtMs, median, type BenchTable } from './table.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- workers

interface WorkerResult {
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  rssAfterMb: number;
  /** RSS after imports, before the first render (tsx + React + Ink + Yoga) */
  baseRssMb: number;
  heapAfterMb: number;
  writes: number;
  bytes: number;
  firstFrameMs: number;
}

class FakeTty extends EventEmitter {
  columns = 100;
  rows = 30;
  isTTY = true;
  writes = 0;
  bytes = 0;
  firstWriteAt = 0;
  write(s: string): boolean {
    if (this.writes === 0) this.firstWriteAt = performance.now();
    this.writes++;
    this.bytes += s.length;
    return true;
  }
}

/** Like ink-testing-library's stdin: Ink reads on 'readable'. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  private chunk: string | null = null;
  write(data: string) {
    this.chunk = data;
    this.emit('readable');
  }
  read() {
    const c = this.chunk;
    this.chunk = null;
    return c;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

async function worker(kind: 'stream' | 'turns'): Promise<WorkerResult> {
  const React = await import('react');
  const { render } = await import('ink');
  const { App } = await import('../src/ui/components/App.js');
  const { FakeServices, testSettings, tuiInvocation } = await import('../test/ui/helpers/fake-services.js');
  const { stats } = await import('../test/ui/helpers/scripted-session.js');
  type Step = import('../test/ui/helpers/scripted-session.js').ScriptStep;

  const deviceOutput = (i: number) =>
    JSON.stringify(
      ['R1', 'R2', 'R3'].map((d) => ({
        device_name: d,
        status: 'success',
        results: [
          {
            command: 'show ip ospf neighbor',
            status: 'success',
            output: Array.from(
              { length: 8 },
              (_, k) => `${k + 1}.${k + 1}.${k + 1}.${k + 1}   1   FULL/DR   00:00:3${k}   10.0.${i}.${k}   eth${k}`,
            ).join('\n'),
            duration_ms: 40,
          },
        ],
        blocked: [],
        duration_ms: 45,
      })),
    );
  const words = [
    'OSPF',
    'neighbor',
    'adjacency',
    '**Full**',
    'area',
    '`0`',
    'on',
    'R1',
    'and',
    'the',
    'hello',
    'timer',
    'is',
    '10s;',
    'LSA',
    'type',
  ];
  const answer = (tokens: number, tools: number, turn: number): Step[] => {
    const steps: Step[] = [];
    const every = tools > 0 ? Math.floor(tokens / (tools + 1)) : Infinity;
    let toolNo = 0;
    for (let t = 0; t < tokens; t++) {
      let delta = words[(t * 7 + turn) % words.length]! + ' ';
      if (t % 60 === 59) delta += '\n\n';
      if (t % 400 === 200)
        delta += '\n```\nNeighbor ID     Pri   State     Dead Time   Address\n2.2.2.2           1   FULL/DR   00:00:38    10.0.12.2\n```\n';
      if (t % 500 === 300) delta += '\n| Router | State |\n|---|---|\n| R1 | Full |\n| R2 | Full |\n\n';
      steps.push({ type: 'content', delta });
      if (t > 0 && t % every === 0 && toolNo < tools) {
        const id = `t${turn}-${toolNo++}`;
        const args = { device_configs: ['R1', 'R2', 'R3'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor'] })) };
        steps.push({ type: 'tool_call', id, name: 'execute_multiple_device_commands', args });
        steps.push({ type: 'tool_start', id, name: 'execute_multiple_device_commands' });
        steps.push({
          type: 'tool_end',
          id,
          name: 'execute_multiple_device_commands',
          status: 'success',
          duration_ms: 45,
          output: deviceOutput(toolNo),
        });
      }
    }
    steps.push({
      type: 'done',
      stopped_reason: 'done',
      stats: stats({ iterations: tools + 1, tool_calls: tools, input_tokens: 2000, output_tokens: tokens }),
    });
    return steps;
  };

  const turns = kind === 'stream' ? 1 : Number(process.env.GCL_UI_BENCH_TURNS ?? 200);
  const scripts = Array.from({ length: turns }, (_, i) => (kind === 'stream' ? answer(5000, 20, i) : answer(250, 1, i)));
  // Each content step yields to the event loop, like tokens arriving from a socket.
  const paced = scripts.map((s) => s.flatMap((step): Step[] => (step.type === 'content' ? [step, { type: 'wait', ms: 0 }] : [step])));
  const services = new FakeServices({ scripts: paced });
  const stdout = new FakeTty();
  const stdin = new FakeStdin();
  (globalThis as { gc?: () => void }).gc?.();
  const baseRss = process.memoryUsage().rss;
  let peak = baseRss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const app = render(
    React.createElement(App, {
      settings: testSettings(),
      invocation: tuiInvocation(),
      services,
      color: true,
      onExit: () => undefined,
    }),
    {
      /* eslint-disable no-restricted-syntax -- Ink wants a tty; these fakes implement the part of one Ink uses */
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      /* eslint-enable no-restricted-syntax */
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: 30,
    },
  );
  const waitUntil = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 2));
  };
  await waitUntil(() => services.sessionsMade.length > 0);
  const firstFrameMs = stdout.firstWriteAt - t0;
  const session = services.session;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < turns; i++) {
    stdin.write(`question ${i + 1} about the lab`);
    await new Promise((r) => setTimeout(r, 1));
    stdin.write('\r');
    await waitUntil(() => session.completed === i + 1);
    // let the last batch flush and the finished turn reach <Static>
    await new Promise((r) => setTimeout(r, 40));
  }
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  clearInterval(sampler);
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 50));
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  app.unmount();
  return {
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: Math.max(peak, mem.rss) / 1e6,
    rssAfterMb: mem.rss / 1e6,
    baseRssMb: baseRss / 1e6,
    heapAfterMb: mem.heapUsed / 1e6,
    writes: stdout.writes,
    bytes: stdout.bytes,
    firstFrameMs,
  };
}

if (process.env.GCL_UI_BENCH_WORKER) {
  const kind = process.env.GCL_UI_BENCH_WORKER as 'stream' | 'turns';
  const result = await worker(kind);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

function runWorker(kind: 'stream' | 'turns'): WorkerResult {
  // NODE_ENV=production: what startTui sets for the shipped binary.
  const env = { ...process.env, GCL_UI_BENCH_WORKER: kind, NODE_ENV: 'production' } as NodeJS.ProcessEnv;
  // Ink renders only the last frame when it thinks it runs in CI; measure the interactive path.
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', SELF], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as WorkerResult;
}

// ---------------------------------------------------------------- the real binary in a pty

/** The built binary in a pty (util-linux `script`), driven like a person at a terminal. */
export class PtyTui {
  private child: ReturnType<typeof spawn>;
  /** recent output and the absolute offset of its first char */
  private buf = '';
  private base = 0;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    const quoted = args.map((a) => `'${a}'`).join(' ');
    const cmd = `stty cols 100 rows 30; exec '${process.execPath}' '${join(ROOT, 'bin/gns3-copilot.js')}' ${quoted}`;
    this.child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.on('data', (b: Buffer) => {
      this.buf += b.toString('utf8');
      if (this.buf.length > 400_000) {
        const cut = this.buf.length - 200_000;
        this.buf = this.buf.slice(cut);
        this.base += cut;
      }
    });
  }

  /** pid of node itself (the pty's shell exec'd it: the only child of `script`) */
  nodePid(): number {
    const children = readFileSync(`/proc/${this.child.pid}/task/${this.child.pid}/children`, 'utf8').trim().split(/\s+/);
    return Number(children[0]);
  }

  /** absolute output position now */
  mark(): number {
    return this.base + this.buf.length;
  }

  send(text: string): void {
    this.child.stdin!.write(text);
  }

  /** Resolves with the absolute position just after `text`, searched from `since`. */
  async waitFor(text: string, since: number, timeoutMs = 60_000): Promise<number> {
    const start = Date.now();
    for (;;) {
      const i = this.buf.indexOf(text, Math.max(0, since - this.base));
      if (i >= 0) return this.base + i + text.length;
      if (Date.now() - start > timeoutMs) throw new Error(`pty: timed out waiting for ${text}: …${this.buf.slice(-300)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.send('\u0004');
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => this.child.pid && process.kill(this.child.pid, 'SIGTERM'), 5000);
      this.child.on('exit', () => {
        clearTimeout(kill);
        resolve();
      });
    });
  }
}

function procStatus(pid: number): { rssMb: number; hwmMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  return { rssMb: (kb('VmRSS') * 1024) / 1e6, hwmMb: (kb('VmHWM') * 1024) / 1e6, cpuMs: (ticks * 1000) / 100 };
}

interface BinaryResult {
  streamCpuMs: number;
  streamWallMs: number;
  streamPeakRssMb: number;
  turnsRssMb: number;
  /** the same, after 12 s at the prompt */
  turnsSettledRssMb: number;
  turnsPeakRssMb: number;
  turnsWallMs: number;
  idleRssMb: number;
}

/** Whole product (TUI + agent core + SQLite) against the fake LLM and fake controller. */
export async function binarySession(turns: number, toolsPerTurn = 5): Promise<BinaryResult> {
  const { startFakeGns3 } = await import('../test/fakes/gns3/server.js');
  const { startFakeLlm } = await import('../test/fakes/llm/server.js');
  const gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'bench' });
  const words = 'OSPF neighbor adjacency **Full** area `0` on R1 and the hello timer is 10s; LSA type'.split(' ');
  const text = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => words[(i * 7 + seed) % words.length]! + ((i + 1) % 60 === 0 ? '\n\n' : ' ')).join('');
  const tool = { name: 'get_gns3_templates', args: {} };
  // Request 1: 5,000 tokens over 21 model calls with 20 tool calls between them.
  const script: import('../test/fakes/llm/server.js').FakeTurn[] = [];
  for (let i = 0; i < 20; i++) script.push({ text: text(238, i), tool_calls: [tool] });
  script.push({ text: text(240, 99) + '\n\nSTREAM-DONE' });
  // Each turn: toolsPerTurn model calls that each call one tool, then the answer.
  for (let t = 0; t < turns; t++) {
    for (let k = 0; k < toolsPerTurn; k++) script.push({ text: 'Checking templates.', tool_calls: [tool] });
    script.push({ text: text(250, t) + `\n\nTURN-DONE-${t}` });
  }
  const llm = await startFakeLlm(script, { title: 'bench session' });
  const dir = mkdtempSync(join(tmpdir(), `gcl-uibench-${process.pid}-`));
  const env = binaryEnv(dir, llm.url, {
    // allocator experiments (e.g. MALLOC_ARENA_MAX=2) reach the measured binary, and so do
    // node flags for a heap snapshot (GCL_UI_BENCH_NODE_OPTIONS='--heapsnapshot-signal=SIGUSR2')
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_'))),
    ...(process.env.GCL_UI_BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.GCL_UI_BENCH_NODE_OPTIONS } : {}),
  });
  const tui = new PtyTui(['--server', gns3.url, '--project', 'bench', '--max-iterations', '30'], env);
  try {
    await tui.waitFor('Ask about your lab', 0, 20_000);
    const pid = tui.nodePid();
    const before = procStatus(pid);
    let t = performance.now();
    let at = tui.mark();
    tui.send('explain the whole lab\r');
    at = await tui.waitFor('STREAM-DONE', at);
    await tui.waitFor('Ask about your lab', at);
    const afterStream = procStatus(pid);
    const streamWallMs = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < turns; i++) {
      at = tui.mark();
      tui.send(`question ${i + 1}\r`);
      at = await tui.waitFor(`TURN-DONE-${i}`, at);
      await tui.waitFor('Ask about your lab', at);
    }
    const turnsWallMs = performance.now() - t;
    await new Promise((r) => setTimeout(r, 300));
    const end = procStatus(pid);
    // Right after the last turn the heap still holds that turn's garbage; the session
    // asks for a full GC ~1.5 s after a request ends. What an idle TUI holds is this.
    await new Promise((r) => setTimeout(r, Number(process.env.GCL_UI_BENCH_SETTLE_MS ?? 12_000)));
    const settled = procStatus(pid);
    return {
      streamCpuMs: afterStream.cpuMs - before.cpuMs,
      streamWallMs,
      streamPeakRssMb: afterStream.hwmMb,
      turnsRssMb: end.rssMb,
      turnsSettledRssMb: settled.rssMb,
      turnsPeakRssMb: end.hwmMb,
      turnsWallMs,
      idleRssMb: before.rssMb,
    };
  } finally {
    await tui.close();
    await llm.close();
    await gns3.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The measured binary's environment: an isolated HOME/XDG tree and a fake key and LLM URL. */
export function binaryEnv(dir: string, llmUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
    TERM: 'xterm-256color',
    GNS3_COPILOT_API_KEY: 'sk-bench',
    GNS3_COPILOT_BASE_URL: llmUrl,
    GNS3_COPILOT_SYSTEM_CONFIG: join(dir, 'none.json'),
    ...extra,
  };
}

// ---------------------------------------------------------------- cold start in a pty

async function coldStart(runs: number): Promise<{ firstFrame: number[]; ready: number[] }> {
  const { startFakeGns3 } = await import('../test/fakes/gns3/server.js');
  const gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'bench' });
  const dir = mkdtempSync(join(tmpdir(), `gcl-uibench-${process.pid}-`));
  const firstFrame: number[] = [];
  const ready: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const env = binaryEnv(dir, 'http://127.0.0.1:9/v1', { COLUMNS: '100', LINES: '30' });
      const cmd = `stty cols 100 rows 30; exec '${process.execPath}' '${join(ROOT, 'bin/gns3-copilot.js')}' --server '${gns3.url}' --project bench`;
      const t0 = performance.now();
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
      let seen = '';
      let first = 0;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`TUI did not become ready: ${seen.slice(-500)}`)), 20_000);
        child.stdout.on('data', (b: Buffer) => {
          seen += b.toString('utf8');
          if (!first && /gns3-copilot|›/.test(seen)) first = performance.now() - t0;
          if (seen.includes('Ask about your lab')) {
            clearTimeout(timer);
            ready.push(performance.now() - t0);
            firstFrame.push(first);
            resolve();
          }
        });
        child.on('error', reject);
      });
      // Ctrl-D through the pty: the app exits on its own.
      child.stdin.write('\u0004');
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => {
          if (child.pid) process.kill(child.pid, 'SIGTERM');
        }, 5000);
        child.on('exit', () => {
          clearTimeout(kill);
          resolve();
        });
      });
    }
  } finally {
    await gns3.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { firstFrame, ready };
}

/** min / median / max of the runs, e.g. `128.1 / 131.0 / 139.9 MB` */
function spread(xs: number[]): string {
  return `${Math.min(...xs).toFixed(1)} / ${median(xs).toFixed(1)} / ${Math.max(...xs).toFixed(1)} MB`;
}

/**
 * Knobs: GCL_UI_BENCH_RUNS (binary sessions, default 3: RSS varies ±30 MB run to run),
 * GCL_UI_BENCH_TOOLS (tool calls per turn, default 5), GCL_UI_BENCH_SETTLE_MS (wait at
 * the prompt before "settled", default 12 s), GCL_UI_BENCH_ONLY=binary (skip the cold
 * start and in-process rows).
 */
export async function run(): Promise<BenchTable> {
  // The cold start measures the built binary; build it like the test setup does.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/tsup/dist/cli-default.js')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const binaryOnly = process.env.GCL_UI_BENCH_ONLY === 'binary';
  const cold = binaryOnly ? undefined : await coldStart(5);
  const stream = binaryOnly ? undefined : runWorker('stream');
  const turns = binaryOnly ? undefined : runWorker('turns');
  const tools = Number(process.env.GCL_UI_BENCH_TOOLS ?? 5);
  const bins: BinaryResult[] = [];
  for (let i = 0; i < Number(process.env.GCL_UI_BENCH_RUNS ?? 3); i++) bins.push(await binarySession(200, tools));
  const of = (k: keyof BinaryResult) => bins.map((b) => b[k]);
  const mb = (n: number) => `${n.toFixed(1)} MB`;
  const runs = `min / median / max of ${bins.length} runs`;
  return {
    title: 'TUI (Ink): first frame, streaming cost, long-session memory',
    columns: ['measure', 'value', 'note'],
    rows: [
      ...(cold && stream && turns
        ? [
            ['binary start → first frame (pty, median of 5)', fmtMs(median(cold.firstFrame)), 'drawn before Ink loads (startup bench)'],
            ['binary start → Ink frame with the input line (pty, median of 5)', fmtMs(median(cold.ready)), 'start-up goes on behind it'],
            ['in-process mount → first frame', fmtMs(stream.firstFrameMs), 'Ink already imported'],
            ['stream 5,000 tokens + 20 tool calls: wall', fmtMs(stream.wallMs), 'one macrotask per token'],
            ['stream 5,000 tokens + 20 tool calls: CPU (user+sys)', fmtMs(stream.cpuMs), `${stream.writes} frames written`],
            ['stream 5,000 tokens + 20 tool calls: peak RSS', mb(stream.peakRssMb), 'whole process'],
            [
              '200-turn session (250 tokens + 1 tool each): RSS after GC',
              mb(turns.rssAfterMb),
              `heap ${mb(turns.heapAfterMb)}; RSS before first render ${mb(turns.baseRssMb)} (tsx+React+Ink)`,
            ],
            ['200-turn session: wall / CPU', `${fmtMs(turns.wallMs)} / ${fmtMs(turns.cpuMs)}`, `${turns.writes} frames`],
          ]
        : []),
      [
        'binary: 5,000 tokens + 20 tool calls, CPU (user+sys)',
        fmtMs(median(of('streamCpuMs'))),
        `median of ${bins.length}; wall ${fmtMs(median(of('streamWallMs')))}; TUI + agent + SQLite, fake LLM`,
      ],
      ['binary: peak RSS after that request', spread(of('streamPeakRssMb')), `VmHWM of the process; ${runs}`],
      [
        'binary: RSS idle at the prompt (before any request)',
        spread(of('idleRssMb')),
        `${runs}; Ink+Yoga, LangGraph, SQLite; @langchain/openai and the token table load on the first request`,
      ],
      [
        `binary: RSS right after 200 more turns (${tools} tools each)`,
        spread(of('turnsRssMb')),
        `${runs}; peak ${spread(of('turnsPeakRssMb'))}; ${fmtMs(median(of('turnsWallMs')))}; holds not-yet-collected garbage`,
      ],
      [
        'binary: RSS after those turns, settled at the prompt',
        spread(of('turnsSettledRssMb')),
        `${runs}; target ≤ 150 MB; the session collects garbage once idle (src/agent/idle-gc.ts)`,
      ],
    ],
    notes: [
      'Frames: Ink maxFps 30 plus a 33 ms batch of streamed events; finished turns go to <Static> and are never re-rendered.',
      `Settled = after ${Number(process.env.GCL_UI_BENCH_SETTLE_MS ?? 12_000) / 1000} s at the prompt. The session runs V8 with --optimize-for-size from its first request on (src/agent/idle-gc.ts).`,
    ],
  };
}
