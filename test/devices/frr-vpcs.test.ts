/**
 * The device tools on a real lab: three FRR routers in a triangle, two VPCS PCs,
 * consoles like GNS3's, sshd per router. One lab for the whole file; tests run
 * in order (OSPF first, then PCs ping across it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero } from '../lab/ospf.js';
import { executeMultipleDeviceCommands, executeVpcsCommands } from '../../src/tools/devices/commands.js';
import { executeMultipleDeviceConfigCommands } from '../../src/tools/devices/config.js';
import { devicesTools } from '../../src/tools/devices/index.js';
import { DEVICE_PASSWORD_ENV } from '../../src/devices/target.js';
import { POOL_SERVICE_KEY, type DevicePool } from '../../src/devices/pool.js';
import type { ToolContext } from '../../src/tools/types.js';
import { closePool, ctxFor, runCommands, runTool, settingsWith } from './helpers.js';

let lab: Lab;
let ctx: ToolContext;

beforeAll(async () => {
  lab = await startLab({
    routers: ['r1', 'r2', 'r3'],
    links: [
      ['r1', 'r2'],
      ['r2', 'r3'],
      ['r1', 'r3'],
    ],
    pcs: [
      { name: 'PC1', router: 'r1' },
      { name: 'PC2', router: 'r3' },
    ],
    ssh: true,
  });
  // what is tested is the device tools, not the verification's settle after a change: OSPF's
  // flooding wait (verify_quiet, see changeset-checks-lab) is off
  ctx = ctxFor(settingsWith({ verify_quiet: 0 }), lab.topology());
});

afterAll(async () => {
  if (ctx) closePool(ctx);
  await lab?.stop();
});

/** Running-config style (indented) lines, the PC LANs included so r1 learns PC2's LAN. */
function ospfLines(router: string): string[] {
  return ospfAreaZero(lab, router, { routers: ['r1', 'r2', 'r3'], networks: ['192.168.0.0/16'], indent: ' ', quickFlooding: true });
}

describe('device tools on real FRR and VPCS', () => {
  it('exports the three device tools with their risks', () => {
    expect(devicesTools.map((t) => [t.name, t.risk])).toEqual([
      ['execute_multiple_device_commands', 'read'],
      ['execute_multiple_device_config_commands', 'config'],
      ['execute_vpcs_commands', 'config'],
    ]);
  });

  it('runs read commands on three routers over telnet in parallel', async () => {
    const out = await runTool(
      executeMultipleDeviceCommands,
      { device_configs: ['r1', 'r2', 'r3'].map((d) => ({ device_name: d, commands: ['show ip route', 'show interface brief'] })) },
      ctx,
    );
    expect(out.status).toBe('success');
    expect(out.devices).toHaveLength(3);
    for (const d of out.devices) {
      expect(d.status).toBe('success');
      expect(d.transport).toBe('telnet');
      expect(d.platform).toBe('frr');
      expect(d.results.map((r: any) => r.status)).toEqual(['success', 'success']);
      // Output is clean: no echo, no prompt, no CR, no ANSI.
      expect(d.results[0].output).not.toMatch(/\r|\x1b|show ip route|r\d# /);
    }
    const r1 = out.devices[0].results;
    expect(r1[0].output).toContain('C>* 10.0.1.0/24 is directly connected, eth0');
    expect(r1[1].output).toMatch(/eth1\s+up\s+default\s+10\.0\.3\.1\/24/);
  });

  it('reuses pooled sessions across tool calls', async () => {
    const pool = ctx.services.get(POOL_SERVICE_KEY) as DevicePool;
    expect(pool.size).toBe(3);
    const out = await runCommands(ctx, { r2: ['show version'] });
    expect(out.devices[0].results[0].output).toContain('FRRouting 8.4.4 (r2)');
    expect(pool.size).toBe(3);
  });

  it('reports the FRR error line of a bad command and keeps the others', async () => {
    const out = await runCommands(ctx, { r1: ['show ip bogus', 'show ip route summary'] });
    const d = out.devices[0];
    expect(d.status).toBe('partial');
    expect(d.results[0].status).toBe('error');
    expect(d.results[0].error).toMatch(/^% (Unknown command|Invalid input)/);
    expect(d.results[1].status).toBe('success');
    expect(d.results[1].output).toMatch(/connected\s+\d+/);
  });

  it('blocks forbidden and non-read commands without sending them', async () => {
    const out = await runCommands(ctx, { r1: ['debug ospf event', 'DEB ospf ism', 'configure terminal', 'show debugging'] });
    const d = out.devices[0];
    expect(d.blocked).toEqual(['debug ospf event', 'DEB ospf ism', 'configure terminal']);
    expect(d.results.map((r: any) => r.status)).toEqual(['blocked', 'blocked', 'blocked', 'success']);
    expect(d.results[0].error).toContain('forbidden command "debug"');
    expect(d.results[2].error).toContain('not a read-only command');
    expect(d.status).toBe('partial');
    // Never reached the router: OSPF debugging is still off.
    expect(lab.vtysh('r1', 'show debugging')).not.toMatch(/OSPF ISM|OSPF event/i);
    const all = await runCommands(ctx, { r2: ['reload'] });
    expect(all.devices[0].status).toBe('error');
    expect(all.devices[0].error).toContain('every command was blocked');
  });

  it('sends each line of a multi-line entry as its own command, filtered on its own; never a control character', async () => {
    // a read call smuggling configuration after a show line, and Ctrl-U erasing the "show " the filters saw
    const out = await runCommands(ctx, {
      r3: ['show version\nconfigure terminal\r\nhostname HACKED', 'show \u0015write memory', 'show\tip route'],
    });
    const d = out.devices[0];
    expect(d.results.map((r: any) => [r.command, r.status])).toEqual([
      ['show version', 'success'],
      ['configure terminal', 'blocked'],
      ['hostname HACKED', 'blocked'],
      ['show \u0015write memory', 'blocked'],
      ['show\tip route', 'blocked'],
    ]);
    expect(d.results[3].error).toBe('blocked: control character U+0015 in the command (a command is one line of plain text); not sent');
    expect(d.results[4].error).toContain('control character U+0009');
    expect(lab.vtysh('r3', 'show running-config')).toMatch(/^hostname r3$/m);

    // a configuration entry holding several lines is applied line by line; a forbidden line among them is refused, also behind `do`
    const cfg = await runTool(
      executeMultipleDeviceConfigCommands,
      {
        device_configs: [
          { device_name: 'r3', config_commands: ['interface lo\n description two-lines-in-one-entry', 'reload', 'do debug ospf event'] },
        ],
      },
      ctx,
    );
    expect(cfg.devices[0].results.map((r: any) => [r.command, r.status])).toEqual([
      ['interface lo', 'success'],
      [' description two-lines-in-one-entry', 'success'],
      ['reload', 'blocked'],
      ['do debug ospf event', 'blocked'],
    ]);
    expect(lab.vtysh('r3', 'show debugging')).not.toMatch(/OSPF event/i);
    expect(lab.vtysh('r3', 'show running-config')).toContain(' description two-lines-in-one-entry');
  });

  it('fails one unknown device without hiding the others', async () => {
    const out = await runCommands(ctx, { r9: ['show version'], R3: ['show version'] });
    expect(out.status).toBe('partial');
    expect(out.devices[0]).toMatchObject({ device_name: 'r9', status: 'error' });
    expect(out.devices[0].error).toContain('no node named "r9"');
    expect(out.devices[1]).toMatchObject({ device_name: 'r3', status: 'success' });
  });

  it('configures OSPF (point-to-point) on three routers and reaches Full adjacencies with learned routes', async () => {
    const out = await runTool(
      executeMultipleDeviceConfigCommands,
      { device_configs: ['r1', 'r2', 'r3'].map((r) => ({ device_name: r, config_commands: ospfLines(r) })) },
      ctx,
    );
    expect(out.status).toBe('success');
    for (const d of out.devices) {
      expect(d.results.every((r: any) => r.status === 'success')).toBe(true);
      expect(d.results).toHaveLength(ospfLines(d.device_name).length);
    }
    // Back in exec mode after the batch: a show command works on the same console.
    const deadline = Date.now() + 45_000;
    let neighbors: any;
    for (;;) {
      neighbors = await runTool(
        executeMultipleDeviceCommands,
        { device_configs: ['r1', 'r2', 'r3'].map((r) => ({ device_name: r, commands: ['show ip ospf neighbor'] })) },
        ctx,
      );
      const full = neighbors.devices.map((d: any) => (d.results[0].output.match(/Full\//g) ?? []).length);
      if (full.every((n: number) => n === 2)) break;
      if (Date.now() > deadline) throw new Error(`OSPF did not converge: ${JSON.stringify(neighbors)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(neighbors.devices[0].results[0].output).toMatch(/10\.255\.255\.2\s+1\s+Full\/-/);
    // r1 learns the r2–r3 link and PC2's LAN behind r3.
    const deadlineRoutes = Date.now() + 20_000;
    let routes = '';
    while (Date.now() < deadlineRoutes) {
      const r = await runCommands(ctx, { r1: ['show ip route ospf'] });
      routes = r.devices[0].results[0].output;
      if (/O>\* 10\.0\.2\.0\/24/.test(routes) && /O>\* 192\.168\.2\.0\/24 \[110\/\d+\] via 10\.0\.3\.2/.test(routes)) break;
      await new Promise((res) => setTimeout(res, 300));
    }
    expect(routes).toMatch(/O>\* 10\.0\.2\.0\/24/);
    expect(routes).toMatch(/O>\* 192\.168\.2\.0\/24 \[110\/\d+\] via 10\.0\.3\.2, eth1/);
    expect(lab.vtysh('r2', 'show running-config')).toContain('ip ospf network point-to-point');
  }, 90_000);

  it('stops config at the first error unless continue_on_error, and returns to exec mode', async () => {
    const lines = ['interface eth0', ' ip ospf cost notanumber', ' description set-after-error'];
    const stop = await runTool(
      executeMultipleDeviceConfigCommands,
      { device_configs: [{ device_name: 'r2', config_commands: lines }] },
      ctx,
    );
    const d = stop.devices[0];
    expect(d.status).toBe('partial');
    expect(d.results.map((r: any) => r.status)).toEqual(['success', 'error', 'aborted']);
    expect(d.results[1].error).toMatch(/^%/);
    expect(d.results[2].error).toContain('not sent');
    expect(lab.vtysh('r2', 'show running-config')).not.toContain('set-after-error');

    const cont = await runTool(
      executeMultipleDeviceConfigCommands,
      { device_configs: [{ device_name: 'r2', config_commands: lines }], continue_on_error: true },
      ctx,
    );
    expect(cont.devices[0].results.map((r: any) => r.status)).toEqual(['success', 'error', 'success']);
    expect(lab.vtysh('r2', 'show running-config')).toContain('description set-after-error');
    // The console is back at `r2# `: an exec command runs as such.
    const show = await runCommands(ctx, { r2: ['show interface eth0'] });
    expect(show.devices[0].results[0].output).toContain('Description: set-after-error');
  });

  it('sets VPCS addresses and pings across the routers', async () => {
    const [pc1, pc2] = lab.pcs;
    const set = await runTool(
      executeVpcsCommands,
      {
        device_configs: [
          { device_name: 'PC1', commands: [`ip ${pc1!.address} ${pc1!.gateway}`, 'show ip'] },
          { device_name: 'PC2', commands: [`ip ${pc2!.address} ${pc2!.gateway}`, 'show ip'] },
        ],
      },
      ctx,
    );
    expect(set.status).toBe('success');
    expect(set.devices[0].platform).toBe('vpcs');
    expect(set.devices[0].results[0].output).toContain('PC1 : 192.168.1.10 255.255.255.0 gateway 192.168.1.1');
    expect(set.devices[0].results[1].output).toMatch(/IP\/MASK\s+: 192\.168\.1\.10\/24/);
    expect(set.devices[1].results[1].output).toMatch(/GATEWAY\s+: 192\.168\.2\.1/);
    // Both PCs configured in parallel: about one `ip` (~3 s duplicate check), not two.
    expect(Math.max(...set.devices.map((d: any) => d.duration_ms))).toBeLessThan(6_000);

    const ping = await runTool(
      executeVpcsCommands,
      { device_configs: [{ device_name: 'PC1', commands: ['ping 192.168.2.10 -c 3'] }] },
      ctx,
    );
    expect(ping.devices[0].results[0].output).toMatch(/192\.168\.2\.10 icmp_seq=\d ttl=\d+ time=/);
    // The read tool accepts VPCS show/ping too.
    const read = await runCommands(ctx, { PC2: ['show ip', 'ip 1.2.3.4/24'] });
    expect(read.devices[0].results.map((r: any) => r.status)).toEqual(['success', 'blocked']);
    // VPCS tool refuses routers.
    const wrong = await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'r1', commands: ['show ip'] }] }, ctx);
    expect(wrong.devices[0].status).toBe('error');
    expect(wrong.devices[0].error).toContain('not a VPCS node');
  }, 30_000);

  it('runs commands over SSH with key and with password auth', async () => {
    const ssh = lab.ssh!;
    const port = lab.device('r1').sshPort!;
    const keyCtx = ctxFor(
      settingsWith({
        devices: { r1: { transport: 'ssh', host: '127.0.0.1', port, username: ssh.username, key_file: ssh.privateKeyPath } },
      }),
      lab.topology(),
    );
    try {
      const out = await runCommands(keyCtx, { r1: ['show version', 'show ip ospf neighbor'] });
      const d = out.devices[0];
      expect(d).toMatchObject({ status: 'success', transport: 'ssh' });
      expect(d.results[0].output).toContain('FRRouting 8.4.4 (r1)');
      expect(d.results[1].output).toContain('Full/-');
      expect(d.results[1].output).not.toMatch(/r1# /);
    } finally {
      closePool(keyCtx);
    }
    process.env[DEVICE_PASSWORD_ENV] = ssh.password;
    const pwCtx = ctxFor(
      settingsWith({ devices: { r3: { transport: 'ssh', host: '127.0.0.1', port: lab.device('r3').sshPort!, username: ssh.username } } }),
      lab.topology(),
    );
    try {
      const out = await runTool(
        executeMultipleDeviceConfigCommands,
        { device_configs: [{ device_name: 'r3', config_commands: ['interface lo', ' description via-ssh'] }] },
        pwCtx,
      );
      expect(out.devices[0]).toMatchObject({ status: 'success', transport: 'ssh' });
      expect(lab.vtysh('r3', 'show running-config')).toContain('description via-ssh');
    } finally {
      delete process.env[DEVICE_PASSWORD_ENV];
      closePool(pwCtx);
    }
    // Wrong key material: a clear per-device failure.
    const badCtx = ctxFor(
      settingsWith({
        devices: {
          r2: {
            transport: 'ssh',
            host: '127.0.0.1',
            port: lab.device('r2').sshPort!,
            username: ssh.username,
            key_file: '/nonexistent/key',
          },
        },
      }),
      lab.topology(),
    );
    const bad = await runCommands(badCtx, { r2: ['show version'] });
    expect(bad.devices[0].status).toBe('error');
    expect(bad.devices[0].error).toContain('key_file');
  }, 30_000);
});
