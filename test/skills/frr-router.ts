/**
 * One real FRR router (zebra, staticd, ospfd, bgpd) in its own network namespace,
 * driven with out-of-band `vtysh -c`. Used to prove the injection scenarios' FRR
 * commands are accepted and that their restore commands give back the original
 * running-config. Daemons are stopped by the PIDs in their pid files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FRR_DIR = '/usr/lib/frr';
const DAEMONS = ['zebra', 'staticd', 'ospfd', 'bgpd'] as const;

export interface FrrRouter {
  /** runs each line as one `-c`; returns combined output and whether vtysh reported an error */
  vtysh(lines: string[]): { output: string; ok: boolean };
  /** configuration mode lines, wrapped in configure terminal … end */
  configure(lines: string[]): { output: string; ok: boolean };
  runningConfig(): string;
  stop(): void;
}

let seq = 0;

function waitFor(cond: () => boolean, what: string, ms = 10_000): void {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    spawnSync('sleep', ['0.05']);
  }
}

export function startFrrRouter(): FrrRouter {
  if (process.getuid?.() !== 0) throw new Error('the FRR injection test needs root (network namespaces)');
  for (const d of DAEMONS) if (!existsSync(join(FRR_DIR, d))) throw new Error(`FRR is not installed (${join(FRR_DIR, d)} missing; apt-get install frr)`);
  const ns = `gcf${process.pid % 100000}${seq++}`;
  const dir = mkdtempSync(join(tmpdir(), 'skills-frr-'));
  const uid = Number(execFileSync('id', ['-u', 'frr'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'frr'], { encoding: 'utf8' }).trim());
  chmodSync(dir, 0o755);
  chownSync(dir, uid, gid);
  const stop = () => {
    for (const d of DAEMONS) {
      const pidFile = join(dir, `${d}.pid`);
      try {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        if (pid > 1) process.kill(pid, 'SIGTERM');
      } catch {
        // not started or already gone
      }
    }
    spawnSync('ip', ['netns', 'del', ns]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execFileSync('ip', ['netns', 'add', ns]);
    execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    // A veth "eth0" (its peer stays in the same namespace) stands in for the router's link.
    execFileSync('ip', ['-n', ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0peer']);
    execFileSync('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
    execFileSync('ip', ['-n', ns, 'link', 'set', 'eth0peer', 'up']);
    for (const d of DAEMONS) {
      const conf = join(dir, `${d}.conf`);
      writeFileSync(conf, '');
      chownSync(conf, uid, gid);
      execFileSync('ip', [
        'netns', 'exec', ns, join(FRR_DIR, d), '-d', '-u', 'frr', '-g', 'frr', '--vty_socket', dir, '-z', join(dir, 'zserv.api'),
        '-A', '127.0.0.1', '-P', '0', '-f', conf, '-i', join(dir, `${d}.pid`),
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
    waitFor(() => DAEMONS.every((d) => existsSync(join(dir, `${d}.vty`))), 'FRR daemons');
  } catch (err) {
    stop();
    throw err;
  }

  const vtysh = (lines: string[]) => {
    const args = ['netns', 'exec', ns, 'vtysh', '--vty_socket', dir];
    for (const l of lines) args.push('-c', l);
    const r = spawnSync('ip', args, { encoding: 'utf8', env: { ...process.env, VTYSH_PAGER: 'cat' }, timeout: 15_000 });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    // vtysh prints errors as lines starting with "% " (and exits non-zero for most).
    const ok = r.status === 0 && !output.split('\n').some((l) => l.startsWith('%'));
    return { output, ok };
  };
  return {
    vtysh,
    configure: (lines) => vtysh(['configure terminal', ...lines, 'end']),
    runningConfig: () =>
      vtysh(['show running-config'])
        .output.split('\n')
        // the header has a timestamp-free but build-specific preamble; keep the config body
        .filter((l) => !/^(Building configuration|Current configuration|frr version|frr defaults|hostname|log |service )/.test(l))
        .join('\n')
        .trim(),
    stop,
  };
}
