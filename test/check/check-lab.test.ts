/**
 * `gns3-copilot check` on the real device lab: three FRR routers (OSPF triangle)
 * and a VPCS PC behind a fake GNS3 controller, the built CLI run as a process.
 * One lab for the file; the tests run in order (pass, init, break, watch the fix): --init reads
 * the lab OSPF converged at the start, before the flap sets FRR's SPF hold time growing.
 * Needs root + frr + vpcs (fails, never skips, when missing). Run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero, waitForOspfConverged } from '../lab/ospf.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { BIN, cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { closePool, ctxFor, runTool, scopeOf, settingsWith } from '../devices/helpers.js';
import { executeVpcsCommands } from '../../src/tools/devices/commands.js';
import { runChecks } from '../../src/check/run.js';
import { parseCheckText } from '../../src/check/load.js';
import { DevicePool } from '../../src/devices/pool.js';
import { verifyLab } from '../../src/tools/check/verify-lab.js';
import { parseXml, type XmlElement } from './xml.js';

const ROUTERS = ['R1', 'R2', 'R3'];
const PROJECT = 'check-lab';
let lab: Lab;
let gns3: FakeGns3;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
const file = (name: string) => join(env.home, name);

const CHECKS = `project: ${PROJECT}
checks:
  - node: {name: R1, status: started}
  - link: {a: "R1:e0", b: "R2:e0", clean: true}
  - interface: {device: R2, name: eth0, state: up, ip: 10.0.1.2/24}
  - ospf_neighbor: {device: R1, neighbor: 10.255.255.2, state: Full}
  - ospf_neighbor: {device: R3, neighbor: 10.255.255.1}
  - route: {device: R3, prefix: 192.168.1.0/24, protocol: ospf}
  - ping: {from: PC1, to: 10.255.255.3}
  - config: {device: R1, section: "router ospf", has: "network 10.0.0.0/16 area 0"}
  - command: {device: R1, run: "show ip route", expect: {contains: "10.255.255.3/32", not_contains: "inactive"}}
    name: R1 has R3's loopback
    points: 2
`;

/** OSPF has converged on every shortest path, PC1's LAN included: what every check below reads stays true. */
const converged = () => waitForOspfConverged(lab, ROUTERS, 90_000, { pcLans: true });

const cli = (args: string[], timeoutMs = 60_000) => runCli([...args, '--server', gns3.url], env.env, { timeoutMs });

beforeAll(async () => {
  lab = await startLab({
    routers: ROUTERS,
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
      ['R1', 'R3'],
    ],
    pcs: [{ name: 'PC1', router: 'R1' }],
  });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: PROJECT });
  for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r), { ports: 4 }));
  gns3.addNode(telnetNode('PC1', lab.device('PC1').consolePort, { node_type: 'vpcs', template_name: 'VPCS' }));
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0' });
  gns3.addLink({ a: 'R2:e1', b: 'R3:e0' });
  gns3.addLink({ a: 'R1:e1', b: 'R3:e1' });
  for (const r of ROUTERS)
    lab.vtysh(
      r,
      'configure terminal',
      ...ospfAreaZero(lab, r, { routers: ROUTERS, networks: ['192.168.0.0/16'], quickFlooding: true }),
      'end',
    );
  const ctx = ctxFor(settingsWith(), lab.topology());
  const pc = lab.pcs[0]!;
  await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'PC1', commands: [`ip ${pc.address} ${pc.gateway}`] }] }, ctx);
  closePool(ctx); // VPCS serves one console client at a time: leave it to the checker
  await converged();
  writeFileSync(file('lab.yaml'), CHECKS);
}, 240_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

function testcases(doc: XmlElement): XmlElement[] {
  return doc.children.flatMap((s) => s.children.filter((c) => c.name === 'testcase'));
}

describe('gns3-copilot check on the real FRR/VPCS lab', () => {
  it('passes on the configured OSPF lab: a ✓ table with the score, exit 0, and the --json shape', async () => {
    const r = await cli(['check', file('lab.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('9 passed, 0 failed, 0 errors · score 10/10 · project check-lab');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ R1 has R3's loopback\s+O>\* 10\.255\.255\.3\/32 /m);
    expect(r.stdout).toMatch(/^✓ ping PC1 -> 10\.255\.255\.3\s+3\/3 replies: (84 bytes from )?10\.255\.255\.3 icmp_seq=3 ttl=6[23]/m);
    expect(r.stdout).toContain('9 passed, 0 failed, 0 errors · score 10/10 · project check-lab');

    const j = await cli(['check', file('lab.yaml'), '--json']);
    expect(j.code).toBe(0);
    const report = JSON.parse(j.stdout) as Record<string, unknown> & { checks: Record<string, unknown>[] };
    expect(Object.keys(report).sort()).toEqual(['checks', 'errors', 'failed', 'max_score', 'passed', 'project', 'score']);
    expect(report).toMatchObject({ project: PROJECT, passed: 9, failed: 0, errors: 0, score: 10, max_score: 10 });
    for (const c of report.checks) {
      expect(Object.keys(c).sort()).toEqual(['duration_ms', 'evidence', 'kind', 'name', 'points', 'status']);
      expect(c.status).toBe('pass');
    }
    expect(report.checks.map((c) => c.kind)).toEqual([
      'node',
      'link',
      'interface',
      'ospf_neighbor',
      'ospf_neighbor',
      'route',
      'ping',
      'config',
      'command',
    ]);
    expect(report.checks[3]!.evidence).toMatch(/^10\.255\.255\.2\s+1 Full\/-/);
  }, 60_000);

  it('is an error, never a pass, for a kind on the wrong platform; command works on VPCS; config commands are never sent', async () => {
    const pool = new DevicePool({ openTimeoutMs: 3_000, commandTimeoutMs: 10_000, confirmAllow: [] });
    try {
      const { checks } = parseCheckText(
        `checks:
  - ospf_neighbor: {device: PC1, neighbor: 10.255.255.1}
  - route: {device: PC1, prefix: 10.0.1.0/24}
  - command: {device: PC1, run: "show ip", expect: {regex: "IP/MASK\\\\s+:\\\\s+192\\\\.168\\\\.1\\\\.10/24"}}
  - command: {device: R1, run: "configure terminal", expect: {contains: "config"}}
`,
        'inline',
      );
      const r = await runChecks(checks, { project: scopeOf(lab.topology(PROJECT)), settings: settingsWith(), pool });
      expect(r.checks.map((c) => [c.status, c.evidence])).toEqual([
        ['error', 'ospf_neighbor does not apply to platform vpcs'],
        ['error', 'route does not apply to platform vpcs'],
        ['pass', expect.stringMatching(/^IP\/MASK\s+: 192\.168\.1\.10\/24$/)],
        ['error', expect.stringMatching(/^"configure terminal": blocked: not a read-only command/)],
      ]);
      expect(r).toMatchObject({ passed: 1, errors: 3, score: 1, max_score: 4 });
    } finally {
      pool.closeAll();
    }
  }, 60_000);

  it('verify_lab (the agent tool) runs a check file or inline checks and reports schema mistakes as a tool error', async () => {
    const ctx = ctxFor(settingsWith(), lab.topology(PROJECT));
    try {
      const fromFile = await runTool(verifyLab, { file: file('lab.yaml'), only: ["R1 has R3's loopback"] }, ctx);
      expect(fromFile).toMatchObject({ status: 'success', passed: 1, failed: 0, errors: 0, score: 2, max_score: 2 });
      const inline = await runTool(
        verifyLab,
        { checks: [{ ospf_neighbor: { device: 'R2', neighbor: '10.255.255.3' } }, { route: { device: 'R2', prefix: '10.99.0.0/16' } }] },
        ctx,
      );
      expect(inline.checks.map((c: { status: string; evidence: string }) => [c.status, c.evidence])).toEqual([
        ['pass', expect.stringMatching(/^10\.255\.255\.3\s+1 Full\//)],
        ['fail', 'no route to 10.99.0.0/16 in "show ip route"'],
      ]);
      const bad = await runTool(verifyLab, { checks: [{ ping: { from: 'PC1' } }] }, ctx);
      expect(bad).toMatchObject({ status: 'error', error: expect.stringMatching(/^checks\[0\]\.ping\.to: /) });
    } finally {
      closePool(ctx);
    }
  }, 60_000);

  it('--init writes a check file from the live lab that passes right after', async () => {
    // --init writes every route it sees with its next hop: the shortest paths themselves must be
    // in, which no later SPF run changes (the start waited for them; this returns at once unless
    // the lab moved since)
    await converged();
    const init = await cli(['check', '--init', file('init.yaml'), '--project', PROJECT]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const text = readFileSync(file('init.yaml'), 'utf8');
    expect(text).toContain('- node: { name: PC1, status: started }');
    expect(text).toMatch(/- link: \{ a: R1:e0, b: R2:e0, clean: true \}/);
    expect(text).toContain('- interface: { device: R1, name: eth0, state: up, ip: 10.0.1.1/24 }');
    expect(text).toContain('- ospf_neighbor: { device: R1, neighbor: 10.255.255.2, state: Full }');
    expect(text).toMatch(/- route: \{ device: R1, prefix: 10\.255\.255\.3\/32, protocol: ospf, via: 10\.0\.3\.2 \}/);
    const r = await cli(['check', file('init.yaml'), '--project', PROJECT]);
    expect(r.stdout).toMatch(/ 0 failed, 0 errors/);
    expect(r.code).toBe(0);
  }, 180_000);

  it('--init --stage appends the live lab as a stage to a plain file; each stage passes on its own and in the per-stage report', async () => {
    await converged();
    writeFileSync(file('staged.yaml'), CHECKS);
    const init = await cli(['check', '--init', file('staged.yaml'), '--stage', '2 as built']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const j = await cli(['check', file('staged.yaml'), '--json']);
    expect(j.code, j.stdout).toBe(0);
    const report = JSON.parse(j.stdout) as { stages: { name: string; passed: number; failed: number; errors: number }[]; passed: number };
    // the plain file's checks are its first stage, named after the file
    expect(report.stages.map((s) => s.name)).toEqual(['staged', '2 as built']);
    expect(report.stages[0]).toMatchObject({ passed: 9, failed: 0, errors: 0, score: 10, max_score: 10 });
    expect(report.stages[1]!.passed).toBeGreaterThan(10);
    expect(report.stages[1]).toMatchObject({ failed: 0, errors: 0 });
    const one = await cli(['check', file('staged.yaml'), '--stage', 'staged']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^── staged · 9 passed, 0 failed, 0 errors · score 10\/10\n/);
    expect(one.stdout).not.toContain('2 as built');
  }, 180_000);

  it('after shutdown on one interface: exit 7, the ✗ line quotes the device output, --junit parses with that evidence', async () => {
    lab.vtysh('R2', 'configure terminal', 'interface eth0', 'shutdown', 'end');
    const r = await cli([
      'check',
      file('lab.yaml'),
      '--junit',
      file('report.xml'),
      '--only',
      'R2 interface eth0 up 10.0.1.2/24',
      "R1 has R3's loopback",
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(/^✗ R2 interface eth0 up 10\.0\.1\.2\/24\s+eth0\s+down\s+default\s+10\.0\.1\.2\/24$/m);
    expect(r.stdout).toContain('1 passed, 1 failed, 0 errors · score 2/3');

    const doc = parseXml(readFileSync(file('report.xml'), 'utf8'));
    expect(doc.name).toBe('testsuites');
    expect(doc.attrs).toMatchObject({ tests: '2', failures: '1', errors: '0' });
    const cases = testcases(doc);
    expect(cases.map((c) => c.attrs.name)).toEqual(['R2 interface eth0 up 10.0.1.2/24', "R1 has R3's loopback"]);
    const failure = cases[0]!.children.find((c) => c.name === 'failure');
    expect(failure?.attrs.message).toMatch(/^eth0\s+down\s+default\s+10\.0\.1\.2\/24$/);
    expect(cases[1]!.children.some((c) => c.name === 'failure' || c.name === 'error')).toBe(false);
  }, 60_000);

  it('--watch re-runs until the fix lands and shows what changed', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'check', file('lab.yaml'), '--watch', '1', '--only', 'R2 interface eth0 up 10.0.1.2/24', '--server', gns3.url],
      { env: env.env, cwd: env.home, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let fixed = false;
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!fixed && stdout.includes('✗ R2 interface eth0')) {
        fixed = true;
        lab.vtysh('R2', 'configure terminal', 'interface eth0', 'no shutdown', 'end');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await done;
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(stdout).toMatch(/✗ → ✓ R2 interface eth0 up 10\.0\.1\.2\/24\s+eth0\s+up/);
    expect(stdout).toContain('the check passes · score 1/1');
  }, 60_000);

  it('a bad file exits 2 naming the line and field; an unreachable controller exits 3', async () => {
    writeFileSync(
      file('bad.yaml'),
      'checks:\n  - node: {name: R1}\n  - interface:\n      device: R1\n      name: eth0\n      state: sideways\n',
    );
    const bad = await cli(['check', file('bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.yaml:6: checks\[1\]\.interface\.state: /);
    const down = await runCli(['check', file('lab.yaml'), '--server', 'http://127.0.0.1:9'], env.env);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^error: /);
    // --init never overwrites a file (an instructor's edited checks): refused before the controller is asked
    const before = readFileSync(file('lab.yaml'), 'utf8');
    const init = await runCli(['check', '--init', file('lab.yaml'), '--server', 'http://127.0.0.1:9'], env.env);
    expect(init.code).toBe(2);
    expect(init.stderr).toBe(
      `error: check --init: ${file('lab.yaml')} exists; move it away, name a new file or append a --stage (nothing written)\n`,
    );
    expect(readFileSync(file('lab.yaml'), 'utf8')).toBe(before);
  }, 30_000);
});
