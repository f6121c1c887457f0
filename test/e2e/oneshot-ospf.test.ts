/**
 * End to end: the built CLI in one-shot mode, a fake LLM scripted to "configure
 * OSPF on R1–R3 and verify", the fake GNS3 controller whose nodes' consoles are
 * the real FRR lab (network namespaces, telnet consoles). The real device tools
 * configure the real routers; the routers must reach OSPF Full, and --json must
 * list the tool calls. Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import type { FakeTurn } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';
import { ROUTERS, fullNeighbours, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from './ospf-lab.js';

let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
let projectId: string;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
const startLlm = fakeLlmServers();

beforeAll(async () => {
  ospf = await startOspfLab('ospf-lab');
  ({ lab, gns3, projectId } = ospf);
}, 120_000);

afterAll(async () => {
  await ospf?.stop();
  env.cleanup();
});

describe('one-shot e2e: configure OSPF on R1–R3 and verify', () => {
  it('reaches OSPF Full on the real routers and lists the tool calls in --json', async () => {
    const script: FakeTurn[] = [
      {
        text: 'Plan: look at the interfaces, enable OSPF area 0 on all three routers, verify the adjacencies.',
        tool_calls: [
          {
            id: 'look',
            name: 'execute_multiple_device_commands',
            args: { device_configs: ROUTERS.map((r) => ({ device_name: r, commands: ['show interface brief'] })) },
          },
        ],
      },
      {
        tool_calls: [
          {
            id: 'cfg',
            name: 'execute_multiple_device_config_commands',
            args: { device_configs: ROUTERS.map((r) => ({ device_name: r, config_commands: ospfConfig(lab, r) })) },
          },
        ],
      },
      {
        tool_calls: [
          {
            id: 'verify',
            name: 'execute_multiple_device_commands',
            args: { device_configs: ROUTERS.map((r) => ({ device_name: r, commands: ['show ip ospf neighbor'] })) },
          },
        ],
      },
      { text: 'OSPF area 0 is configured on R1, R2 and R3; every router has two neighbours in state Full.' },
    ];
    const llm = await startLlm(script, { title: 'OSPF on R1-R3' });
    const r = await runCli(
      [
        '-p',
        'configure OSPF on R1–R3 and verify',
        '--json',
        '-m',
        'lab',
        '--approve',
        'config',
        '--server',
        gns3.url,
        '--project',
        'ospf-lab',
        ...llmFlags(llm.url),
      ],
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
    // four answers and the title: every call of the request counts
    expect(j.stats).toMatchObject({ llm_calls: 5, tool_calls: 3 });
    expect(j.stats.by_kind!.agent.llm_calls).toBe(4);
    expect(j.response).toContain('Full');
    // the model was shown the topology of the fake controller
    expect(String(llm.requests[0]!.body.messages[0]!.content)).toContain('R1');
    expect(String(llm.requests[0]!.body.messages[0]!.content)).not.toContain('No topology information');
    // what the verify call saw, and the routers themselves
    // the verify call read real neighbour tables (state may still be converging under load)
    expect(j.tool_calls[2]!.output).toMatch(/Neighbor ID/);
    expect(j.tool_calls[2]!.output).toMatch(/10\.255\.255\.\d/);
    await waitForFullMesh(lab, 30_000);
    for (const x of ROUTERS) expect(fullNeighbours(lab, x)).toBe(2);
  }, 150_000);
});
