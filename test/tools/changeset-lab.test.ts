/**
 * Change sets (apply_config_template) on the real FRR/VPCS lab, through the agent (fake LLM
 * over HTTP, fake GNS3 controller whose nodes are the lab's consoles): OSPF on six routers
 * from one template with facts converges and a check file passes after; one approval shows
 * the whole set; a render failure or a forbidden line sends nothing (every running-config
 * read back unchanged); a pilot that fails leaves the other devices untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { collect, ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { scopeOf, settingsWith } from '../devices/helpers.js';
import { allTools } from '../../src/tools/index.js';
import type { ApprovalRequest } from '../../src/core/api.js';
import { runChecks } from '../../src/check/run.js';
import { parseCheckText } from '../../src/check/load.js';
import { DevicePool } from '../../src/devices/pool.js';
import type { Logger } from '../../src/log.js';

const ROUTERS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'];
const PROJECT = 'changeset-lab';
const { tmp, startLlm } = useFakeLlm('gc-changeset-');
let lab: Lab;
let gns3: FakeGns3;

/**
 * OSPF from facts: every addressed interface's network in the area, point-to-point fast hellos on the
 * links, every LSA accepted as it arrives (see quickFlooding in test/lab/ospf.ts).
 */
const OSPF_TEMPLATE = `router ospf
 ospf router-id 10.255.255.{{ device.index }}
 timers lsa min-arrival 0
{% for i in device.interfaces %}{% if i.network != "" %} network {{ i.network }} area {{ area }}
{% endif %}{% endfor %}exit
{% for i in device.interfaces %}{% if i.name != "lo" and i.network != "" and i.prefix_length == 24 and i.network contains "10.0." %}interface {{ i.name }}
 ip ospf network point-to-point
 ip ospf hello-interval {{ hello }}
 ip ospf dead-interval {{ hello | times: 4 }}
exit
{% endif %}{% endfor %}`;

const call = (id: string, args: Record<string, unknown>) => ({ id, name: 'apply_config_template', args });
const runningConfigs = () => Object.fromEntries(ROUTERS.map((r) => [r, lab.vtysh(r, 'show running-config')]));
const fullCount = (r: string) =>
  lab
    .vtysh(r, 'show ip ospf neighbor')
    .split('\n')
    .filter((l) => /Full/.test(l)).length;

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 300));
}

/** The console rounds the device engine logs ('device round'), in order: one job's lines on one device. */
function roundLog(): { log: Logger; rounds: { device: string; mode: string }[] } {
  const rounds: { device: string; mode: string }[] = [];
  const log: Logger = {
    error: () => undefined,
    warn: () => undefined,
    info: () => undefined,
    debug: (msg, data) => {
      if (msg === 'device round') rounds.push({ device: String(data?.device), mode: String(data?.mode) });
    },
  };
  return { log, rounds };
}

/** Per device, the console rounds before the first line of configuration reached any device. */
function roundsBeforeApply(rounds: { device: string; mode: string }[]): Record<string, number> {
  const first = rounds.findIndex((r) => r.mode === 'config' || r.mode === 'vpcs');
  const out: Record<string, number> = {};
  for (const r of rounds.slice(0, first < 0 ? rounds.length : first)) out[r.device] = (out[r.device] ?? 0) + 1;
  return out;
}

async function run(calls: ReturnType<typeof call>[], approve: 'config' | 'ask', approver?: (r: ApprovalRequest) => void, log?: Logger) {
  const llm = await startLlm([{ tool_calls: calls }, { text: 'done' }]);
  const s = await session(
    // what is tested is the change set, not the verification's settle: OSPF's flooding wait
    // (verify_quiet, see changeset-checks-lab) is off
    testSettings(llm.url, tmp.dir, { server: gns3.url, project: PROJECT, mode: 'lab', approve, max_parallel_tools: 8, verify_quiet: 0 }),
    allTools(),
    {
      ...(log ? { log } : {}),
      ...(approver
        ? {
            approver: (req: ApprovalRequest) => {
              approver(req);
              return Promise.resolve({ kind: 'allow_once' as const });
            },
          }
        : {}),
    },
  );
  try {
    const ev = await collect(s.send('configure the set'));
    return ofType(ev, 'tool_end').map((e) => ({ ...e, result: JSON.parse(e.output) as Record<string, any> }));
  } finally {
    await s.close();
  }
}

beforeAll(async () => {
  // a ring of six routers, a PC on R1 and one on R4
  lab = await startLab({
    routers: ROUTERS,
    links: ROUTERS.map((r, i) => [r, ROUTERS[(i + 1) % ROUTERS.length]!] as [string, string]),
    pcs: [
      { name: 'PC1', router: 'R1' },
      { name: 'PC2', router: 'R4' },
    ],
  });
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: PROJECT });
  for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r), { project: PROJECT }));
  for (const pc of ['PC1', 'PC2'])
    gns3.addNode(telnetNode(pc, lab.device(pc).consolePort, { node_type: 'vpcs', template_name: 'VPCS', project: PROJECT }));
}, 120_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
});

describe('apply_config_template on the FRR lab', () => {
  it('a render failure names the device and the variable and sends nothing; a forbidden line through a variable is blocked', async () => {
    const before = runningConfigs();
    const [undef, forbidden] = await run(
      [
        // R6 has no cost: the whole set is refused before any device is touched
        call('u', {
          template: 'interface lo\n description cost-{{ cost }}',
          devices: ['R*'],
          device_vars: Object.fromEntries(ROUTERS.slice(0, 5).map((r) => [r, { cost: 10 }])),
        }),
        call('f', { template: 'interface lo\n description ok\n{{ extra }}', devices: ['R[1-6]'], vars: { extra: 'exit\nreload' } }),
      ],
      'config',
    );
    expect(undef!.status).toBe('error');
    expect(undef!.result.error).toMatch(/nothing was sent to any device: R6: undefined variable "cost"/);
    expect(undef!.result.render_errors).toEqual([{ device: 'R6', error: 'undefined variable "cost"', variable: 'cost' }]);
    expect(forbidden!.status).toBe('error');
    expect(forbidden!.result.error).toMatch(
      /^blocked, nothing was sent to any device: R1 line 4 "reload": matches forbidden command "reload"/,
    );
    expect(runningConfigs()).toEqual(before);
  }, 120_000);

  it('a pilot that fails stops the set: the other devices are untouched; each router was read in one console round before', async () => {
    const before = runningConfigs();
    const { log, rounds } = roundLog();
    const [r] = await run(
      [
        call('p', {
          template: 'interface lo\n {{ line }}',
          devices: ['R*'],
          vars: { line: 'description pilot-ok' },
          device_vars: { R2: { line: 'ip ospf bogus-setting 7' } },
          pilot: ['R2'],
        }),
      ],
      'config',
      undefined,
      log,
    );
    // no approval asked: the checkpoint's configuration and the baseline came from one read per router
    expect(roundsBeforeApply(rounds)).toEqual(Object.fromEntries(ROUTERS.map((rt) => [rt, 1])));
    // R2 took its first line and refused the second: partial there, nothing anywhere else
    expect(r!.status).toBe('partial');
    expect(r!.result.devices.find((d: { device_name: string }) => d.device_name === 'R2').status).toBe('partial');
    expect(r!.result.pilot).toMatchObject({ devices: ['R2'], status: 'failed' });
    const others = r!.result.devices.filter((d: { device_name: string }) => d.device_name !== 'R2');
    expect(others).toHaveLength(5);
    for (const d of others) expect(d.error).toMatch(/^not applied: the pilot did not succeed/);
    const after = runningConfigs();
    for (const rt of ROUTERS.filter((x) => x !== 'R2')) expect(after[rt]).toEqual(before[rt]);
    expect(after.R1).not.toContain('pilot-ok');
  }, 120_000);

  it('OSPF on six routers and addresses on the PCs from two templates: one approval each, converges, a check file passes', async () => {
    const asked: ApprovalRequest[] = [];
    const { log, rounds } = roundLog();
    const ends = await run(
      [
        call('ospf', { template: OSPF_TEMPLATE, devices: ['R*'], vars: { area: 0, hello: 1 }, pilot: ['R1'] }),
        call('pcs', { template: 'ip 192.168.{{ device.index }}.10/24 192.168.{{ device.index }}.1', devices: ['PC*'] }),
      ],
      'ask',
      (req) => asked.push(req),
      log,
    );
    // one console round per device before the apply: the facts, the preview's configuration and the baseline read together
    expect(roundsBeforeApply(rounds)).toEqual(Object.fromEntries([...ROUTERS, 'PC1', 'PC2'].map((d) => [d, 1])));
    expect(asked.map((a) => a.name)).toEqual(['apply_config_template', 'apply_config_template']);
    const set = asked[0]!.args.rendered as { devices: { device_name: string; commands: string[] }[]; expansion: unknown };
    expect(set.expansion).toEqual({ 'R*': ROUTERS });
    expect(set.devices.map((d) => d.device_name)).toEqual(ROUTERS);
    // facts: R4's two ring links and its PC LAN, read from the console
    expect(set.devices[3]!.commands).toEqual(
      expect.arrayContaining([
        ' ospf router-id 10.255.255.4',
        ' network 10.0.3.0/24 area 0',
        ' network 10.0.4.0/24 area 0',
        ' network 192.168.2.0/24 area 0',
      ]),
    );
    expect(asked[0]!.preview?.map((p) => p.device)).toEqual(ROUTERS);
    expect(asked[0]!.preview?.[0]?.diff).toMatch(/^\+ ospf router-id 10\.255\.255\.1$/m);
    expect((asked[1]!.args.rendered as { devices: { commands: string[] }[] }).devices.map((d) => d.commands)).toEqual([
      ['ip 192.168.1.10/24 192.168.1.1'],
      ['ip 192.168.2.10/24 192.168.2.1'],
    ]);
    expect(ends.map((e) => [e.id, e.status]).sort()).toEqual([
      ['ospf', 'success'],
      ['pcs', 'success'],
    ]);
    const ospf = ends.find((e) => e.id === 'ospf')!.result;
    expect(ospf.pilot).toEqual({ devices: ['R1'], status: 'passed' });
    expect(ospf.devices).toHaveLength(6);
    // verified against the baseline: OSPF only added state, nothing was lost
    expect(ospf.verification).toMatchObject({ status: 'pass', regressions: [] });
    // PCs have no state readers: their verification cannot decide, and says why
    expect(ends.find((e) => e.id === 'pcs')!.result.verification).toMatchObject({
      status: 'error',
      reason: 'no baseline for PC1: no state readers for vpcs devices',
    });

    // both directions of the PC1 → PC2 ping: R1 reaches PC2's LAN and R4 (PC2's gateway) reaches PC1's;
    // the ping may still lose its first probe to ARP on a loaded machine (min_success 60: two of three)
    await waitFor(
      () =>
        ROUTERS.every((r) => fullCount(r) === 2) &&
        /^O>\* 192\.168\.2\.0\/24/m.test(lab.vtysh('R1', 'show ip route')) &&
        /^O>\* 192\.168\.1\.0\/24/m.test(lab.vtysh('R4', 'show ip route')),
      60_000,
    );
    const { checks } = parseCheckText(
      `checks:
${ROUTERS.map((r, i) => `  - ospf_neighbor: {device: ${r}, neighbor: 10.255.255.${((i + 1) % 6) + 1}, state: Full}`).join('\n')}
  - route: {device: R1, prefix: 192.168.2.0/24, protocol: ospf}
  - ping: {from: PC1, to: 192.168.2.10, min_success: 60}
`,
      'inline',
    );
    const pool = new DevicePool({ openTimeoutMs: 3_000, commandTimeoutMs: 10_000, confirmAllow: [] });
    try {
      const report = await runChecks(checks, { project: scopeOf(lab.topology(PROJECT)), settings: settingsWith(), pool });
      expect(report.checks.map((c) => [c.status, c.evidence])).toEqual(report.checks.map((c) => ['pass', c.evidence]));
    } finally {
      pool.closeAll();
    }
  }, 240_000);
});
