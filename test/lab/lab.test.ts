/**
 * The lab harness itself: consoles behave like GNS3's (negotiation, one Enter
 * per line ending, one vtysh across connections), routers are wired as
 * documented, and stop() removes everything it started.
 */
import net from 'node:net';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startLab } from './lab.js';

async function session(port: number) {
  const s = net.connect(port, '127.0.0.1');
  let data = Buffer.alloc(0);
  s.on('data', (d) => (data = Buffer.concat([data, d])));
  await new Promise((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  const text = () => data.toString('latin1');
  return {
    raw: () => data,
    text,
    send: (t: string | Buffer) => s.write(t),
    async waitFor(re: RegExp, ms = 3_000) {
      const end = Date.now() + ms;
      while (!re.test(text())) {
        if (Date.now() > end) throw new Error(`timeout waiting for ${re}: ${JSON.stringify(text())}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    /** waits until nothing has arrived for `ms` (a console still printing its boot banner) */
    async quiet(ms = 300) {
      let seen = -1;
      while (seen !== data.length) {
        seen = data.length;
        await new Promise((r) => setTimeout(r, ms));
      }
    },
    clear: () => (data = Buffer.alloc(0)),
    close: () => s.destroy(),
  };
}

describe('lab harness', () => {
  it('starts routers with GNS3-like consoles and tears everything down', async () => {
    const lab = await startLab({ routers: ['r1', 'r2'], links: [['r1', 'r2']], pcs: [{ name: 'PC1', router: 'r2' }] });
    let stopped = false;
    try {
      expect(lab.links[0]).toMatchObject({ a: 'r1', b: 'r2', aInterface: 'eth0', bInterface: 'eth0', aAddress: '10.0.1.1/24' });
      expect(lab.pcs[0]).toMatchObject({ router: 'r2', routerInterface: 'eth1', address: '192.168.1.10/24', gateway: '192.168.1.1' });
      expect(lab.vtysh('r2', 'show interface brief')).toMatch(/eth1\s+up\s+default\s+192\.168\.1\.1\/24/);
      expect(lab.topology().nodes.map((n) => [n.name, n.node_type, n.console])).toEqual([
        ['r1', 'qemu', lab.device('r1').consolePort],
        ['r2', 'qemu', lab.device('r2').consolePort],
        ['PC1', 'vpcs', lab.device('PC1').consolePort],
      ]);

      const c = await session(lab.device('r1').consolePort);
      await c.waitFor(/\xff\xfb\x01\xff\xfb\x03/);
      expect([...c.raw().subarray(0, 6)]).toEqual([255, 251, 1, 255, 251, 3]);
      // Nothing until Enter; then exactly one prompt per Enter whatever the line ending.
      c.send(Buffer.from([255, 253, 1, 255, 253, 3])); // client's DO ECHO / DO SGA are swallowed
      c.clear();
      c.send('\r\n');
      await c.waitFor(/r1# $/);
      // A vtysh still starting when we connected prints its banner and prompt too: let it finish.
      await c.quiet();
      for (const nl of ['\r\0', '\n', '\r']) {
        c.clear();
        c.send(`show version${nl}`);
        await c.waitFor(/FRRouting[\s\S]*r1# $/);
        await new Promise((r) => setTimeout(r, 100));
        expect(c.text().match(/r1# /g)).toHaveLength(1);
      }
      // One vtysh across connections: configuration mode survives a reconnect.
      c.send('configure terminal\r\n');
      await c.waitFor(/r1\(config\)# $/);
      c.close();
      const c2 = await session(lab.device('r1').consolePort);
      c2.send('\r\n');
      await c2.waitFor(/r1\(config\)# $/);
      c2.send('end\r\n');
      await c2.waitFor(/r1# $/);
      c2.close();

      // VPCS speaks telnet itself and is named after the PC.
      const p = await session(lab.device('PC1').consolePort);
      p.send('\r\n');
      await p.waitFor(/PC1> $/, 5_000);
      p.close();

      const netns = lab.devices.map((d) => d.netns);
      await lab.stop();
      stopped = true;
      await lab.stop(); // idempotent
      const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
      for (const ns of netns) expect(left).not.toContain(ns);
      await expect(session(lab.device('r1').consolePort)).rejects.toThrow(/ECONNREFUSED/);
      const procs = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
      expect(procs).not.toContain(lab.id);
      expect(existsSync(`/run/netns/${netns[0]}`)).toBe(false);
    } finally {
      if (!stopped) await lab.stop();
    }
  });

  it('runs sshd per router with vtysh as the shell', async () => {
    const lab = await startLab({ routers: ['edge'], links: [], ssh: true });
    try {
      const { Client } = await import('ssh2');
      const c = new Client();
      await new Promise<void>((res, rej) =>
        c
          .on('ready', () => res())
          .on('error', rej)
          .connect({ host: '127.0.0.1', port: lab.device('edge').sshPort!, username: lab.ssh!.username, password: lab.ssh!.password }),
      );
      const out = await new Promise<string>((res) =>
        c.shell({ term: 'vt100' }, (err, st) => {
          if (err) throw err;
          let o = '';
          st.on('data', (d: Buffer) => {
            o += d.toString();
            if (/edge# [\s\S]*edge# $/.test(o)) res(o);
          });
          st.write('show version\n');
        }),
      );
      c.end();
      expect(out).toContain('FRRouting 8.4.4 (edge)');
    } finally {
      await lab.stop();
    }
  });
});
