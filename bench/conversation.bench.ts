/**
 * `npm run bench -- conversation`: what a whole troubleshooting conversation costs in prompt
 * tokens, before → after the lean context (compact tool schemas and topology, tool results cut
 * to tool_result_tokens, older tool results masked per history_full_turns). One scripted 10-step OSPF troubleshooting request (the model reads the
 * topology, the neighbours, interfaces, configs, routes and the database, fixes R3's hello
 * interval, re-checks, answers) runs the built CLI of each version from outside against the
 * same real FRR lab (test/lab: R1–R3, a fake v3 controller whose consoles are the routers) and
 * the same fake LLM over HTTP, which records each request body; every body's messages and tool
 * schemas are counted with o200k. Needs root + frr, and a build of the version before: a
 * detached worktree of 27d29d2 with dist/ built (GCL_BEFORE_DIR, default /tmp/before).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getEncoder } from '../src/agent/tokens.js';
import { startLab, type Lab } from '../test/lab/lab.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { frrLabNode } from '../test/fakes/gns3/nodes.js';
import { startFakeLlm, type FakeRequest, type FakeTurn } from '../test/fakes/llm/server.js';
import { ospfAreaZero } from '../test/lab/ospf.js';
import type { BenchTable } from './table.js';

const ROUTERS = ['R1', 'R2', 'R3'];
const BEFORE_COMMIT = '27d29d2';
const AFTER_DIR = fileURLToPath(new URL('..', import.meta.url));
const QUESTION = 'OSPF between R2 and R3 is down. Find out why and fix it.';

const fullNeighbours = (lab: Lab, r: string) => (lab.vtysh(r, 'show ip ospf neighbor').match(/Full/g) ?? []).length;

/** Polls the lab's own state (vtysh, out of band) until `ok`, or fails after `ms`. */
async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`lab: ${what} not reached in ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** R3's end of the R2–R3 link. */
function r3ToR2(lab: Lab): string {
  const l = lab.links.find((x) => [x.a, x.b].sort().join() === 'R2,R3')!;
  return l.a === 'R3' ? l.aInterface : l.bInterface;
}

/** The fault the conversation finds: R3's hello interval on the R2 link no longer matches, the adjacency drops. */
async function breakR2R3(lab: Lab): Promise<void> {
  lab.vtysh('R3', 'configure terminal', `interface ${r3ToR2(lab)}`, 'ip ospf hello-interval 5');
  await until('R2–R3 adjacency down', () => fullNeighbours(lab, 'R3') === 1 && fullNeighbours(lab, 'R2') === 1);
}

const show = (id: string, routers: string[], commands: string[]): FakeTurn => ({
  tool_calls: [
    { id, name: 'execute_multiple_device_commands', args: { device_configs: routers.map((r) => ({ device_name: r, commands })) } },
  ],
});

/** The ten LLM answers of the request: nine tool rounds and the final answer. */
function script(lab: Lab): FakeTurn[] {
  const iface = r3ToR2(lab);
  return [
    { text: 'Reading the lab first.', tool_calls: [{ id: 'topo', name: 'gns3_topology_reader', args: {} }] },
    show('nbr', ROUTERS, ['show ip ospf neighbor']),
    show('ifs', ['R2', 'R3'], ['show ip ospf interface']),
    show('run', ['R2', 'R3'], ['show running-config']),
    show('rib', ROUTERS, ['show ip route']),
    show('lsdb', ['R1'], ['show ip ospf database']),
    {
      text: `R3 sends hellos every 5 s on ${iface}, R2 every 1 s: the timers must match. Setting R3 back to 1 s.`,
      tool_calls: [
        {
          id: 'fix',
          name: 'execute_multiple_device_config_commands',
          args: { device_configs: [{ device_name: 'R3', config_commands: [`interface ${iface}`, 'ip ospf hello-interval 1'] }] },
        },
      ],
    },
    // sent once the fix is: this answer waits on the lab's state (the adjacency Full again), not a fixed sleep
    {
      reply: () => ({
        ...show('nbr2', ['R2', 'R3'], ['show ip ospf neighbor']),
        hold: until('R2–R3 Full again', () => fullNeighbours(lab, 'R3') === 2),
      }),
    },
    show('rib2', ROUTERS, ['show ip ospf route']),
    {
      text: 'Fixed: R3 had `ip ospf hello-interval 5` on its R2 link; with 1 s on both ends R2 and R3 are Full again and every router has the routes.',
    },
  ];
}

interface Measured {
  requests: FakeRequest[];
  toolCalls: [string, string][];
}

/** Runs `bin` once with the scripted LLM against a fresh controller over the lab; the LLM's requests as received. */
async function converse(bin: string, lab: Lab): Promise<Measured> {
  const gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'ospf-lab' });
  for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r), { ports: 4 }));
  const llm = await startFakeLlm(script(lab), { title: 'OSPF R2-R3 down' });
  const home = mkdtempSync(join(tmpdir(), 'gc-bench-conv-'));
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_STATE_HOME: join(home, 'state'),
      GNS3_COPILOT_KEYCHAIN: 'off',
      GNS3_COPILOT_SYSTEM_CONFIG: join(home, 'no-system-config.json'),
      GNS3_USER: 'admin',
      GNS3_PASSWORD: 'admin-pass',
      NO_COLOR: '1',
    };
    const args = [
      bin,
      '-p',
      QUESTION,
      '--json',
      '-m',
      'lab',
      '--approve',
      'config',
      '--server',
      gns3.url,
      '--project',
      'ospf-lab',
      '--provider',
      'custom',
      '--base-url',
      llm.url,
      '--model',
      'fake-model',
      // room for the whole conversation in both versions: nothing is trimmed
      '--context-limit',
      '128',
    ];
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    if (out.code !== 0) throw new Error(`${bin} exited ${out.code}: ${out.stderr.slice(-500)}`);
    const j = JSON.parse(out.stdout) as { tool_calls: { id: string; status: string }[] };
    return { requests: [...llm.requests], toolCalls: j.tool_calls.map((c) => [c.id, c.status]) };
  } finally {
    await llm.close();
    await gns3.close();
    rmSync(home, { recursive: true, force: true });
  }
}

interface Figures {
  calls: number;
  tools: number;
  system: number;
  lastHistory: number;
  /** the last call's tool messages, and the device output text inside them (the rest is the JSON around it) */
  lastResults: number;
  lastOutputs: number;
  /** every agent call's history summed (what the conversation re-reads), without the per-call tools and system prompt */
  histories: number;
  agent: number;
  all: number;
}

async function figures(m: Measured): Promise<Figures> {
  const enc = await getEncoder('o200k_base');
  const count = (v: unknown) => enc.count(JSON.stringify(v ?? []));
  const prompt = (r: FakeRequest) => count(r.body.messages) + count(r.body.tools);
  const agent = m.requests.filter((r) => r.purpose === null);
  const first = agent[0]!;
  const last = agent.at(-1)!;
  const results = last.body.messages
    .filter((msg) => msg.role === 'tool')
    .map((msg) => (typeof msg.content === 'string' ? msg.content : ''));
  const outputs = results.flatMap((t) => {
    try {
      const j = JSON.parse(t) as { devices?: { results?: { output?: string }[] }[] };
      return (j.devices ?? []).flatMap((d) => (d.results ?? []).map((r) => r.output ?? ''));
    } catch {
      return [];
    }
  });
  return {
    calls: agent.length,
    tools: count(first.body.tools),
    system: count([first.body.messages[0]]),
    lastHistory: count(last.body.messages.slice(1)),
    lastResults: results.reduce((n, t) => n + enc.count(t), 0),
    lastOutputs: outputs.reduce((n, t) => n + enc.count(t), 0),
    histories: agent.reduce((n, r) => n + count(r.body.messages.slice(1)), 0),
    agent: agent.reduce((s, r) => s + prompt(r), 0),
    all: m.requests.reduce((s, r) => s + prompt(r), 0),
  };
}

export async function run(): Promise<BenchTable> {
  const beforeDir = process.env.GCL_BEFORE_DIR ?? '/tmp/before';
  const beforeBin = join(beforeDir, 'bin/gns3-copilot.js');
  if (!existsSync(join(beforeDir, 'dist/cli.js')))
    throw new Error(
      `no build of the version before in ${beforeDir}: git worktree add --detach ${beforeDir} ${BEFORE_COMMIT}, link node_modules, npm run build there (or set GCL_BEFORE_DIR)`,
    );
  if (!existsSync(join(AFTER_DIR, 'dist/cli.js'))) throw new Error('no dist/ here: npm run build first');
  const lab = await startLab({
    routers: ROUTERS,
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
      ['R1', 'R3'],
    ],
  });
  const runs: Record<'before' | 'after', Measured> = {} as Record<'before' | 'after', Measured>;
  try {
    for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfAreaZero(lab, r, { routers: ROUTERS }));
    await until('OSPF full mesh', () => ROUTERS.every((r) => fullNeighbours(lab, r) === 2));
    for (const [which, bin] of [
      ['before', beforeBin],
      ['after', join(AFTER_DIR, 'bin/gns3-copilot.js')],
    ] as const) {
      await breakR2R3(lab);
      runs[which] = await converse(bin, lab);
      // GCL_CONV_DUMP=dir: the last agent request of each version as received, to see what the history holds
      const dump = process.env.GCL_CONV_DUMP;
      if (dump)
        writeFileSync(
          join(dump, `conversation-${which}.json`),
          JSON.stringify(runs[which].requests.filter((r) => r.purpose === null).at(-1)!.body, null, 1),
        );
      const expected = ['topo', 'nbr', 'ifs', 'run', 'rib', 'lsdb', 'fix', 'nbr2', 'rib2'];
      const got = runs[which].toolCalls;
      if (got.map((c) => c[0]).join() !== expected.join() || got.some((c) => c[1] !== 'success'))
        throw new Error(`${which}: the conversation's tool calls did not all succeed: ${JSON.stringify(got)}`);
      if (fullNeighbours(lab, 'R3') !== 2) throw new Error(`${which}: R2–R3 is not Full after the fix`);
    }
  } finally {
    await lab.stop();
  }
  const b = await figures(runs.before);
  const a = await figures(runs.after);
  const ratio = (x: number, y: number) => `${(y / x).toFixed(2)}x`;
  const row = (part: string, k: keyof Figures) => [part, b[k], a[k], ratio(b[k], a[k])];
  return {
    title: 'A 10-step OSPF troubleshooting conversation: prompt tokens the LLM received (o200k, request bodies as sent)',
    columns: ['part', `before (${BEFORE_COMMIT})`, 'now', 'now/before'],
    rows: [
      ['agent LLM calls', b.calls, a.calls, ''],
      row('tool schemas, per call', 'tools'),
      row('system prompt with topology, per call', 'system'),
      row('history at the last call (messages after the system prompt)', 'lastHistory'),
      row('… its tool results', 'lastResults'),
      row('… the device output text in them', 'lastOutputs'),
      row('history re-sent over the 10 calls', 'histories'),
      row('total, the 10 agent calls', 'agent'),
      row('total, every request (with the title call)', 'all'),
    ],
    notes: [
      `the same script and lab for both: R1–R3 real FRR routers (OSPF area 0), R3's hello interval on the R2 link broken before each run; the built CLI of each version (-p … --json -m lab --approve config, context 128K so nothing is trimmed); goal total ≤ 0.5× before`,
      'counted: o200k tokens of each request body’s messages and tools JSON, as the fake LLM received them',
    ],
  };
}
