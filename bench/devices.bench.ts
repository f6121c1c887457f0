/**
 * Device console speed on the real lab (test/lab), median of 20, all in one run:
 *
 * - `show ip route` on one FRR router over its telnet console: ours (pooled
 *   session) vs a raw socket loop (write the command, read until the prompt:
 *   the device's own limit) vs Netmiko 2.4.2 (`cisco_ios_telnet`) with
 *   fast_cli=True and with its default. Targets: ours <= 1.5x raw, <= 0.2x Netmiko fast_cli.
 * - session open (connect, wake, prompt found, paging off): ours vs Netmiko's
 *   connect (3 samples: each takes seconds). Target <= 0.05x.
 * - fan-out: one show command on 1 vs 10 vs 20 routers through the engine with
 *   warm sessions (target 20 <= 1.5x one), plus a cold row (connect included).
 * - VPCS `show ip`: ours vs the original's fixed 5 s sleep per command.
 *
 * Needs root and the lab packages (frr, vpcs, socat) plus python3-netmiko.
 * Netmiko talks to its own router (it sends `exit` on disconnect).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { settingsSchema } from '../src/config/schema.js';
import { runDeviceJobs } from '../src/devices/engine.js';
import { DevicePool } from '../src/devices/pool.js';
import { DeviceSession } from '../src/devices/session.js';
import { resolveTarget } from '../src/devices/target.js';
import { TelnetTransport } from '../src/devices/telnet.js';
import { startLab } from '../test/lab/lab.js';
import { fmtMs, median, type BenchTable } from './table.js';

const N = 20;
const NETMIKO_CONNECTS = 3;
const PY = '/usr/bin/python3'; // Debian's python3 has python3-netmiko

const NETMIKO = `
import json, sys, time, logging
logging.disable(logging.CRITICAL)
from netmiko import ConnectHandler
port, n, connects = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dev = dict(device_type='cisco_ios_telnet', host='127.0.0.1', port=port, username='', password='')
out = {'connect': [], 'fast': [], 'default': []}
def timed(c, key):
    c.send_command('show ip route')
    for _ in range(n):
        t = time.perf_counter(); r = c.send_command('show ip route'); out[key].append((time.perf_counter() - t) * 1000)
        assert 'directly connected' in r, r
for i in range(connects):
    t = time.perf_counter(); c = ConnectHandler(**dev); out['connect'].append((time.perf_counter() - t) * 1000)
    if i < connects - 1: c.disconnect()
timed(c, 'default')
c.disconnect()
c = ConnectHandler(fast_cli=True, **dev)
timed(c, 'fast')
c.disconnect()
print(json.dumps(out))
`;

async function rawLoop(port: number, prompt: string): Promise<number[]> {
  const sock = net.connect(port, '127.0.0.1');
  sock.setNoDelay(true);
  await new Promise((r) => sock.once('connect', r));
  let buf = '';
  let wake: (() => void) | null = null;
  sock.on('data', (d) => {
    buf += d.toString('latin1');
    wake?.();
  });
  const until = (s: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (buf.endsWith(s)) {
          wake = null;
          resolve();
        }
      };
      wake = check;
      check();
    });
  sock.write('\r\n');
  await until(prompt);
  // Same console state as our session: paging off (the lab pipes output through a pager otherwise).
  buf = '';
  sock.write('terminal length 0\r\n');
  await until(`\r\n${prompt}`);
  const times: number[] = [];
  for (let i = 0; i <= N; i++) {
    buf = '';
    const t = performance.now();
    sock.write('show ip route\r\n');
    await until(`\r\n${prompt}`);
    if (i > 0) times.push(performance.now() - t);
  }
  sock.destroy();
  return times;
}

/** The device floor for a fan-out: N raw sockets, command written to all at once, until every prompt is back. */
async function rawParallel(ports: { port: number; prompt: string }[], reps: number): Promise<number> {
  const conns = await Promise.all(
    ports.map(async ({ port, prompt }) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.setNoDelay(true);
      await new Promise((r) => sock.once('connect', r));
      const c = { sock, prompt, buf: '', wake: null as (() => void) | null };
      sock.on('data', (d) => {
        c.buf += d.toString('latin1');
        c.wake?.();
      });
      return c;
    }),
  );
  type C = (typeof conns)[number];
  const send = (c: C, line: string, end: string) =>
    new Promise<void>((resolve) => {
      c.buf = '';
      c.wake = () => {
        if (c.buf.endsWith(end)) {
          c.wake = null;
          resolve();
        }
      };
      c.sock.write(line);
    });
  await Promise.all(conns.map((c) => send(c, '\r\n', c.prompt)));
  await Promise.all(conns.map((c) => send(c, 'terminal length 0\r\n', `\r\n${c.prompt}`)));
  const times: number[] = [];
  for (let i = 0; i <= reps; i++) {
    const t = performance.now();
    await Promise.all(conns.map((c) => send(c, 'show ip route\r\n', `\r\n${c.prompt}`)));
    if (i > 0) times.push(performance.now() - t);
  }
  for (const c of conns) c.sock.destroy();
  return median(times);
}

const row = (what: string, ours: number, base: number, baseName: string, target?: number): (string | number)[] => {
  const ratio = ours / base;
  return [
    what,
    fmtMs(ours),
    `${fmtMs(base)} (${baseName})`,
    `${ratio.toFixed(3)}x`,
    target === undefined ? '-' : `<= ${target}x`,
    target === undefined ? '-' : ratio <= target ? 'yes' : 'NO',
  ];
};

export async function run(): Promise<BenchTable> {
  const routers = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
  const lab = await startLab({ routers, links: [['r1', 'r2']], pcs: [{ name: 'PC1', router: 'r1' }] });
  let pcLab: Awaited<ReturnType<typeof startLab>> | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-'));
  try {
    const settings = settingsSchema.parse({});
    const open = async (port: number, platform?: 'frr' | 'vpcs') =>
      DeviceSession.open(await TelnetTransport.connect({ host: '127.0.0.1', port, timeoutMs: 3_000 }), {
        ...(platform ? { platform } : {}),
        openTimeoutMs: 5_000,
        commandTimeoutMs: 10_000,
        confirmAllow: [],
      });

    // 1. show ip route: ours vs raw
    const r1 = lab.device('r1').consolePort;
    const raw = await rawLoop(r1, 'r1# ');
    const s = await open(r1, 'frr');
    const ours: number[] = [];
    for (let i = 0; i <= N; i++) {
      const t = performance.now();
      const r = await s.run('show ip route');
      if (r.status !== 'success' || !r.output.includes('directly connected')) throw new Error(`bad output: ${JSON.stringify(r)}`);
      if (i > 0) ours.push(performance.now() - t);
    }
    s.close();

    // 2. session open: ours
    const opens: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      const o = await open(r1);
      opens.push(performance.now() - t);
      o.close();
    }

    // 3. Netmiko on its own router.
    const script = join(dir, 'netmiko_bench.py');
    writeFileSync(script, NETMIKO);
    const nm = spawnSync(PY, [script, String(lab.device('r2').consolePort), String(N), String(NETMIKO_CONNECTS)], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (nm.status !== 0)
      throw new Error(
        `netmiko run failed (python3-netmiko installed?): ${(nm.stderr || nm.stdout).trim().split('\n').slice(-3).join(' | ')}`,
      );
    const netmiko = JSON.parse(nm.stdout.trim().split('\n').pop()!) as { connect: number[]; fast: number[]; default: number[] };

    // 4. fan-out through the engine (the tools' path), warm and cold.
    const topology = lab.topology();
    const jobsFor = (n: number) =>
      routers.slice(0, n).map((r) => ({ device_name: r, commands: ['show ip route'], resolved: resolveTarget(topology, r, settings) }));
    const fan = async (n: number, cold: boolean) => {
      const times: number[] = [];
      let pool = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
      const reps = cold ? 5 : N;
      if (!cold) await runDeviceJobs(jobsFor(n), { mode: 'read', settings, pool });
      for (let i = 0; i < reps; i++) {
        if (cold) {
          pool.closeAll();
          pool = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
        }
        const t = performance.now();
        const res = await runDeviceJobs(jobsFor(n), { mode: 'read', settings, pool });
        times.push(performance.now() - t);
        const bad = res.filter((d) => d.status !== 'success');
        if (bad.length > 0) throw new Error(`fan-out failed: ${JSON.stringify(bad[0])}`);
      }
      pool.closeAll();
      return median(times);
    };
    const fan1 = await fan(1, false);
    const fan10 = await fan(10, false);
    const fan20 = await fan(20, false);
    const cold1 = await fan(1, true);
    const cold20 = await fan(20, true);
    const floor20 = await rawParallel(
      routers.map((r) => ({ port: lab.device(r).consolePort, prompt: `${r}# ` })),
      N,
    );

    // 5. VPCS show ip
    const pc = await open(lab.device('PC1').consolePort, 'vpcs');
    const vp: number[] = [];
    for (let i = 0; i <= N; i++) {
      const t = performance.now();
      const r = await pc.run('show ip');
      if (!r.output.includes('NAME        : PC1')) throw new Error(`bad VPCS output: ${JSON.stringify(r)}`);
      if (i > 0) vp.push(performance.now() - t);
    }
    pc.close();
    await lab.stop();

    // 6. VPCS fan-out on a lab of its own (VPCS polls its sockets and costs CPU even when idle).
    const pcs = Array.from({ length: 20 }, (_, i) => ({ name: `PC${i + 1}`, router: 'r1' }));
    pcLab = await startLab({ routers: ['r1'], links: [], pcs });
    const pcTopology = pcLab.topology();
    const pcJobs = (n: number) =>
      pcs.slice(0, n).map((p) => ({ device_name: p.name, commands: ['show ip'], resolved: resolveTarget(pcTopology, p.name, settings) }));
    const fanPc = async (n: number) => {
      const pool = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
      await runDeviceJobs(pcJobs(n), { mode: 'vpcs', settings, pool });
      const times: number[] = [];
      for (let i = 0; i < N; i++) {
        const t = performance.now();
        const res = await runDeviceJobs(pcJobs(n), { mode: 'vpcs', settings, pool });
        times.push(performance.now() - t);
        if (res.some((d) => d.status !== 'success'))
          throw new Error(`VPCS fan-out failed: ${JSON.stringify(res.find((d) => d.status !== 'success'))}`);
      }
      pool.closeAll();
      return median(times);
    };
    const pc1 = await fanPc(1);
    const pc10 = await fanPc(10);
    const pc20 = await fanPc(20);

    const mOurs = median(ours);
    return {
      title: 'Device consoles (real FRR 8.4 vtysh / VPCS behind GNS3-like telnet consoles, median of 20)',
      columns: ['measurement', 'ours', 'baseline', 'ours/baseline', 'target', 'met'],
      rows: [
        row('show ip route, telnet', mOurs, median(raw), 'raw socket loop', 1.5),
        row('show ip route, telnet', mOurs, median(netmiko.fast), 'Netmiko 2.4.2 fast_cli=True', 0.2),
        row('show ip route, telnet', mOurs, median(netmiko.default), 'Netmiko 2.4.2 default'),
        row(
          'session open (connect+wake+prompt+paging off)',
          median(opens),
          median(netmiko.connect),
          `Netmiko connect, median of ${NETMIKO_CONNECTS}`,
          0.05,
        ),
        row('fan-out VPCS show ip, 10 PCs (warm)', pc10, pc1, '1 PC'),
        row('fan-out VPCS show ip, 20 PCs (warm)', pc20, pc1, '1 PC', 1.5),
        row('fan-out show ip route, 10 routers (warm)', fan10, fan1, '1 router'),
        row('fan-out show ip route, 20 routers (warm)', fan20, fan1, '1 router', 1.5),
        row('fan-out show ip route, 20 routers (warm)', fan20, floor20, '20 raw sockets in parallel (device floor)', 1.5),
        row('fan-out incl. connect, 20 routers (cold, median of 5)', cold20, cold1, '1 router cold'),
        row('VPCS show ip', median(vp), 5_000, 'fixed 5 s sleep per command'),
      ],
      notes: [
        'FRR show ip route is ~1 ms of CPU across vtysh, zebra and the console pty; 20 at once on this 2-core machine are bound by that CPU ' +
          '(see the raw-parallel floor), not by the engine. VPCS fan-out runs on a lab of its own.',
        `raw socket loop = write the command, read until "\\r\\nr1# " (the device's own limit); Netmiko runs in /usr/bin/python3 against a second router of the same lab.`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await lab.stop();
    await pcLab?.stop();
  }
}
