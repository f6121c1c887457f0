/**
 * `check --init` on a lab of real VPCS PCs (test/lab), the built CLI run as a process: each
 * PC's address, a ping between the PCs that share a switch and a network, `clean: true` on
 * every link — a file that passes right after, and fails where the lab is broken, a changed
 * address showing its IP/MASK line as the evidence. PC1 and PC2 hang off one bridge in R1's
 * namespace (the switch SW1 of the controller's topology); PC3 has a link to R1 of its own
 * and another network, so no ping to it is written.
 * Needs root + frr + vpcs (fails, never skips, when missing). Run `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import { startPcLab } from '../lab/pc-lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, vpcsLabNode } from '../fakes/gns3/nodes.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { closePool, ctxFor, runTool, settingsWith } from '../devices/helpers.js';
import { executeVpcsCommands } from '../../src/tools/devices/commands.js';

const PROJECT = 'vpcs-init';
let lab: Lab;
let gns3: FakeGns3;
let pcLinkId: string;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
const file = (name: string) => join(env.home, name);
const cli = (args: string[], timeoutMs = 90_000) => runCli([...args, '--server', gns3.url, '--project', PROJECT], env.env, { timeoutMs });

/** Sets PCs' addresses through their consoles, then leaves the consoles to the CLI (VPCS serves one client at a time). */
async function address(pcs: Record<string, string>): Promise<void> {
  const ctx = ctxFor(settingsWith(), lab.topology());
  const r = await runTool(
    executeVpcsCommands,
    { device_configs: Object.entries(pcs).map(([device_name, ip]) => ({ device_name, commands: [ip] })) },
    ctx,
  );
  closePool(ctx);
  expect(JSON.stringify(r)).not.toMatch(/"status":"(error|timeout)"/);
}

beforeAll(async () => {
  lab = await startPcLab(['PC1', 'PC2', 'PC3']);
  // PC1's and PC2's links into R1 become one switch: a bridge holding PC1's network
  const ns = lab.device('R1').netns;
  const ip = (...args: string[]) => execFileSync('ip', ['-n', ns, ...args]);
  ip('link', 'add', 'br0', 'type', 'bridge');
  for (const pc of lab.pcs.slice(0, 2)) {
    ip('addr', 'flush', 'dev', pc.routerInterface);
    ip('link', 'set', pc.routerInterface, 'master', 'br0');
  }
  ip('addr', 'add', lab.pcs[0]!.routerAddress, 'dev', 'br0');
  ip('link', 'set', 'br0', 'up');

  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: PROJECT });
  gns3.addNode(frrLabNode(lab.device('R1'), { ports: 4 }));
  for (const pc of lab.pcs) gns3.addNode(vpcsLabNode(lab.device(pc.name)));
  gns3.addNode({ name: 'SW1', node_type: 'ethernet_switch', status: 'started' });
  pcLinkId = gns3.addLink({ a: 'PC1:e0', b: 'SW1:e0' }).link_id;
  gns3.addLink({ a: 'PC2:e0', b: 'SW1:e1' });
  gns3.addLink({ a: 'SW1:e2', b: 'R1:e0' });
  gns3.addLink({ a: 'PC3:e0', b: 'R1:e1' });
  await address({
    PC1: 'ip 192.168.1.10/24 192.168.1.1',
    PC2: 'ip 192.168.1.11/24 192.168.1.1',
    PC3: `ip ${lab.pcs[2]!.address} ${lab.pcs[2]!.gateway}`,
  });
}, 120_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('check --init on a VPCS lab', () => {
  it("writes each PC's address, a ping between the PCs on one switch and network, clean links; it passes right after", async () => {
    const init = await cli(['check', '--init', file('init.yaml')]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const text = readFileSync(file('init.yaml'), 'utf8');
    for (const [pc, ip] of [
      ['PC1', '192.168.1.10/24'],
      ['PC2', '192.168.1.11/24'],
      ['PC3', lab.pcs[2]!.address],
    ])
      expect(text).toContain(
        `- name: ${pc} has ${ip}\n    command: { device: ${pc}, run: show ip, expect: { contains: "IP/MASK     : ${ip}" } }\n`,
      );
    expect(text).toContain('- ping: { from: PC1, to: 192.168.1.11 }\n');
    expect(text.match(/- ping:/g)).toHaveLength(1); // PC3: another link and network
    expect(text).toContain('- link: { a: PC1:e0, b: SW1:e0, clean: true }\n');
    expect(text).toContain('- link: { a: PC3:e0, b: R1:e1, clean: true }\n');

    const r = await cli(['check', file('init.yaml'), '--json']);
    const report = JSON.parse(r.stdout) as { failed: number; errors: number; checks: { kind: string; status: string; evidence: string }[] };
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.checks.find((c) => c.kind === 'ping')!.evidence).toMatch(/^3\/3 replies: .*192\.168\.1\.11 icmp_seq=3/);
    expect(r.code).toBe(0);
  }, 180_000);

  it('fails where the lab breaks: a changed address (its IP/MASK line the evidence), the ping to it, a filtered link', async () => {
    // PC1 forgets PC2's MAC too: with it cached, pings to the old address were still answered
    await address({ PC2: 'ip 192.168.1.12/24 192.168.1.1', PC1: 'clear arp' });
    gns3.project(PROJECT).links.get(pcLinkId)!.filters = { packet_loss: [30] };
    const r = await cli(['check', file('init.yaml'), '--json']);
    const report = JSON.parse(r.stdout) as { checks: { name: string; status: string; evidence: string }[] };
    expect(report.checks.filter((c) => c.status !== 'pass').map((c) => [c.name, c.status, c.evidence])).toEqual([
      ['link PC1:e0 - SW1:e0 clean', 'fail', 'PC1:e0 <-> SW1:e0 filters {"packet_loss":[30]}'],
      ['PC2 has 192.168.1.11/24', 'fail', '"IP/MASK     : 192.168.1.11/24" not in the output (nearest: IP/MASK     : 192.168.1.12/24)'],
      ['ping PC1 -> 192.168.1.11', 'fail', expect.stringMatching(/^0\/3 replies: /)],
    ]);
    expect(r.code).toBe(7);
  }, 180_000);
});
