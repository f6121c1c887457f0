/**
 * Console faults against small scripted consoles on loopback (no lab peer): a
 * command that never returns, a connection that drops mid-command, interactive
 * confirmations, aborts, the session deadline, nodes that cannot be reached,
 * and an output larger than the console buffer keeps (its real head and tail,
 * with the right omitted count).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { executeMultipleDeviceConfigCommands } from '../../src/tools/devices/config.js';
import type { Topology } from '../../src/gns3/types.js';
import { closePool, ctxFor, runCommands, extraNode, fakeConsole, runTool, settingsWith, type FakeConsole } from './helpers.js';

const fakes: FakeConsole[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

async function track(f: Promise<FakeConsole>): Promise<FakeConsole> {
  const c = await f;
  fakes.push(c);
  return c;
}

function withNodes(...nodes: Topology['nodes']): Topology {
  return { project_id: 'p1', project_name: 'p1', nodes, links: [] };
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

describe('console faults', () => {
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
      expect(d.results[0].error).toContain('session timeout (1000 ms) reached during this line');
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

  it('a 20 MB output keeps its real head and tail, and the omitted count is the true one', async () => {
    const lines = Array.from({ length: 400_000 }, (_, i) => `line ${String(i).padStart(7, '0')} ${'x'.repeat(40)}`);
    const huge = lines.join('\r\n') + '\r\n';
    const chatty = await track(
      fakeConsole('R4# ', (line) => (line.startsWith('show huge') ? huge : line.startsWith('show clock') ? '10:00\r\n' : '')),
    );
    const ctx = ctxFor(
      // what is tested is the cut, not the speed: a loaded 2-core machine needs well over 30 s to stream 20 MB
      settingsWith({ command_timeout_ms: 90_000 }),
      withNodes(extraNode('R4', chatty.port, { tags: ['device_type:cisco_ios_telnet'] })),
    );
    try {
      const out = await runCommands(ctx, { R4: ['show huge', 'show clock'] });
      const [big, after] = out.devices[0].results;
      expect(big.status).toBe('success');
      const expected = lines.join('\n');
      expect(expected.length).toBeGreaterThan(20_000_000);
      const marker = /\n…\[output truncated: (\d+) of (\d+) characters omitted[^\n]*\n/.exec(big.output);
      expect(marker).not.toBeNull();
      expect(Number(marker![2])).toBe(expected.length);
      const head = big.output.slice(0, marker!.index);
      const tail = big.output.slice(marker!.index + marker![0].length);
      expect(head.startsWith('line 0000000 ')).toBe(true);
      expect(expected.startsWith(head)).toBe(true);
      expect(expected.endsWith(tail)).toBe(true);
      expect(Number(marker![1])).toBe(expected.length - head.length - tail.length);
      expect(big).not.toHaveProperty('omitted_chars');
      // the console is still in step: the next command gets its own output
      expect(after).toMatchObject({ status: 'success', output: '10:00' });
    } finally {
      closePool(ctx);
    }
  }, 120_000);

  it("sixteen devices at once on one request's signal print no listener warning on the user's terminal", async () => {
    const consoles = await Promise.all(Array.from({ length: 16 }, () => track(iosLike('R5#'))));
    const nodes = consoles.map((c, i) => extraNode(`R${100 + i}`, c.port, { tags: ['device_type:cisco_ios_telnet'] }));
    const ctx = ctxFor(
      settingsWith({ device_concurrency: 16, connect_timeout_ms: 20_000, command_timeout_ms: 20_000 }),
      withNodes(...nodes),
    );
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const out = await runCommands(ctx, Object.fromEntries(nodes.map((n) => [n.name, ['show clock']])));
      expect(out.devices.map((d: { status: string }) => d.status)).toEqual(nodes.map(() => 'success'));
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      closePool(ctx);
    }
  });
});
