/**
 * The fault ledger end to end: the built CLI in inject mode with a scripted fake LLM,
 * the fake GNS3 controller whose nodes are the real FRR OSPF triangle. A fault the
 * agent injects lands in the ledger with its repair check; `faults check` reports it
 * open (exit 7); fixing it by hand on the router makes its check pass and records
 * when; a second fault of the same category on that router is refused while the
 * first is open; `faults restore` goes through the approval gate (exit 6 without
 * --yes); `faults check --watch` opens the project and logs in to each router once for all
 * its rounds. One lab for the file; the tests run in order.
 * Needs root + frr (fails, never skips, when missing). Run `npx tsup` first.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import type { FakeToolCall } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { ROUTERS, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from '../e2e/ospf-lab.js';

const PROJECT = 'faults-lab';
let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
// what is tested is not the verification's settle: OSPF's flooding wait (verify_quiet, see changeset-checks-lab) is off
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
const startLlm = fakeLlmServers();

/** R1's interface towards R2 and the one towards R3 (the lab names them in link order). */
let toR2: string;
let toR3: string;
/** the interface of `a` on its link to `b` */
let iface: (a: string, b: string) => string;

const cli = (args: string[], timeoutMs = 60_000) => runCli([...args, '--server', gns3.url, '--project', PROJECT], env.env, { timeoutMs });

/** One inject-mode request whose model makes the given calls, then says it is done (`extra`: e.g. `-r SESSION`). */
async function inject(calls: FakeToolCall[], extra: string[] = []) {
  const llm = await startLlm([{ tool_calls: calls }, { text: 'Done: the lab is broken for the students.' }]);
  const r = await cli(['inject', '-p', 'break the lab', '--json', '--approve', 'config', ...extra, ...llmFlags(llm.url)], 90_000);
  if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return parseJsonResult(r.stdout);
}

const running = (router: string) => lab.vtysh(router, 'show running-config');

/** The model's call that breaks `device` with `commands`, recorded in the ledger as `fault`. */
const configFault = (id: string, device: string, commands: string[], fault: Record<string, unknown>): FakeToolCall => ({
  id,
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: device, config_commands: commands }], fault },
});

interface FaultJson {
  id: number;
  state: string;
  session_id: string;
  target: string;
  scenario: string | null;
  category: string;
  difficulty: string;
  applied: unknown;
  restore: unknown;
  repair_check: unknown;
  injected_at: string;
  fixed_at: string | null;
  restored_at: string | null;
  check?: { kind: string | null; status: string; evidence: string; fixed_now: boolean };
  checks?: { status: string; evidence: string; checked_at: string }[];
}
interface CheckJson {
  open: number;
  fixed: number;
  restored: number;
  score: number;
  max_score: number;
  faults: FaultJson[];
}

beforeAll(async () => {
  ospf = await startOspfLab(PROJECT);
  ({ lab, gns3 } = ospf);
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r), 'end');
  iface = (a: string, b: string) => {
    const l = lab.links.find((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a))!;
    return l.a === a ? l.aInterface : l.bInterface;
  };
  toR2 = iface('R1', 'R2');
  toR3 = iface('R1', 'R3');
  await waitForFullMesh(lab, 30_000);
}, 120_000);

afterAll(async () => {
  await ospf?.stop();
  env.cleanup();
});

describe('fault ledger on the real FRR lab', () => {
  let sessionId: string;

  it('records a fault the agent injects, with its category, restore and repair check from the skill entry', async () => {
    const j = await inject([
      configFault('hello', 'R1', [`interface ${toR2}`, 'ip ospf hello-interval 25'], { scenario: 'ospf_hello_interval_mismatch' }),
    ]);
    sessionId = j.session_id ?? '';
    expect(sessionId).not.toBe('');
    expect(j.tool_calls.map((t) => [t.id, t.status])).toEqual([['hello', 'success']]);
    expect(j.tool_calls[0]!.output).toContain('"fault":{"id":1,');
    expect(running('R1')).toContain('ip ospf hello-interval 25');

    const show = await cli(['faults', 'show', '1', '--json']);
    expect(show.code).toBe(0);
    const f = JSON.parse(show.stdout) as FaultJson;
    expect(f).toMatchObject({
      id: 1,
      state: 'open',
      session_id: sessionId,
      target: 'R1',
      scenario: 'ospf_hello_interval_mismatch',
      category: 'ospf',
      difficulty: 'medium',
      applied: [`interface ${toR2}`, 'ip ospf hello-interval 25'],
      // the interface was read out of the lines sent: the restore and the check name it
      restore: {
        tool: 'execute_multiple_device_config_commands',
        // then the interface's own timer (the lab runs fast hellos), read before the fault: the restore puts it back
        args: {
          device_configs: [
            {
              device_name: 'R1',
              config_commands: [`interface ${toR2}`, 'no ip ospf hello-interval', `interface ${toR2}`, 'ip ospf hello-interval 1', 'exit'],
            },
          ],
        },
        own_lines: [`interface ${toR2}`, 'ip ospf hello-interval 1', 'exit'],
      },
      repair_check: { config: { device: 'R1', section: `interface ${toR2}`, lacks: 'ip ospf hello-interval 25' } },
      fixed_at: null,
      restored_at: null,
      checks: [],
    });
    expect(Date.parse(f.injected_at)).not.toBeNaN();
  }, 120_000);

  it('faults check reports it still present: exit 7, the evidence line, score 0', async () => {
    const r = await cli(['faults', 'check', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j).toMatchObject({ open: 1, fixed: 0, restored: 0, score: 0, max_score: 2 });
    expect(j.faults[0]).toMatchObject({
      id: 1,
      state: 'open',
      fixed_at: null,
      check: { kind: 'config', status: 'fail', fixed_now: false },
    });
    expect(j.faults[0]!.check!.evidence).toBe('ip ospf hello-interval 25');

    const text = await cli(['faults', 'check']);
    expect(text.code).toBe(7);
    expect(text.stdout).toMatch(/^✗ #1 R1 ospf_hello_interval_mismatch {2}still present \(fail\) {2}ip ospf hello-interval 25$/m);
    expect(text.stdout).toContain('1 open, 0 fixed, 0 restored unfixed · score 0/2');

    // --session takes an id prefix as `sessions show` does; one that names no session is an error, not an empty ledger
    const [fault] = (JSON.parse((await cli(['faults', 'list', '--json'])).stdout) as { faults: { session_id: string }[] }).faults;
    const mine = await cli(['faults', 'list', '--session', fault!.session_id.slice(0, 8), '--json']);
    expect((JSON.parse(mine.stdout) as CheckJson).faults).toHaveLength(1);
    const typo = await cli(['faults', 'list', '--session', 'nosuchsession']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('error: no session "nosuchsession" (see `gns3-copilot sessions list`)\n');
  }, 60_000);

  it('refuses a second fault of the same category on R1 while it is open, and a repair check that is not in the schema', async () => {
    const j = await inject([
      configFault('cost', 'R1', [`interface ${toR3}`, 'ip ospf cost 1000'], { scenario: 'ospf_cost_detour' }),
      {
        id: 'own',
        name: 'execute_multiple_device_config_commands',
        args: {
          device_configs: [{ device_name: 'R2', config_commands: ['interface lo', 'description broken'] }],
          fault: {
            category: 'interface',
            difficulty: 'easy',
            restore_commands: ['interface lo', 'no description'],
            repair_check: { interface: { device: 'R2', name: 'lo', state: 'sideways' } },
          },
        },
      },
    ]);
    const byId = Object.fromEntries(j.tool_calls.map((t) => [t.id, t]));
    expect(byId.cost!.status).toBe('error');
    expect(byId.cost!.output).toMatch(
      /fault refused, nothing was applied: fault #1 \(ospf_hello_interval_mismatch, category ospf, on R1, injected [^)]+\) is still open/,
    );
    // a fault that does not resolve is the model's arguments; one blocked by an open fault is not
    expect(byId.own).toMatchObject({ status: 'error', code: 'invalid_arguments' });
    expect(byId.cost!.code).toBe('failed');
    expect(byId.own!.output).toContain('fault refused, nothing was applied: fault.repair_check.interface.state');
    expect(running('R1')).not.toContain('ip ospf cost 1000');
    expect(running('R2')).not.toContain('description broken');
    const list = await cli(['faults', 'list', '--json']);
    expect((JSON.parse(list.stdout) as CheckJson).faults.map((f) => f.id)).toEqual([1]);
  }, 120_000);

  it('a fix by hand makes the repair check pass and records when; the time stays that of the first pass', async () => {
    lab.vtysh('R1', 'configure terminal', `interface ${toR2}`, 'ip ospf hello-interval 1', 'end');
    const r = await cli(['faults', 'check', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j).toMatchObject({ open: 0, fixed: 1, score: 2, max_score: 2 });
    const f = j.faults[0]!;
    expect(f).toMatchObject({ state: 'fixed', check: { status: 'pass', fixed_now: true } });
    expect(f.fixed_at).not.toBeNull();
    expect(Date.parse(f.fixed_at!)).toBeGreaterThanOrEqual(Date.parse(f.injected_at));

    const again = await cli(['faults', 'check']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`✓ #1 R1 ospf_hello_interval_mismatch  fixed ${f.fixed_at!.replace('T', ' ').slice(0, 19)}`);
    const show = JSON.parse((await cli(['faults', 'show', '1', '--json'])).stdout) as FaultJson;
    expect(show.fixed_at).toBe(f.fixed_at);
    // two `faults check` runs, the re-check before the refused second fault, then the fix
    expect(show.checks!.map((c) => c.status)).toEqual(['fail', 'fail', 'fail', 'pass']);
  }, 60_000);

  it('once fixed, the category is free again; faults restore needs --yes (exit 6 and the plan), then undoes the fault', async () => {
    const j = await inject([
      configFault('cost', 'R1', [`interface ${toR3}`, 'ip ospf cost 1000'], {
        scenario: 'ospf_cost_detour',
        parameters: { interface: toR3 },
      }),
    ]);
    expect(j.tool_calls[0]!.status).toBe('success');
    expect(j.tool_calls[0]!.output).toContain('"fault":{"id":2,');
    expect(running('R1')).toContain('ip ospf cost 1000');

    const plan = await cli(['faults', 'restore', '2']);
    expect(plan.code).toBe(6);
    expect(plan.stdout).toContain(`restore plan: fault #2 (ospf_cost_detour on R1): execute_multiple_device_config_commands`);
    expect(plan.stderr).toContain('rerun with --yes');
    expect(running('R1')).toContain('ip ospf cost 1000');

    const done = await cli(['faults', 'restore', '2', '--yes']);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(running('R1')).not.toContain('ip ospf cost 1000');
    const list = JSON.parse((await cli(['faults', 'list', '--json'])).stdout) as CheckJson;
    // restored before anyone fixed it: still in the score (medium, 2 points), not fixed
    expect(list).toMatchObject({ open: 0, fixed: 1, restored: 1, score: 2, max_score: 4 });
    expect(list.faults[1]).toMatchObject({ id: 2, state: 'restored_unfixed' });
    expect(list.faults[1]!.restored_at).not.toBeNull();
    const twice = await cli(['faults', 'restore', '2', '--yes']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^error: fault #2 was restored already/);
  }, 150_000);
  it('a rewind of an inject session marks restored the faults it undid; a fault from before --to stays open', async () => {
    // the controller's R2–R3 link, for a link fault (the routers' real link is not filtered by the fake)
    const link = gns3.addLink({ a: 'R2:e3', b: 'R3:e3' });
    const toR2fromR3 = iface('R3', 'R2');
    const toR1fromR3 = iface('R3', 'R1');
    // request 1 of a new session: an OSPF fault on R3
    const first = await inject([
      configFault('cost', 'R3', [`interface ${toR2fromR3}`, 'ip ospf cost 1000'], { scenario: 'ospf_cost_detour' }),
    ]);
    const S = first.session_id!;
    const faultOf = (out: string) => (JSON.parse(out) as { fault: { id: number } }).fault.id;
    const early = faultOf(first.tool_calls[0]!.output);
    // request 2 of the same session: an interface fault on R3 (another category) and a link fault
    const second = await inject(
      [
        configFault('shut', 'R3', [`interface ${toR1fromR3}`, 'shutdown'], { scenario: 'interface_shutdown' }),
        {
          id: 'loss',
          name: 'manage_gns3_packet_filter',
          args: { link: link.link_id, action: 'set', filters: { packet_loss: [30] }, fault: { scenario: 'link_packet_loss_30' } },
        },
      ],
      ['-r', S],
    );
    expect(second.session_id).toBe(S);
    expect(second.tool_calls.map((t) => [t.id, t.status])).toEqual([
      ['shut', 'success'],
      ['loss', 'success'],
    ]);
    const shut = faultOf(second.tool_calls[0]!.output);
    const loss = faultOf(second.tool_calls[1]!.output);
    expect(running('R3')).toMatch(/^ shutdown$/m);
    expect(gns3.project(PROJECT).links.get(link.link_id)!.filters).toEqual({ packet_loss: [30] });
    const states = async () =>
      Object.fromEntries(
        (JSON.parse((await cli(['faults', 'list', '--session', S, '--json'])).stdout) as CheckJson).faults.map((f) => [f.id, f.state]),
      );
    expect(await states()).toEqual({ [early]: 'open', [shut]: 'open', [loss]: 'open' });

    // a dry run plans and marks nothing
    const dry = await cli(['rewind', S, '--to', '2', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).faults_restored).toBeUndefined();
    expect(await states()).toEqual({ [early]: 'open', [shut]: 'open', [loss]: 'open' });

    // rewinding to just before request 2 undoes request 2's faults, not request 1's
    const r = await cli(['rewind', S, '--to', '2', '--yes', '--json'], 120_000);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.devices.map((d: { name: string; status: string }) => [d.name, d.status])).toEqual([['R3', 'restored']]);
    expect(j.topology.status).toBe('restored');
    // ids in ledger order (the two calls ran in parallel: either may have been recorded first)
    expect(j.faults_restored).toEqual([shut, loss].sort((a, b) => a - b));
    expect(running('R3')).not.toMatch(/^ shutdown$/m);
    expect(running('R3')).toContain('ip ospf cost 1000');
    expect(gns3.project(PROJECT).links.get(link.link_id)!.filters).toEqual({});
    expect(await states()).toEqual({ [early]: 'open', [shut]: 'restored_unfixed', [loss]: 'restored_unfixed' });

    // rewinding that rewind (request 3) puts both faults back on the lab: open again in the ledger
    const undo = await cli(['rewind', S, '--to', '3', '--yes', '--json'], 120_000);
    expect(undo.code, `${undo.stdout}\n${undo.stderr}`).toBe(0);
    const u = JSON.parse(undo.stdout);
    expect(u.faults_restored).toEqual([]);
    expect(u.faults_reopened).toEqual([shut, loss].sort((a, b) => a - b));
    expect(running('R3')).toMatch(/^ shutdown$/m);
    expect(gns3.project(PROJECT).links.get(link.link_id)!.filters).toEqual({ packet_loss: [30] });
    expect(await states()).toEqual({ [early]: 'open', [shut]: 'open', [loss]: 'open' });

    // the text form names them; the rewind before request 1 then undoes all three
    const all = await cli(['rewind', S, '--to', '1', '--yes'], 120_000);
    expect(all.code, `${all.stdout}\n${all.stderr}`).toBe(0);
    expect(all.stdout).toContain(
      `faults restored in the ledger: ${[early, shut, loss]
        .sort((a, b) => a - b)
        .map((id) => `#${id}`)
        .join(', ')}`,
    );
    expect(running('R3')).not.toContain('ip ospf cost 1000');
    expect(await states()).toEqual({ [early]: 'restored_unfixed', [shut]: 'restored_unfixed', [loss]: 'restored_unfixed' });
  }, 400_000);

  it('faults check --watch opens the project once and logs in to each router once, however many rounds it runs', async () => {
    const toR1fromR2 = iface('R2', 'R1');
    const j = await inject([
      configFault('hello', 'R1', [`interface ${toR2}`, 'ip ospf hello-interval 25'], { scenario: 'ospf_hello_interval_mismatch' }),
      configFault('cost', 'R2', [`interface ${toR1fromR2}`, 'ip ospf cost 1000'], { scenario: 'ospf_cost_detour' }),
    ]);
    expect(j.tool_calls.map((t) => [t.id, t.status])).toEqual([
      ['hello', 'success'],
      ['cost', 'success'],
    ]);

    // from here on each router's console is reached through a forwarder that counts the logins
    const routers = ['R1', 'R2'];
    const proxies = await Promise.all(routers.map((r) => startHoldProxy(lab.device(r).consolePort)));
    routers.forEach((r, i) => (gns3.node(r, PROJECT).console = proxies[i]!.port));
    // a project opened by id is the controller's list read, then an open when it is closed
    const opens = () =>
      gns3.requests.filter(
        (q) =>
          (q.method === 'GET' && /^\/v3\/projects$/.test(q.path)) || (q.method === 'POST' && /^\/v3\/projects\/[^/]+\/open$/.test(q.path)),
      ).length;
    const opensBefore = opens();
    let proc: ChildProcess | undefined;
    try {
      let stdout = '';
      let sawRounds!: () => void;
      // the first round's table, then two rounds that found both faults still there
      const threeRounds = new Promise<void>((resolve) => (sawRounds = resolve));
      const watch = runCli(['faults', 'check', '--watch', '1', '--server', gns3.url, '--project', PROJECT], env.env, {
        timeoutMs: 120_000,
        onSpawn: (c) => {
          proc = c;
          c.stdout!.on('data', (d: Buffer) => {
            stdout += d.toString();
            if ((stdout.match(/no change: 2 faults still present/g) ?? []).length >= 2) sawRounds();
          });
        },
      });
      await Promise.race([threeRounds, watch]);
      expect(stdout.match(/no change: 2 faults still present/g)?.length ?? 0, stdout).toBeGreaterThanOrEqual(2);

      lab.vtysh('R1', 'configure terminal', `interface ${toR2}`, 'ip ospf hello-interval 1', 'end');
      lab.vtysh('R2', 'configure terminal', `interface ${toR1fromR2}`, 'no ip ospf cost 1000', 'end');
      const r = await watch;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d ✓ #\d+ R1 ospf_hello_interval_mismatch fixed /m);
      expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d ✓ #\d+ R2 ospf_cost_detour fixed /m);
      expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^no fault is open · 0 open, 3 fixed, /);

      // one client, one open, one console session per router for every round of the watch
      expect({ opens: opens() - opensBefore, logins: proxies.map((p) => p.accepted()) }).toEqual({ opens: 1, logins: [1, 1] });
    } finally {
      // a failed assertion does not leave the watch running until its timeout
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      routers.forEach((r) => (gns3.node(r, PROJECT).console = lab.device(r).consolePort));
      await Promise.all(proxies.map((p) => p.close()));
    }
  }, 240_000);
});
