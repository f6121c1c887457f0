/**
 * The class check as an instructor types it: the built CLI (dist/) run as a process against a fake
 * v3 controller holding the class (test/fakes/gns3), each student's "R1" one of the bench's routers
 * behind its slow console. `check FILE --project student-01` against `check FILE --projects
 * 'student-*'` (the default --jobs 8): process start-up, the controller's answers, the consoles
 * and the report, end to end; then `checkpoint save` and `checkpoint restore --yes` of one
 * project against the class (before each restore, every router it restores gets one change out
 * of band). Every run must exit 0 (every check passes, everything is restored) and warn of nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Topology } from '../src/gns3/types.js';
import type { Lab } from '../test/lab/lab.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { frrLabNode } from '../test/fakes/gns3/nodes.js';
import { ADMIN } from '../test/gns3/helpers.js';
import { outOfBandChange } from './checkpoint-commands.js';
import { cliEnv, runCli } from '../test/e2e/oneshot-cli.js';
import { median } from './table.js';

export interface OneAndAll {
  one: number;
  all: number;
}

export interface CommandTimes {
  check: OneAndAll;
  /** `check` of one project on the code-split modules (GNS3_COPILOT_CODE_CACHE=off), as before the bundle ran it */
  checkModules: number;
  save: OneAndAll;
  restore: OneAndAll;
}

/** Medians of `runs` of each command; `routers[i]` of `consoles` is student i+1's R1 (`lab`'s router). */
export async function classCommandTimes(
  lab: Lab,
  consoles: Topology,
  routers: string[],
  checks: string,
  runs: number,
): Promise<CommandTimes> {
  const gns3 = await startFakeGns3({ api: 'v3', users: { [ADMIN.username]: ADMIN.password } });
  const env = cliEnv({ GNS3_USER: ADMIN.username, GNS3_PASSWORD: ADMIN.password, GNS3_COPILOT_CONNECT_TIMEOUT_MS: '15000' });
  routers.forEach((r, i) => {
    const node = consoles.nodes.find((n) => n.name === r)!;
    const project = `student-${String(i + 1).padStart(2, '0')}`;
    gns3.addProject({ name: project });
    gns3.addNode(frrLabNode({ name: 'R1', consoleHost: node.console_host ?? '127.0.0.1', consolePort: node.console! }, { project }));
  });
  const file = join(env.home, 'lab.yaml');
  writeFileSync(file, checks);
  const change = outOfBandChange(lab);
  const timed = async (args: string[], before = () => {}, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> => {
    const xs: number[] = [];
    // one run first, untimed: it writes the code cache of its kind, which every run after it starts from
    for (let k = -1; k < runs; k++) {
      before();
      const t = performance.now();
      const r = await runCli([...args, '--server', gns3.url], { ...env.env, ...extraEnv }, { timeoutMs: 120_000 });
      if (k >= 0) xs.push(performance.now() - t);
      if (r.code !== 0 || /warning/i.test(r.stderr))
        throw new Error(`bench: ${args.join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
    }
    return median(xs);
  };
  const one = ['--project', 'student-01'];
  const all = ['--projects', 'student-*'];
  try {
    const check: OneAndAll = { one: await timed(['check', file, ...one]), all: await timed(['check', file, ...all]) };
    const checkModules = await timed(['check', file, ...one], undefined, { GNS3_COPILOT_CODE_CACHE: 'off' });
    const save: OneAndAll = {
      one: await timed(['checkpoint', 'save', 'stage1', '--replace', ...one]),
      all: await timed(['checkpoint', 'save', 'stage1', '--replace', ...all]),
    };
    const restore: OneAndAll = {
      one: await timed(['checkpoint', 'restore', 'stage1', '--yes', ...one], change(routers.slice(0, 1))),
      all: await timed(['checkpoint', 'restore', 'stage1', '--yes', ...all], change(routers)),
    };
    return { check, checkModules, save, restore };
  } finally {
    await gns3.close();
    env.cleanup();
  }
}
