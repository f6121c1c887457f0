/**
 * Two network namespaces joined by a veth pair, real traffic between them and a real
 * dumpcap capture inside one namespace: the source of genuine pcaps for the
 * packet-analysis tests. Names include the pid so parallel runs never collide.
 * Needs root, iproute2 and dumpcap (Debian: wireshark-common, pulled in by tshark).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface VethLab {
  ns1: string;
  ns2: string;
  if1: string;
  ip1: string;
  ip2: string;
  /** capture on ns1's veth while `traffic` runs; stops after `seconds` or `packets` */
  capture(opts: { seconds?: number; packets?: number; signal?: AbortSignal }, traffic?: () => Promise<void>): Promise<Uint8Array>;
  /** a TCP exchange (handshake, 6 bytes of data, close) and one UDP datagram to a closed port */
  traffic(): Promise<void>;
  /** capture while `traffic` runs and until half a second after it ends (no fixed window:
   * a loaded machine that starts the traffic late still records all of it) */
  captureTraffic(signal?: AbortSignal): Promise<Uint8Array>;
  stop(): void;
}

let seq = 0;

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function startVethLab(): VethLab {
  if (process.getuid?.() !== 0) throw new Error('packet-analysis netns tests need root (network namespaces)');
  const tag = `${process.pid % 100000}${seq++}`;
  const ns1 = `gcs${tag}a`;
  const ns2 = `gcs${tag}b`;
  const if1 = `gv${tag}a`;
  const if2 = `gv${tag}b`;
  const net = 100 + ((process.pid + seq) % 150);
  const ip1 = `10.${net}.${seq % 250}.1`;
  const ip2 = `10.${net}.${seq % 250}.2`;
  const dir = mkdtempSync(join(tmpdir(), 'skills-netns-'));
  const cleanup = () => {
    for (const ns of [ns1, ns2])
      try {
        run('ip', ['netns', 'del', ns]);
      } catch {
        // already gone
      }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('ip', ['netns', 'add', ns1]);
    run('ip', ['netns', 'add', ns2]);
    run('ip', ['link', 'add', if1, 'type', 'veth', 'peer', 'name', if2]);
    run('ip', ['link', 'set', if1, 'netns', ns1]);
    run('ip', ['link', 'set', if2, 'netns', ns2]);
    for (const [ns, ifn, ip] of [
      [ns1, if1, ip1],
      [ns2, if2, ip2],
    ] as const) {
      // IPv6 off: no router solicitations or MLD reports, so packet counts are exact.
      run('ip', ['netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1']);
      run('ip', ['netns', 'exec', ns, 'sysctl', '-qw', `net.ipv6.conf.default.disable_ipv6=1`]);
      run('ip', ['-n', ns, 'addr', 'add', `${ip}/24`, 'dev', ifn]);
      run('ip', ['-n', ns, 'link', 'set', ifn, 'up']);
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  } catch (err) {
    cleanup();
    throw err;
  }

  const nodeIn = (ns: string, code: string) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('READY')) resolve(out);
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`node in ${ns} exited ${code}: ${err}`))));
    });

  async function traffic(): Promise<void> {
    // One connection per server; it exits afterwards so the next call can listen again.
    const server = nodeIn(
      ns2,
      `const s=require('net').createServer(c=>{c.end('hello\\n');s.close()});s.listen(8080,'${ip2}',()=>console.log('READY'));setTimeout(()=>process.exit(0),5000).unref()`,
    );
    await server;
    await nodeIn(
      ns1,
      `const s=require('net').connect(8080,'${ip2}');s.on('data',()=>{});s.on('end',()=>{s.end();const u=require('dgram').createSocket('udp4');u.send('x',9999,'${ip2}',()=>{u.close();setTimeout(()=>process.exit(0),200)})});`,
    );
  }

  let captures = 0;
  async function capture(opts: { seconds?: number; packets?: number; signal?: AbortSignal }, gen?: () => Promise<void>): Promise<Uint8Array> {
    const file = join(dir, `c${captures++}.pcap`);
    const args = ['netns', 'exec', ns1, 'dumpcap', '-P', '-i', if1, '-a', `duration:${Math.max(1, Math.ceil(opts.seconds ?? 10))}`, '-w', file];
    if (opts.packets) args.push('-c', String(opts.packets));
    const child = spawn('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const onAbort = () => child.kill('SIGTERM');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let stderr = '';
    const ready = new Promise<void>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('Capturing on')) resolve();
      });
    });
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    await Promise.race([ready, done]);
    if (gen) await gen();
    const code = await done;
    opts.signal?.removeEventListener('abort', onAbort);
    if (code !== 0 && !opts.signal?.aborted) throw new Error(`dumpcap exited ${code}: ${stderr}`);
    return new Uint8Array(readFileSync(file));
  }

  async function captureTraffic(signal?: AbortSignal): Promise<Uint8Array> {
    const stop = new AbortController();
    signal?.addEventListener('abort', () => stop.abort(), { once: true });
    return capture({ seconds: 60, signal: stop.signal }, async () => {
      await traffic();
      await new Promise((r) => setTimeout(r, 500));
      stop.abort();
    });
  }

  return { ns1, ns2, if1, ip1, ip2, capture, traffic, captureTraffic, stop: cleanup };
}
