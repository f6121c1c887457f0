/**
 * What goes wrong on real consoles: a real --More-- pager and a console that
 * never answers while real FRR routers answer. The faults that need no lab
 * (scripted consoles only) are in console-faults.test.ts.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { DeviceSession, type SessionOptions } from '../../src/devices/session.js';
import { TelnetTransport } from '../../src/devices/telnet.js';
import type { Topology } from '../../src/gns3/types.js';
import { closePool, ctxFor, runCommands, extraNode, fakeConsole, runTool, settingsWith, type FakeConsole } from './helpers.js';

let lab: Lab;
const fakes: FakeConsole[] = [];

beforeAll(async () => {
  lab = await startLab({
    routers: ['r1', 'r2', 'r3'],
    links: [
      ['r1', 'r2'],
      ['r1', 'r3'],
    ],
    pager: true,
  });
});

afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await lab?.stop();
});

async function track(f: Promise<FakeConsole>): Promise<FakeConsole> {
  const c = await f;
  fakes.push(c);
  return c;
}

function withNodes(...nodes: Topology['nodes']): Topology {
  const t = lab.topology();
  return { ...t, nodes: [...t.nodes, ...nodes] };
}

/**
 * A raw TCP client on lab router `router`'s console that typed `show interface` and waited for its pager;
 * `until(text)` waits for more output, both within 5 s of the connect (then it gives up quietly: callers assert).
 */
async function atPager(router: string) {
  const socket = net.connect(lab.device(router).consolePort, '127.0.0.1');
  const deadline = Date.now() + 5_000;
  const raw = {
    socket,
    seen: '',
    async until(text: string) {
      while (!raw.seen.includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    },
  };
  socket.on('data', (d) => (raw.seen += d.toString('latin1')));
  socket.write('\r\nshow interface\r\n');
  await raw.until('--More--');
  return raw;
}

/** A device session on lab router `router`'s console, with the timeouts these tests use. */
async function openConsole(router: string, over: Partial<SessionOptions> = {}): Promise<DeviceSession> {
  const transport = await TelnetTransport.connect({ host: '127.0.0.1', port: lab.device(router).consolePort, timeoutMs: 2_000 });
  return DeviceSession.open(transport, { openTimeoutMs: 3_000, commandTimeoutMs: 5_000, confirmAllow: [], ...over });
}

describe('paging', () => {
  it('reads through a real --More-- pager by pressing space', async () => {
    // Control: the console really pages.
    const raw = await atPager('r1');
    expect(raw.seen).toContain(' --More-- ');
    raw.seen = '';
    raw.socket.write('q');
    await raw.until('r1# ');
    raw.socket.destroy();

    const s = await openConsole('r1', { platform: 'frr', disablePaging: false });
    try {
      const r = await s.run('show interface');
      expect(r.status).toBe('success');
      expect(r.output).not.toMatch(/More|\x08/);
      for (const i of ['Interface eth0 is up', 'Interface eth1 is up', 'Interface lo is up']) expect(r.output).toContain(i);
      // Same text as vtysh prints without a pager (IPv6 link-locals come and go with DAD).
      const noV6 = (t: string) =>
        t
          .split('\n')
          .filter((l) => !l.includes('inet6'))
          .join('\n');
      expect(noV6(r.output)).toBe(
        noV6(
          lab
            .vtysh('r1', 'show interface')
            .replace(/\s+$/, '')
            .replace(/[ \t]+\n/g, '\n'),
        ),
      );
    } finally {
      s.close();
    }
  });

  it('recovers a console that a previous user left inside the pager', async () => {
    (await atPager('r2')).socket.destroy(); // walks away at --More--
    const s = await openConsole('r2');
    try {
      expect(s.prompt).toBe('r2# ');
      const r = await s.run('show version');
      expect(r.output).toMatch(/^FRRouting 8\.4\.4 \(r2\)/);
    } finally {
      s.close();
    }
  });

  it('disables paging when the tool opens a session (terminal length 0)', async () => {
    const ctx = ctxFor(settingsWith(), lab.topology());
    try {
      const out = await runCommands(ctx, { r1: ['show interface'] });
      expect(out.devices[0].results[0].output).toContain('Interface lo is up');
      expect(out.devices[0].results[0].output).not.toContain('More');
    } finally {
      closePool(ctx);
    }
  });
});

describe('faults', () => {
  it('a console that never answers times out while the other devices succeed', async () => {
    const silent = await track(fakeConsole('', () => '', { silent: true }));
    const ctx = ctxFor(settingsWith({ connect_timeout_ms: 1_500 }), withNodes(extraNode('mute', silent.port)));
    const t0 = Date.now();
    try {
      const out = await runTool(
        executeMultipleDeviceCommands,
        {
          device_configs: [
            { device_name: 'mute', commands: ['show version'] },
            ...['r1', 'r2', 'r3'].map((r) => ({ device_name: r, commands: ['show version'] })),
          ],
        },
        ctx,
      );
      const elapsed = Date.now() - t0;
      expect(out.status).toBe('partial');
      expect(out.devices[0].status).toBe('error');
      expect(out.devices[0].error).toContain('no prompt from the console within');
      for (const d of out.devices.slice(1)) {
        expect(d.status).toBe('success');
        expect(d.duration_ms).toBeLessThan(1_000);
      }
      expect(elapsed).toBeLessThan(3_000);
    } finally {
      closePool(ctx);
    }
  });
});
