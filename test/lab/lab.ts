/**
 * A real device lab for tests and benches: FRR routers and VPCS PCs in network
 * namespaces, each behind a GNS3-like telnet console on 127.0.0.1.
 *
 *   import { startLab } from '../lab/lab.js';
 *   const lab = await startLab({
 *     routers: ['r1', 'r2', 'r3'],
 *     links: [['r1', 'r2'], ['r2', 'r3'], ['r1', 'r3']],
 *     pcs: [{ name: 'PC1', router: 'r1' }, { name: 'PC2', router: 'r3' }],
 *     ssh: true,      // sshd per router, login shell = vtysh (lab.ssh has user/password/key)
 *     pager: true,    // daemon output paged on a 24-row pty with a real ` --More-- ` (more-pager.py)
 *   });
 *   lab.device('r1')  // { name, kind, consoleHost: '127.0.0.1', consolePort, sshPort?, netns }
 *   lab.topology()    // a Topology (src/gns3/types.ts) whose nodes point at the consoles
 *   lab.vtysh('r1', 'show ip route')  // out-of-band vtysh -c, for assertions
 *   await lab.stop()  // idempotent; also runs on process exit / SIGINT / SIGTERM
 *
 * Needs root, iproute2, util-linux (unshare, script, setpriv), python3, frr, vpcs, socat
 * and (for ssh) openssh-server. A missing piece throws (tests fail, never skip).
 *
 * What you get:
 * - Router R: netns `gcl<pid>-<seq>-R` with its own UTS namespace (hostname R),
 *   zebra + staticd + ospfd (FRR 8.4, no /etc/frr), IPv4 forwarding on, loopback
 *   10.255.255.<i+1>/32 (i = index in `routers`). No routing protocol is configured:
 *   tests configure OSPF through the consoles.
 * - Link k (index in `links`) [a, b]: veth pair, a = 10.0.<k+1>.1/24, b = 10.0.<k+1>.2/24.
 *   Interfaces are named eth0, eth1, … per router in link order, then one per PC
 *   (see lab.links[k].aInterface / bInterface and lab.pcs[n].routerInterface).
 * - PC n attached to router R: 192.168.<n+1>.0/24, router side .1; the PC is not
 *   configured — suggested address lab.pcs[n].address (.10/24), gateway .1.
 *   VPCS runs as `nobody` in its own netns; its UDP tunnel is bridged to a veth
 *   into R's namespace with socat (what GNS3's ubridge does).
 * - Router console: one persistent vtysh under a pty across connections, IAC WILL
 *   ECHO + WILL SGA on connect, telnet bytes stripped, any line ending = one Enter
 *   (test/lab/console-bridge.mjs). Prompts `r1# `, `r1(config)# `.
 * - PC console: VPCS's own telnet server (prompt `PC1> `, banner only on the first
 *   connection), forwarded to 127.0.0.1.
 * - ssh: user `gns3lab` (created once, primary group frrvty), password in
 *   /run/gns3lab-password (random, created once), key pair per lab run.
 *
 * Everything is torn down by PID (processes inside the lab's own namespaces and
 * the console bridges it spawned). Namespaces left by a lab whose process died
 * (SIGKILL) are swept by the next startLab.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Topology } from '../../src/gns3/types.js';
import { topologyNode } from '../helpers/topology.js';

export interface LabSpec {
  routers: string[];
  links: [string, string][];
  pcs?: { name: string; router: string }[];
  ssh?: boolean;
  pager?: boolean;
}

export interface LabDevice {
  name: string;
  kind: 'router' | 'pc';
  consoleHost: '127.0.0.1';
  consolePort: number;
  sshPort?: number;
  netns: string;
}

export interface LabLink {
  a: string;
  b: string;
  aInterface: string;
  bInterface: string;
  aAddress: string; // CIDR, e.g. 10.0.1.1/24
  bAddress: string;
  network: string; // 10.0.1.0/24
}

export interface LabPc {
  name: string;
  router: string;
  routerInterface: string;
  routerAddress: string; // 192.168.1.1/24
  address: string; // suggested: 192.168.1.10/24
  gateway: string; // 192.168.1.1
}

export interface LabSsh {
  username: string;
  password: string;
  privateKey: string; // OpenSSH PEM text
  privateKeyPath: string;
}

export interface Lab {
  id: string;
  devices: LabDevice[];
  device(name: string): LabDevice;
  links: LabLink[];
  pcs: LabPc[];
  loopbacks: Record<string, string>;
  ssh?: LabSsh;
  /** out-of-band `vtysh -c …` inside the router's namespace (not through the console) */
  vtysh(router: string, ...commands: string[]): string;
  /** a GNS3-shaped topology whose nodes' consoles are the lab's */
  topology(projectName?: string): Topology;
  stop(): Promise<void>;
}

const FRR_DIR = '/usr/lib/frr';
const BRIDGE = fileURLToPath(new URL('./console-bridge.mjs', import.meta.url));
const PAGER = fileURLToPath(new URL('./more-pager.py', import.meta.url));
const PREFIX = 'gcl';
const SSH_USER = 'gns3lab';
const SSH_PASSWORD_FILE = '/run/gns3lab-password';
let seq = 0;

const active = new Set<{ stopSync(): void }>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const cleanAll = () => {
    for (const l of [...active]) l.stopSync();
  };
  process.on('exit', cleanAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      cleanAll();
      process.removeListener(sig, onSignal);
      // Re-raise so the default action (or other handlers' intent) still applies.
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

function sh(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
  if (r.error) throw new Error(`lab: ${cmd} failed: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`lab: ${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `ip` arguments that run the shell `command` in router `r`'s netns, in its own UTS namespace named after `r` (the vtysh prompt). */
function asRouter(ns: string, r: string, command: string): string[] {
  return ['netns', 'exec', ns, 'unshare', '--uts', 'sh', '-c', `hostname ${quote(r)} && ${command}`];
}

function which(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${quote(bin)}`], { stdio: 'ignore' }).status === 0;
}

function checkPrerequisites(spec: LabSpec): void {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root');
  for (const b of ['ip', 'unshare', 'script', 'setpriv', 'vtysh', 'socat', 'ss']) if (!which(b)) missing.push(b);
  for (const d of ['zebra', 'staticd', 'ospfd']) if (!existsSync(join(FRR_DIR, d))) missing.push(`frr (${d})`);
  if ((spec.pcs?.length ?? 0) > 0 && !which('vpcs')) missing.push('vpcs');
  if (spec.ssh && (!existsSync('/usr/sbin/sshd') || !which('ssh-keygen'))) missing.push('openssh-server');
  if (missing.length > 0) {
    throw new Error(`lab: cannot start the device lab, missing: ${missing.join(', ')} (install: frr vpcs socat openssh-server iproute2)`);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killNetns(ns: string): void {
  // Everything inside our namespace was started by this harness.
  for (let round = 0; round < 5; round++) {
    const r = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' });
    const pids = (r.stdout ?? '').split(/\s+/).filter(Boolean).map(Number);
    if (pids.length === 0) break;
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
    spawnSync('sleep', ['0.02']);
  }
  spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
}

/** Namespaces of labs whose owning process is gone (killed before teardown). */
function sweepStale(): void {
  const r = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  for (const line of (r.stdout ?? '').split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) killNetns(name);
  }
}

function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() - start > timeoutMs) return reject(new Error(`lab: timed out waiting for ${what}`));
      setTimeout(tick, 15);
    };
    tick();
  });
}

function listening(ns: string, port: number): boolean {
  const r = spawnSync('ip', ['netns', 'exec', ns, 'ss', '-Hltn', `sport = :${port}`], { encoding: 'utf8' });
  return (r.stdout ?? '').trim().length > 0;
}

function startBridge(mode: 'pty' | 'unix', target: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BRIDGE, mode, target], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, LAB_OWNER_PID: String(process.pid) },
    });
    let buf = '';
    const timer = setTimeout(() => reject(new Error('lab: console bridge did not start')), 10_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lab: console bridge exited (${code})`));
    });
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout.destroy();
        child.unref();
        resolve({ child, port: Number(m[1]) });
      }
    });
  });
}

function frrIds(): { uid: number; gid: number } {
  return { uid: Number(sh('id', ['-u', 'frr']).trim()), gid: Number(sh('id', ['-g', 'frr']).trim()) };
}

function ensureSshUser(): string {
  if (spawnSync('id', ['-u', SSH_USER], { stdio: 'ignore' }).status !== 0) {
    spawnSync('useradd', ['-M', '-d', '/nonexistent', '-s', '/bin/sh', '-g', 'frrvty', SSH_USER], { stdio: 'ignore' });
    if (spawnSync('id', ['-u', SSH_USER], { stdio: 'ignore' }).status !== 0) throw new Error(`lab: could not create user ${SSH_USER}`);
  }
  if (!existsSync(SSH_PASSWORD_FILE)) {
    try {
      writeFileSync(SSH_PASSWORD_FILE, randomBytes(12).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const password = readFileSync(SSH_PASSWORD_FILE, 'utf8').trim();
  sh('chpasswd', [], `${SSH_USER}:${password}\n`);
  return password;
}

export async function startLab(spec: LabSpec): Promise<Lab> {
  checkPrerequisites(spec);
  installExitHooks();
  sweepStale();

  const id = `${PREFIX}${process.pid}-${seq++}`;
  const base = mkdtempSync(join(tmpdir(), `${id}-`));
  chmodSync(base, 0o755);
  const namespaces: string[] = [];
  const bridges: ChildProcess[] = [];
  let stopped = false;

  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    active.delete(handle);
    for (const b of bridges) {
      try {
        if (b.pid) process.kill(b.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    for (const ns of namespaces) killNetns(ns);
    rmSync(base, { recursive: true, force: true });
  };
  const handle = { stopSync };
  active.add(handle);

  try {
    return await build();
  } catch (err) {
    stopSync();
    throw err;
  }

  async function build(): Promise<Lab> {
    const { uid, gid } = frrIds();
    const nsOf = new Map<string, string>();
    const dirOf = new Map<string, string>();
    const ifCount = new Map<string, number>();
    const nextIf = (r: string) => {
      const n = ifCount.get(r) ?? 0;
      ifCount.set(r, n + 1);
      return `eth${n}`;
    };
    const loopbacks: Record<string, string> = {};

    for (const [i, r] of spec.routers.entries()) {
      if (!/^[A-Za-z][\w-]{0,30}$/.test(r)) throw new Error(`lab: bad router name ${r}`);
      const ns = `${id}-${r}`;
      sh('ip', ['netns', 'add', ns]);
      namespaces.push(ns);
      nsOf.set(r, ns);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      loopbacks[r] = `10.255.255.${i + 1}/32`;
      sh('ip', ['-n', ns, 'addr', 'add', loopbacks[r], 'dev', 'lo']);
      sh('ip', ['netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      const dir = join(base, r);
      mkdirSync(dir);
      chownSync(dir, uid, gid);
      dirOf.set(r, dir);
    }

    const links: LabLink[] = [];
    for (const [k, [a, b]] of spec.links.entries()) {
      const nsA = nsOf.get(a);
      const nsB = nsOf.get(b);
      if (!nsA || !nsB) throw new Error(`lab: link ${a}-${b} names an unknown router`);
      const aIf = nextIf(a);
      const bIf = nextIf(b);
      sh('ip', ['-n', nsA, 'link', 'add', aIf, 'type', 'veth', 'peer', 'name', bIf, 'netns', nsB]);
      const link: LabLink = {
        a,
        b,
        aInterface: aIf,
        bInterface: bIf,
        aAddress: `10.0.${k + 1}.1/24`,
        bAddress: `10.0.${k + 1}.2/24`,
        network: `10.0.${k + 1}.0/24`,
      };
      sh('ip', ['-n', nsA, 'addr', 'add', link.aAddress, 'dev', aIf]);
      sh('ip', ['-n', nsB, 'addr', 'add', link.bAddress, 'dev', bIf]);
      sh('ip', ['-n', nsA, 'link', 'set', aIf, 'up']);
      sh('ip', ['-n', nsB, 'link', 'set', bIf, 'up']);
      links.push(link);
    }

    // PC plumbing before the daemons start, so zebra sees every interface at once.
    const pcs: LabPc[] = [];
    const pcNs = new Map<string, string>();
    for (const [n, pc] of (spec.pcs ?? []).entries()) {
      const rNs = nsOf.get(pc.router);
      if (!rNs) throw new Error(`lab: PC ${pc.name} names an unknown router ${pc.router}`);
      if (!/^[A-Za-z][\w-]{0,30}$/.test(pc.name)) throw new Error(`lab: bad PC name ${pc.name}`);
      const ns = `${id}-${pc.name}`;
      sh('ip', ['netns', 'add', ns]);
      namespaces.push(ns);
      pcNs.set(pc.name, ns);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      sh('ip', ['netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1']);
      const rIf = nextIf(pc.router);
      sh('ip', ['-n', rNs, 'link', 'add', rIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      const info: LabPc = {
        name: pc.name,
        router: pc.router,
        routerInterface: rIf,
        routerAddress: `192.168.${n + 1}.1/24`,
        address: `192.168.${n + 1}.10/24`,
        gateway: `192.168.${n + 1}.1`,
      };
      sh('ip', ['-n', rNs, 'addr', 'add', info.routerAddress, 'dev', rIf]);
      sh('ip', ['-n', rNs, 'link', 'set', rIf, 'up']);
      sh('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      pcs.push(info);
    }

    // FRR daemons, each in the router's netns and a UTS namespace named after it.
    for (const r of spec.routers) {
      const ns = nsOf.get(r)!;
      const dir = dirOf.get(r)!;
      for (const d of ['zebra', 'staticd', 'ospfd']) {
        const conf = join(dir, `${d}.conf`);
        writeFileSync(conf, `hostname ${r}\n`);
        chownSync(conf, uid, gid);
        const daemon = [
          join(FRR_DIR, d),
          '-d',
          '-u',
          'frr',
          '-g',
          'frr',
          '--vty_socket',
          dir,
          '-z',
          join(dir, 'zserv.api'),
          '-A',
          '127.0.0.1',
          '-P',
          '0',
          '-f',
          conf,
          '-i',
          join(dir, `${d}.pid`),
        ]
          .map(quote)
          .join(' ');
        sh('ip', asRouter(ns, r, `exec ${daemon}`));
      }
    }
    for (const r of spec.routers) {
      const dir = dirOf.get(r)!;
      await waitFor(() => ['zebra', 'staticd', 'ospfd'].every((d) => existsSync(join(dir, `${d}.vty`))), `FRR daemons of ${r}`);
    }

    // VPCS + its UDP tunnel bridge + console forwarder, per PC.
    const pcConsoleSockets = new Map<string, string>();
    for (const [n, pc] of pcs.entries()) {
      const ns = pcNs.get(pc.name)!;
      const dir = join(base, pc.name);
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      writeFileSync(join(dir, 'startup.vpc'), `set pcname ${pc.name}\n`, { mode: 0o644 });
      // VPCS runs host commands on `!`; never as root.
      spawnDetached('ip', [
        'netns',
        'exec',
        ns,
        'setpriv',
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        'sh',
        '-c',
        `cd ${quote(dir)} && exec vpcs -i 1 -p 5000 -s 20000 -c 20001 -m ${n + 1}`,
      ]);
      spawnDetached('ip', ['netns', 'exec', ns, 'socat', 'UDP-DATAGRAM:127.0.0.1:20000,bind=127.0.0.1:20001', 'INTERFACE:eth0']);
      const sock = join(base, `${pc.name}.console.sock`);
      spawnDetached('ip', ['netns', 'exec', ns, 'socat', `UNIX-LISTEN:${sock},fork,mode=600`, 'TCP:127.0.0.1:5000']);
      pcConsoleSockets.set(pc.name, sock);
    }

    // sshd per router (login shell: vtysh), reachable through a loopback forwarder.
    let ssh: LabSsh | undefined;
    const sshSockets = new Map<string, string>();
    if (spec.ssh) {
      const password = ensureSshUser();
      mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
      const keyPath = join(base, 'id_ed25519');
      sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'gns3lab', '-f', keyPath]);
      sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(base, 'ssh_host_ed25519_key')]);
      writeFileSync(join(base, 'authorized_keys'), readFileSync(`${keyPath}.pub`), { mode: 0o644 });
      ssh = { username: SSH_USER, password, privateKey: readFileSync(keyPath, 'utf8'), privateKeyPath: keyPath };
      for (const r of spec.routers) {
        const ns = nsOf.get(r)!;
        const cfg = join(base, `${r}.sshd_config`);
        writeFileSync(
          cfg,
          [
            'Port 22',
            'ListenAddress 127.0.0.1',
            `HostKey ${join(base, 'ssh_host_ed25519_key')}`,
            `PidFile ${join(base, `${r}.sshd.pid`)}`,
            `AuthorizedKeysFile ${join(base, 'authorized_keys')}`,
            'StrictModes no',
            'PasswordAuthentication yes',
            'KbdInteractiveAuthentication no',
            'UsePAM yes',
            'PermitRootLogin no',
            `AllowUsers ${SSH_USER}`,
            'PrintMotd no',
            'PrintLastLog no',
            'UseDNS no',
            `ForceCommand env VTYSH_PAGER=cat vtysh --vty_socket ${dirOf.get(r)!}`,
            '',
          ].join('\n'),
        );
        spawnDetached('ip', asRouter(ns, r, `exec /usr/sbin/sshd -D -f ${quote(cfg)}`));
        const sock = join(base, `${r}.ssh.sock`);
        spawnDetached('ip', ['netns', 'exec', ns, 'socat', `UNIX-LISTEN:${sock},fork,mode=600`, 'TCP:127.0.0.1:22']);
        sshSockets.set(r, sock);
      }
    }

    // Consoles.
    const devices: LabDevice[] = [];
    const rows = spec.pager ? 24 : 0;
    const pagerEnv = spec.pager ? `VTYSH_PAGER=${quote(`/usr/bin/python3 ${PAGER}`)}` : 'VTYSH_PAGER=cat';
    const routerConsoles = spec.routers.map(async (r) => {
      const ns = nsOf.get(r)!;
      const inner = `stty cols 511 rows ${rows}; exec env ${pagerEnv} vtysh --vty_socket ${quote(dirOf.get(r)!)}`;
      const cmd = `exec ip ${asRouter(ns, r, inner).map(quote).join(' ')}`;
      const b = await startBridge('pty', cmd);
      bridges.push(b.child);
      let sshPort: number | undefined;
      const sock = sshSockets.get(r);
      if (sock) {
        await waitFor(() => listening(ns, 22) && existsSync(sock), `sshd of ${r}`);
        const s = await startBridge('unix', sock);
        bridges.push(s.child);
        sshPort = s.port;
      }
      const dev: LabDevice = { name: r, kind: 'router', consoleHost: '127.0.0.1', consolePort: b.port, netns: ns };
      if (sshPort !== undefined) dev.sshPort = sshPort;
      return dev;
    });
    const pcConsoles = pcs.map(async (pc) => {
      const ns = pcNs.get(pc.name)!;
      const sock = pcConsoleSockets.get(pc.name)!;
      await waitFor(() => listening(ns, 5000) && existsSync(sock), `VPCS ${pc.name}`);
      const b = await startBridge('unix', sock);
      bridges.push(b.child);
      const dev: LabDevice = { name: pc.name, kind: 'pc', consoleHost: '127.0.0.1', consolePort: b.port, netns: ns };
      return dev;
    });
    devices.push(...(await Promise.all(routerConsoles)), ...(await Promise.all(pcConsoles)));

    const lab: Lab = {
      id,
      ...(ssh ? { ssh } : {}),
      devices,
      links,
      pcs,
      loopbacks,
      device(name) {
        const d = devices.find((x) => x.name === name);
        if (!d) throw new Error(`lab: no device ${name}`);
        return d;
      },
      vtysh(router, ...commands) {
        const ns = nsOf.get(router);
        if (!ns) throw new Error(`lab: no router ${router}`);
        const args = [...asRouter(ns, router, `exec vtysh --vty_socket ${quote(dirOf.get(router)!)} "$@"`), 'sh'];
        for (const c of commands) args.push('-c', c);
        return execFileSync('ip', args, { encoding: 'utf8', env: { ...process.env, VTYSH_PAGER: 'cat' } });
      },
      topology(projectName = 'lab') {
        const nodes = devices.map((d, i) =>
          topologyNode(d.name, {
            node_id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
            node_type: d.kind === 'pc' ? 'vpcs' : 'qemu',
            console: d.consolePort,
            console_host: d.consoleHost,
            template_name: d.kind === 'pc' ? 'VPCS' : 'FRR 8.4',
            x: i * 100,
          }),
        );
        return { project_id: `lab-${id}`, project_name: projectName, nodes, links: [] };
      },
      async stop() {
        stopSync();
      },
    };
    return lab;
  }

  function spawnDetached(cmd: string, args: string[]): void {
    const c = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    c.on('error', () => {});
    c.unref();
  }
}
