/**
 * Whose CPU a parallel device run spends: this process (the copilot) against the rest
 * of the machine (the lab's routers, their console bridges, the kernel). On a 2-core
 * machine the lab's share is what bounds a local parallel run, not the copilot.
 */
import { readFileSync } from 'node:fs';

/** busy CPU time of the whole machine in ms (/proc/stat: all but idle and iowait) */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / ticksPerMs;
}

export interface CpuShare {
  /** this process, ms per run */
  own: number;
  /** everything else on the machine, ms per run */
  rest: number;
}

/** Runs `fn` n times and splits the machine's busy CPU time per run into ours and the rest. */
export async function cpuShare(fn: () => Promise<unknown>, n: number): Promise<CpuShare> {
  const own0 = process.cpuUsage();
  const busy0 = machineBusyMs();
  for (let i = 0; i < n; i++) await fn();
  const own = process.cpuUsage(own0);
  const ownMs = (own.user + own.system) / 1000;
  const busy = machineBusyMs() - busy0;
  return { own: ownMs / n, rest: Math.max(0, busy - ownMs) / n };
}

/**
 * CPU time (user + sys, ms) of this process's children that have exited and been reaped
 * (/proc/self/stat cutime + cstime): what the CLI runs a bench spawned cost, whatever their wall time.
 */
export function childrenCpuMs(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) * 10; // cutime, cstime (fields 16, 17); USER_HZ 100: 10 ms a tick
}

/** user + sys ms of a process that is not this one's child (the warm one-shot process: its client started it and is gone) */
export function processCpuMs(pid: number): number {
  const fields = statFields(String(pid));
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14, 15)
}

/** /proc/PID/stat's fields after the command name, which may hold spaces: index 0 is field 3 (state) */
function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
