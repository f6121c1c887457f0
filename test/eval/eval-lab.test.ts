/**
 * `gns3-copilot eval` end to end: the built CLI on the real FRR OSPF triangle behind the fake
 * GNS3 controller, with fake models over HTTP (test/fakes/llm): an ORACLE that reads the
 * fault ledger's answer (the open fault's restore, and the router's OSPF lines as the lab set
 * them up) and sends it as its repair, then names the
 * device and the scenario's first keyword; a model that answers "no idea" at once; and one
 * that never answers (to kill the eval in the middle). Six eval-ready FRR scenarios: the
 * oracle scores 100/100/100 on each, "no idea" 0 (on one scenario: that each scenario's repair
 * check fails while its fault is in is proven per scenario on a real router in
 * test/skills/injection-frr.test.ts), and after every eval the routers' running
 * configurations equal those before it. One lab for the file; the tests run in order.
 * Needs root + frr (fails, never skips, when missing).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import { startFakeLlm, type FakeLlm, type FakeRequest, type FakeTurn } from '../fakes/llm/server.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { ROUTERS, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from '../e2e/ospf-lab.js';
import { FaultStore } from '../../src/faults/store.js';
import { loadSkills } from '../../src/skills/loader.js';
import { settingsSchema } from '../../src/config/schema.js';
import type { ModelSummary, RunResult } from '../../src/eval/types.js';

const PROJECT = 'eval-lab';
const SCENARIOS = [
  'ospf_hello_interval_mismatch',
  'ospf_dead_interval_mismatch',
  'ospf_area_mismatch',
  'ospf_network_removed',
  'ospf_cost_detour',
  'interface_shutdown',
];
let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
let llm: FakeLlm;
// what is tested is not the verification's settle: OSPF's flooding wait (verify_quiet, see changeset-checks-lab) is off
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
const dbFile = join(env.home, 'data', 'gns3-copilot', 'sessions.db');
const keywords = new Map([...loadSkills(settingsSchema.parse({})).injection.values()].map((s) => [s.id, s.diagnosis?.keywords ?? []]));

const configs = () => Object.fromEntries(ROUTERS.map((r) => [r, lab.vtysh(r, 'show running-config')]));

/** The ledger's newest open fault, read the way any other process reads sessions.db. */
function openFault() {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return new FaultStore(db).list({ state: 'open' }).at(-1);
  } finally {
    db.close();
  }
}

/** The three fake models, told apart by the model name of each request. */
function answer(body: FakeRequest['body']): Omit<FakeTurn, 'reply' | 'when'> {
  if (body.model === 'noidea') return { text: 'No idea, sorry.' };
  if (body.model === 'hang') return { hang: true, text: 'Looking' };
  if (body.model === 'broken') return { error: { status: 401, message: 'invalid api key' } };
  // the oracle's repair, and a description on R3's loopback nobody asked for (what --checks catches)
  const clumsy = body.model === 'clumsy';
  const f = openFault();
  const repaired = body.messages.some((m) => m.role === 'tool');
  if (!f || repaired) {
    const fault = f ?? { target: 'nothing', scenario: '' };
    return { text: `Found it: ${fault.target} had a ${keywords.get(fault.scenario ?? '')?.[0] ?? 'fault'} problem, fixed.` };
  }
  // the ledger's restore, then the router's OSPF lines as the lab set them up: a restore puts a timer
  // back to its default, and this lab runs fast hellos (1 s / 4 s), so the oracle sets them again
  const [cfg] = (f.restore.args as { device_configs: { device_name: string; config_commands: string[] }[] }).device_configs;
  const commands = [...cfg!.config_commands, 'exit', ...ospfConfig(lab, cfg!.device_name)];
  const extra = clumsy ? [{ device_name: 'R3', config_commands: ['interface lo', 'description changed by the agent'] }] : [];
  return {
    tool_calls: [
      { name: f.restore.tool, args: { device_configs: [{ device_name: cfg!.device_name, config_commands: commands }, ...extra] } },
    ],
  };
}

const base = () => ['--server', gns3.url, '--project', PROJECT, '--provider', 'custom', '--base-url', llm.url, '--context-limit', '32'];
const evalCli = (args: string[], opts: { onSpawn?: (c: ChildProcess) => void } = {}) =>
  runCli(['eval', ...args, ...base()], env.env, { timeoutMs: 600_000, ...opts });

beforeAll(async () => {
  ospf = await startOspfLab(PROJECT);
  ({ lab, gns3 } = ospf);
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r), 'end');
  await waitForFullMesh(lab, 30_000);
  llm = await startFakeLlm(
    Array.from({ length: 400 }, () => ({ reply: answer })),
    { title: 'eval' },
  );
}, 120_000);

afterAll(async () => {
  await llm?.close();
  await ospf?.stop();
  env.cleanup();
});

describe('eval on the real FRR lab', () => {
  it('--estimate: the plan (six fitting scenarios, their targets, the worst case); without --yes nothing is sent, exit 6', async () => {
    const before = configs();
    const est = await evalCli(['--scenarios', SCENARIOS.join(','), '--model', 'oracle', '--estimate', '--json']);
    expect(est.code, est.stderr).toBe(0);
    const plan = JSON.parse(est.stdout).plan;
    expect(plan.scenarios.map((s: { id: string }) => s.id)).toEqual(SCENARIOS);
    expect(plan.scenarios.every((s: { target: string }) => ROUTERS.includes(s.target))).toBe(true);
    expect(plan).toMatchObject({ project: PROJECT, mode: 'lab', seed: '0', runs: 1, models: ['oracle'], worst_case_usd: { oracle: null } });
    const refused = await evalCli(['--scenarios', SCENARIOS[0]!, '--model', 'oracle']);
    expect(refused.code).toBe(6);
    expect(refused.stdout).toContain(`eval plan for project ${PROJECT}`);
    expect(refused.stderr).toBe('error: the eval needs approval: rerun with --yes to run this plan (nothing was sent)\n');
    expect(llm.requests).toHaveLength(0);
    expect(configs()).toEqual(before);
  }, 120_000);

  it('the oracle scores 100/100/100 on every scenario (--json); the lab after equals the lab before', async () => {
    const before = configs();
    const r = await evalCli(['--scenarios', SCENARIOS.join(','), '--model', 'oracle', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runs: RunResult[]; models: ModelSummary[] };
    expect(out.runs).toHaveLength(SCENARIOS.length);
    for (const run of out.runs) {
      expect(Object.keys(run).sort()).toEqual(
        [
          'scenario',
          'category',
          'model',
          'run',
          'target',
          'fault_id',
          'detected',
          'localized',
          'repaired',
          'regressions',
          'tool_calls',
          'llm_calls',
          'input_tokens',
          'output_tokens',
          'tokens',
          'cost_usd',
          'wall_s',
          'stages',
          'stopped_reason',
          'answer',
        ].sort(),
      );
      expect(Object.keys(run.stages)).toEqual(['inject_s', 'agent_s', 'check_s', 'restore_s']);
    }
    const oracle = out.runs.filter((x) => x.model === 'oracle');
    expect(oracle.map((x) => [x.scenario, x.detected, x.localized, x.repaired, x.regressions])).toEqual(
      SCENARIOS.map((s) => [s, true, true, true, 0]),
    );
    expect(oracle.every((x) => x.tool_calls >= 1 && x.llm_calls >= 2 && x.tokens > 0)).toBe(true);
    expect(out.models).toEqual([
      expect.objectContaining({ model: 'oracle', runs: 6, detected: 100, localized: 100, repaired: 100, regressions: 0, cost_usd: null }),
    ]);
    expect(Object.keys(out.models[0]!).sort()).toEqual(
      ['model', 'runs', 'detected', 'localized', 'repaired', 'regressions', 'tokens_median', 'cost_usd', 'wall_s_median'].sort(),
    );
    // the progress table went to stderr, one row per run
    expect(r.stderr.split('\n').filter((l) => /^(ospf_|interface_)\S+\s+oracle\s/.test(l))).toHaveLength(6);

    expect(configs()).toEqual(before);
    const db = new Database(dbFile, { readonly: true });
    const faults = new FaultStore(db).list();
    db.close();
    expect(faults.filter((f) => f.state === 'open')).toEqual([]);
    expect(faults.filter((f) => f.state === 'fixed')).toHaveLength(6);
    expect(existsSync(join(env.home, 'data', 'gns3-copilot', 'eval-running.json'))).toBe(false);
    // the per-scenario wall time and each stage's share (printed for the closing note)
    const figures = oracle.map(
      (x) =>
        `${x.scenario}: ${x.wall_s}s (inject ${x.stages.inject_s}, agent ${x.stages.agent_s}, check ${x.stages.check_s}, restore ${x.stages.restore_s})`,
    );
    process.stderr.write(`oracle wall times:\n${figures.join('\n')}\n`);
  }, 600_000);

  it('--mode teaching: diagnosis only (the oracle cannot change the lab, repair is not scored), the fault restored', async () => {
    const before = configs();
    const r = await evalCli(['--scenarios', 'interface_shutdown', '--model', 'oracle', '--mode', 'teaching', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runs: RunResult[]; models: ModelSummary[] };
    expect(out.runs).toEqual([expect.objectContaining({ detected: true, localized: true, repaired: null, regressions: null })]);
    expect(out.models[0]).toMatchObject({ detected: 100, localized: 100, repaired: null });
    expect(configs()).toEqual(before);
    expect(openFault()).toBeUndefined();
  }, 120_000);

  it('an LLM failure stops the eval with exit 4, the lab restored first', async () => {
    const before = configs();
    const r = await evalCli(['--scenarios', 'ospf_hello_interval_mismatch,interface_shutdown', '--model', 'broken', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(4);
    const out = JSON.parse(r.stdout) as { runs: RunResult[] };
    expect(out.runs).toHaveLength(1);
    expect(out.runs[0]).toMatchObject({ detected: false, repaired: null, error: expect.stringMatching(/401|api key/i) });
    expect(r.stderr).toMatch(/^error: broken: /m);
    expect(configs()).toEqual(before);
    expect(openFault()).toBeUndefined();
  }, 120_000);

  it('--max-cost covers the whole eval: once what is left cannot pay the next call, it stops (exit 5), the lab restored', async () => {
    // a second home with a price for the oracle (USD per 1M tokens): each call reserves about $0.41 for its worst case (the output cap) and spends a fraction of a cent
    // (the same sessions.db: the oracle reads its ledger)
    const priced = cliEnv({
      GNS3_USER: 'admin',
      GNS3_PASSWORD: 'admin-pass',
      GNS3_COPILOT_DATA_DIR: join(env.home, 'data', 'gns3-copilot'),
      GNS3_COPILOT_VERIFY_QUIET: '0',
    });
    try {
      mkdirSync(join(priced.home, 'config', 'gns3-copilot'), { recursive: true });
      writeFileSync(
        join(priced.home, 'config', 'gns3-copilot', 'config.json'),
        JSON.stringify({ model_prices: { oracle: { input: 1, output: 100 } } }),
        { mode: 0o600 },
      );
      const before = configs();
      const r = await runCli(
        [
          'eval',
          '--scenarios',
          'ospf_hello_interval_mismatch,interface_shutdown,ospf_dead_interval_mismatch',
          '--model',
          'oracle',
          '--max-cost',
          '0.4125',
          '--yes',
          '--json',
          ...base(),
        ],
        priced.env,
        { timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(5);
      const out = JSON.parse(r.stdout) as { runs: RunResult[]; models: ModelSummary[] };
      // a call reserves its worst case first: the run whose next call no longer fits stops there, and the eval with it
      expect(out.runs.length).toBeLessThan(3);
      expect(out.runs.at(-1)!.stopped_reason).toBe('max_cost');
      expect(out.models[0]!.cost_usd).toBeGreaterThan(0);
      expect(r.stderr).toMatch(/^error: --max-cost 0\.4125 USD spent after [12] of 3 runs$/m);
      expect(configs()).toEqual(before);
    } finally {
      priced.cleanup();
    }
  }, 120_000);

  it('--checks FILE, the table and --junit: a check that passed at the start and fails after a repaired run is a regression; one row and one testcase per scenario × model × run, the summary per model; the lab restored', async () => {
    const before = configs();
    const file = join(env.home, 'keep.yaml');
    writeFileSync(
      file,
      `checks:\n  - name: R3 loopback undescribed\n    config: {device: R3, section: interface lo, lacks: description}\n`,
    );
    const junit = join(env.home, 'eval.xml');
    const r = await evalCli([
      '--scenarios',
      'interface_shutdown',
      '--model',
      'oracle',
      '--model',
      'clumsy',
      '--model',
      'noidea',
      '--checks',
      file,
      '--seed',
      '7',
      '--yes',
      '--junit',
      junit,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^scenario\s+model\s+run\s+inj det loc rep\s+regr\s+tokens\s+cost\s+wall s\s+totals \(det\/loc\/rep\)$/m);
    expect(r.stdout).toMatch(/^interface_shutdown\s+oracle\s+1\s+✓\s+✓\s+✓\s+✓\s+0\s+\d+\s+–\s+[\d.]+\s+100%\/100%\/100%$/m);
    // the clumsy repair: repaired, and the check file's regression counted
    expect(r.stdout).toMatch(/^interface_shutdown\s+clumsy\s+1\s+✓\s+✓\s+✓\s+✓\s+1\s+\d+\s+–\s+[\d.]+\s+100%\/100%\/100%$/m);
    expect(r.stdout).toMatch(/^interface_shutdown\s+noidea\s+1\s+✓\s+✗\s+✗\s+✗\s+–\s+\d+\s+–\s+[\d.]+\s+0%\/0%\/0%$/m);
    expect(r.stdout).toMatch(/^oracle\s+1\s+100%\s+100%\s+100%\s+0\s+\d+\s+unknown\s+[\d.]+ s$/m);
    expect(r.stdout).toMatch(/^clumsy\s+1\s+100%\s+100%\s+100%\s+1\s+\d+\s+unknown\s+[\d.]+ s$/m);
    expect(r.stdout).toMatch(/^noidea\s+1\s+0%\s+0%\s+0%\s+0\s+\d+\s+unknown\s+[\d.]+ s$/m);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('<testsuite name="gns3-copilot eval" tests="3" failures="2" errors="0"');
    expect(xml).toMatch(/<testcase classname="eval.oracle" name="interface_shutdown on R\d run 1" time="[\d.]+"\/>/);
    expect(xml).toMatch(
      /<testcase classname="eval.clumsy" name="interface_shutdown on R\d run 1" time="[\d.]+">\n {4}<failure message="1 regressions">/,
    );
    expect(xml).toMatch(
      /<testcase classname="eval.noidea" name="interface_shutdown on R\d run 1" time="[\d.]+">\n {4}<failure message="not detected, not localized, not repaired">No idea, sorry.<\/failure>/,
    );
    expect(configs()).toEqual(before);
  }, 300_000);

  it('kill -9 in the middle, then eval --resume: the lab as before, the fault closed; no eval starts while one is unfinished', async () => {
    const before = configs();
    const seen = llm.requests.length;
    let child: ChildProcess | undefined;
    const killed = evalCli(['--scenarios', 'ospf_hello_interval_mismatch', '--model', 'hang', '--yes'], { onSpawn: (c) => (child = c) });
    // the agent has its ticket once the model is asked: the fault is in the lab then
    while (!llm.requests.slice(seen).some((q) => q.body.model === 'hang' && q.purpose === null))
      await new Promise((res) => setTimeout(res, 100));
    expect(configs()).not.toEqual(before);
    child!.kill('SIGKILL');
    expect((await killed).code).toBe(null);

    const blocked = await evalCli(['--scenarios', SCENARIOS[0]!, '--model', 'oracle', '--estimate']);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(
      /^error: an eval of project eval-lab was interrupted .*: run `gns3-copilot eval --resume --project eval-lab --yes` first\n$/,
    );

    const resumed = await evalCli(['--resume', '--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const rep = JSON.parse(resumed.stdout) as { restored: string; faults_closed: number[] };
    expect(rep.restored).toMatch(/^eval-\d{8}-\d{6}$/);
    expect(rep.faults_closed).toHaveLength(1);
    expect(configs()).toEqual(before);
    expect(openFault()).toBeUndefined();
    expect((await evalCli(['--resume', '--yes'])).code).toBe(2);
  }, 300_000);

  it('Ctrl-C in the middle: the lab is restored, then exit 130', async () => {
    const before = configs();
    const seen = llm.requests.length;
    let child: ChildProcess | undefined;
    const stopped = evalCli(['--scenarios', 'interface_shutdown', '--model', 'hang', '--yes'], { onSpawn: (c) => (child = c) });
    while (!llm.requests.slice(seen).some((q) => q.body.model === 'hang' && q.purpose === null))
      await new Promise((res) => setTimeout(res, 100));
    child!.kill('SIGINT');
    const r = await stopped;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('interrupted: restoring the lab');
    expect(configs()).toEqual(before);
    expect(openFault()).toBeUndefined();
  }, 300_000);
});
