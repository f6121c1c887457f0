/**
 * End to end: the built CLI in one-shot mode, a fake LLM scripted to "configure
 * OSPF on R1–R3 and verify", the fake GNS3 controller whose nodes' consoles are
 * the real FRR lab (network namespaces, telnet consoles). The real device tools
 * configure the real routers; the routers must reach OSPF Full, and --json must
 * list the tool calls. Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { startFakeLlm, type FakeLlm, type FakeTurn } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';

const ROUTERS = ['R1', 'R2', 'R3'];
let lab: Lab;
let gns3: FakeGns3;
let llm: FakeLlm;
let projectId: string;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });

beforeAll(async () => {
  lab = await startLab({
    routers: ROUTERS,
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
      ['R1', 'R3'],
    ],
  });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  projectId = gns3.addProject({ name: 'ospf-lab' });
  for (const name of ROUTERS) {
    const d = lab.device(name);
    gns3.addNode({ name, node_type: 'qemu', console_host: d.consoleHost, console: d.consolePort, console_type: 'telnet', status: 'started', template_name: 'FRR', tags: ['device_type:frr'], ports: 4 });
  }
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0' });
  gns3.addLink({ a: 'R2:e1', b: 'R3:e0' });
  gns3.addLink({ a: 'R1:e1', b: 'R3:e1' });
}, 120_000);

afterAll(async () => {
  await llm?.close();
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

function ospfConfig(router: string): string[] {
  const i = ROUTERS.indexOf(router) + 1;
  const ifaces = lab.links.flatMap((l) => (l.a === router ? [l.aInterface] : l.b === router ? [l.bInterface] : []));
  return [
    'router ospf',
    `ospf router-id 10.255.255.${i}`,
    'network 10.0.0.0/16 area 0',
    'network 10.255.255.0/24 area 0',
    'exit',
    ...ifaces.flatMap((f) => [`interface ${f}`, 'ip ospf network point-to-point', 'ip ospf hello-interval 1', 'ip ospf dead-interval 4', 'exit']),
  ];
}

function fullNeighbours(router: string): number {
  const out = lab.vtysh(router, 'show ip ospf neighbor');
  return out.split('\n').filter((l) => /Full/.test(l)).length;
}

describe('one-shot e2e: configure OSPF on R1–R3 and verify', () => {
  it('reaches OSPF Full on the real routers and lists the tool calls in --json', async () => {
    const script: FakeTurn[] = [
      {
        text: 'Plan: look at the interfaces, enable OSPF area 0 on all three routers, verify the adjacencies.',
        tool_calls: [{ id: 'look', name: 'execute_multiple_device_commands', args: { device_configs: ROUTERS.map((r) => ({ device_name: r, commands: ['show interface brief'] })) } }],
      },
      {
        tool_calls: [{ id: 'cfg', name: 'execute_multiple_device_config_commands', args: { device_configs: ROUTERS.map((r) => ({ device_name: r, config_commands: ospfConfig(r) })) } }],
      },
      // give the adjacencies a few hello intervals before verifying
      {
        delay_ms: 8000,
        tool_calls: [{ id: 'verify', name: 'execute_multiple_device_commands', args: { device_configs: ROUTERS.map((r) => ({ device_name: r, commands: ['show ip ospf neighbor'] })) } }],
      },
      { text: 'OSPF area 0 is configured on R1, R2 and R3; every router has two neighbours in state Full.' },
    ];
    llm = await startFakeLlm(script, { title: 'OSPF on R1-R3' });
    const r = await runCli(
      ['-p', 'configure OSPF on R1–R3 and verify', '--json', '-m', 'lab', '--approve', 'config', '--server', gns3.url, '--project', 'ospf-lab', ...llmFlags(llm.url)],
      env.env,
      { timeoutMs: 120_000 },
    );
    if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const j = parseJsonResult(r.stdout);
    expect(j.project_id).toBe(projectId);
    expect(j.tool_calls.map((t) => [t.id, t.name, t.status])).toEqual([
      ['look', 'execute_multiple_device_commands', 'success'],
      ['cfg', 'execute_multiple_device_config_commands', 'success'],
      ['verify', 'execute_multiple_device_commands', 'success'],
    ]);
    expect(j.stats).toMatchObject({ llm_calls: 4, tool_calls: 3 });
    expect(j.response).toContain('Full');
    // the model was shown the topology of the fake controller
    expect(String(llm.requests[0]!.body.messages[0]!.content)).toContain('R1');
    expect(String(llm.requests[0]!.body.messages[0]!.content)).not.toContain('No topology information');
    // what the verify call saw, and the routers themselves
    // the verify call read real neighbour tables (state may still be converging under load)
    expect(j.tool_calls[2]!.output).toMatch(/Neighbor ID/);
    expect(j.tool_calls[2]!.output).toMatch(/10\.255\.255\.\d/);
    const deadline = Date.now() + 30_000;
    while (ROUTERS.some((x) => fullNeighbours(x) < 2) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    for (const x of ROUTERS) expect(fullNeighbours(x)).toBe(2);
  }, 150_000);
});
