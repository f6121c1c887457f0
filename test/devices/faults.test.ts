/**
 * What goes wrong on real consoles: a real --More-- pager, a console that never
 * answers, a command that never returns, a connection that drops mid-command,
 * interactive confirmations, aborts and the session deadline. Real FRR for the
 * pager and the healthy devices; small scripted consoles for the faults.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { executeMultipleDeviceConfigCommands } from '../../src/tools/devices/config.js';
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

/** An IOS-like console: `show clock` answers, `show tech` hangs until Ctrl-C, `show run` drops the line. */
function iosLike(prompt = 'R9#') {
  return fakeConsole(prompt + ' ', (line, sock) => {
    if (line === '') return '';
    if (line.startsWith('show clock')) return '*10:00:00.000 UTC Wed Dec 2 2026\r\n';
    if (line.startsWith('terminal')) return '';
    if (line.startsWith('show tech')) {
      sock.once('data', (d: Buffer) => {
        if (d.includes(3)) sock.write('^C\r\n' + prompt + ' ');
      });
      return null;
    }
    if (line.startsWith('show run')) {
      sock.write('Building configuration...\r\n\r\nCurrent configuration : 1234 bytes\r\n!\r\nversion 15.');
      setTimeout(() => sock.destroy(), 20);
      return null;
    }
    return `% Invalid input detected at '^' marker.\r\n`;
  });
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

  it('a command that never returns is interrupted with Ctrl-C and the session goes on', async () => {
    const ios = await track(iosLike());
    const ctx = ctxFor(
      settingsWith({ command_timeout_ms: 700 }),
      withNodes(extraNode('R9', ios.port, { tags: ['device_type:cisco_ios_telnet'] })),
    );
    try {
      const out = await runCommands(ctx, { R9: ['show tech-support', 'show clock', 'show bogus'] });
      const d = out.devices[0];
      expect(d.platform).toBe('cisco_ios');
      expect(d.results[0]).toMatchObject({ status: 'timeout' });
      expect(d.results[0].error).toContain('interrupted with Ctrl-C');
      expect(d.results[0].duration_ms).toBeGreaterThanOrEqual(650);
      expect(d.results[1]).toMatchObject({ status: 'success', output: '*10:00:00.000 UTC Wed Dec 2 2026' });
      expect(d.results[2]).toMatchObject({ status: 'error', error: "% Invalid input detected at '^' marker." });
      expect(d.status).toBe('partial');
      expect(ios.received).toContain('terminal length 0');
    } finally {
      closePool(ctx);
    }
  });

  it('a console that drops mid-command is reported, dropped from the pool and reconnected next time', async () => {
    const ios = await track(iosLike('R8#'));
    const ctx = ctxFor(settingsWith(), withNodes(extraNode('R8', ios.port, { template_name: 'Cisco IOSv' })));
    try {
      const out = await runCommands(ctx, { R8: ['show clock', 'show running-config', 'show clock'] });
      const d = out.devices[0];
      expect(d.results.map((r: any) => r.status)).toEqual(['success', 'error', 'error']);
      expect(d.results[1].error).toContain('connection lost during the command');
      expect(d.results[1].output).toContain('Current configuration : 1234 bytes');
      expect(d.results[2].error).toContain('not sent');
      expect(d.error).toContain('session lost');
      const again = await runCommands(ctx, { R8: ['show clock'] });
      expect(again.devices[0].status).toBe('success');
      expect(ios.connections).toBe(2);
    } finally {
      closePool(ctx);
    }
  });

  it('answers confirmations only for allow-listed commands', async () => {
    const asks = await track(
      fakeConsole('R7(config)# ', (line, sock, st) => {
        if (st.pending) {
          const q = st.pending;
          st.pending = undefined;
          if (q === 'confirm') return line === '' ? 'Cleared\r\n' : '% Aborted\r\n';
          return /^y(es)?$/.test(line) ? 'Done\r\n' : '% Not done\r\n';
        }
        if (line.startsWith('clear counters')) {
          st.pending = 'confirm';
          sock.write('Clear "show interface" counters on all interfaces [confirm]');
          return null;
        }
        if (line.startsWith('crypto key zeroize')) {
          st.pending = 'yesno';
          sock.write('Do you really want to remove these keys? [yes/no]: ');
          return null;
        }
        return '';
      }),
    );
    const topo = withNodes(extraNode('R7', asks.port, { tags: ['device_type:cisco_ios_telnet'] }));
    const deny = ctxFor(settingsWith({ confirm_allow: [] }), topo);
    try {
      const out = await runTool(
        executeMultipleDeviceConfigCommands,
        { device_configs: [{ device_name: 'R7', config_commands: ['clear counters', 'crypto key zeroize rsa'] }] },
        deny,
      );
      const d = out.devices[0];
      expect(d.results[0].status).toBe('aborted');
      expect(d.results[0].error).toContain('settings.confirm_allow');
      expect(d.results[0].output).toContain('% Aborted');
      expect(d.results[1].error).toContain('not sent');
    } finally {
      closePool(deny);
    }
    const allow = ctxFor(settingsWith({ confirm_allow: ['clear counters', 'crypto key zeroize'] }), topo);
    try {
      const out = await runTool(
        executeMultipleDeviceConfigCommands,
        { device_configs: [{ device_name: 'R7', config_commands: ['clear counters', 'crypto key zeroize rsa'] }] },
        allow,
      );
      const d = out.devices[0];
      expect(d.results.map((r: any) => r.status)).toEqual(['success', 'success']);
      expect(d.results[0].output).toContain('Cleared');
      expect(d.results[1].output).toContain('Done');
      expect(asks.received).toContain('yes');
    } finally {
      closePool(allow);
    }
  });

  it('ctx.signal aborts an in-flight command', async () => {
    const ios = await track(iosLike('R6#'));
    const ac = new AbortController();
    const ctx = ctxFor(settingsWith(), withNodes(extraNode('R6', ios.port, { tags: ['device_type:cisco_ios'] })), ac.signal);
    try {
      setTimeout(() => ac.abort(), 300);
      const t0 = Date.now();
      const out = await runCommands(ctx, { R6: ['show tech-support', 'show clock'] });
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(out.devices[0].results.map((r: any) => r.status)).toEqual(['aborted', 'aborted']);
    } finally {
      closePool(ctx);
    }
  });

  it('the session deadline bounds a device batch', async () => {
    const ios = await track(iosLike('R5#'));
    const ctx = ctxFor(
      settingsWith({ session_timeout_ms: 1_000, command_timeout_ms: 20_000 }),
      withNodes(extraNode('R5', ios.port, { tags: ['device_type:cisco_ios'] })),
    );
    try {
      const t0 = Date.now();
      const out = await runCommands(ctx, { R5: ['show tech-support', 'show clock'] });
      expect(Date.now() - t0).toBeLessThan(2_500);
      const d = out.devices[0];
      expect(d.results[0].status).toBe('timeout');
      expect(d.results[1].status).toBe('timeout');
      expect(d.results[1].error).toContain('session timeout');
    } finally {
      closePool(ctx);
    }
  });

  it('a stopped node or a non-telnet console is refused before connecting', async () => {
    const ctx = ctxFor(settingsWith(), withNodes(extraNode('off', 1, { status: 'stopped' }), extraNode('vnc', 2, { console_type: 'vnc' })));
    const out = await runCommands(ctx, { off: ['show clock'], vnc: ['show clock'] });
    expect(out.status).toBe('error');
    expect(out.devices[0].error).toContain('node off is stopped; start it first');
    expect(out.devices[1].error).toContain('vnc console, not telnet');
  });
});
