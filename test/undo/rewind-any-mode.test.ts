/**
 * A rewind restores what the session changed whatever mode it ran in: an inject-mode
 * session applied a VPCS fault (a wrong gateway on PC1, through the config tool inject
 * mode offers), and its restore needs execute_vpcs_commands, which inject mode does not
 * offer its model. The rewind's `cli` caller may send it — through the gate, so `--yes`
 * is still its approval — and the dry run's plan is what the rewind then does. Real VPCS
 * (and the FRR router it hangs off) behind the fake v3 controller, the built CLI, the
 * fake LLM as the model. Needs root + frr + vpcs (fails, never skips, when missing).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { closePool, ctxFor, runTool, settingsWith } from '../devices/helpers.js';
import { executeVpcsCommands } from '../../src/tools/devices/commands.js';

let lab: Lab;
let gns3: FakeGns3;
let llm: FakeLlm | undefined;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
env.env.GNS3_COPILOT_CONNECT_TIMEOUT_MS = '15000';
const ADDRESS = '192.168.1.10/24';

const cli = (args: string[]) => runCli([...args, '--server', gns3.url, '--project', 'anymode'], env.env, { timeoutMs: 120_000 });

/** PC1's `show ip`, read through its console and left free for the CLI (VPCS serves one client at a time). */
async function pcShowIp(): Promise<string> {
  const ctx = ctxFor(settingsWith(), lab.topology('anymode'));
  try {
    const r = await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'PC1', commands: ['show ip'] }] }, ctx);
    return (r as { devices: { results: { output: string }[] }[] }).devices[0]!.results[0]!.output;
  } finally {
    closePool(ctx);
  }
}

beforeAll(async () => {
  lab = await startLab({ routers: ['r1'], links: [], pcs: [{ name: 'PC1', router: 'r1' }] });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'anymode' });
  gns3.addNode(frrLabNode(lab.device('r1')));
  gns3.addNode(telnetNode('PC1', lab.device('PC1').consolePort, { node_type: 'vpcs' }));
  // the lab before the session: PC1 with its address and the right gateway
  const ctx = ctxFor(settingsWith(), lab.topology('anymode'));
  try {
    await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'PC1', commands: [`ip ${ADDRESS} 192.168.1.1`] }] }, ctx);
  } finally {
    closePool(ctx);
  }
}, 120_000);

afterAll(async () => {
  await llm?.close();
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

it("rewinds an inject session's VPCS fault with the VPCS tool inject mode does not offer; the dry run's plan is what it does", async () => {
  llm = await startFakeLlm(
    [
      {
        tool_calls: [
          {
            id: 'gw',
            name: 'execute_multiple_device_config_commands',
            args: {
              device_configs: [{ device_name: 'PC1', config_commands: [`ip ${ADDRESS} 192.168.1.254`] }],
              fault: {
                scenario: 'vpcs_wrong_gateway',
                parameters: { address: ADDRESS, gateway: '192.168.1.1', wrong_gateway: '192.168.1.254' },
                repair_check: { command: { device: 'PC1', run: 'show ip', expect: { regex: 'GATEWAY\\s+:\\s+192\\.168\\.1\\.1\\b' } } },
              },
            },
          },
        ],
      },
      { text: 'PC1 now points at a gateway that does not exist.' },
    ],
    { title: 'Wrong gateway on PC1' },
  );
  const injected = await cli(['inject', '-p', 'break PC1 for the students', '--json', '--approve', 'config', ...llmFlags(llm.url)]);
  expect(injected.code, `${injected.stdout}\n${injected.stderr}`).toBe(0);
  const j = parseJsonResult(injected.stdout);
  expect(j.tool_calls.map((t) => [t.id, t.status])).toEqual([['gw', 'success']]);
  const session = j.session_id!;
  expect(await pcShowIp()).toMatch(/GATEWAY\s+:\s+192\.168\.1\.254/);

  const dry = await cli(['rewind', session, '--dry-run', '--json']);
  expect(dry.code, `${dry.stdout}\n${dry.stderr}`).toBe(0);
  const plan = JSON.parse(dry.stdout) as { devices: { name: string; status: string; commands: string[] }[]; blocked?: string };
  expect(plan.blocked).toBeUndefined();
  expect(plan.devices).toEqual([expect.objectContaining({ name: 'PC1', status: 'planned', commands: [`ip ${ADDRESS} 192.168.1.1`] })]);

  const r = await cli(['rewind', session, '--yes', '--json']);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const report = JSON.parse(r.stdout) as { devices: { name: string; status: string }[]; faults_restored: number[] };
  expect(report.devices.map((d) => [d.name, d.status])).toEqual([['PC1', 'restored']]);
  expect(report.faults_restored).toHaveLength(1);
  expect(await pcShowIp()).toMatch(/GATEWAY\s+:\s+192\.168\.1\.1\s*$/m);
}, 240_000);
