/**
 * The class check as an instructor types it: the built CLI (dist/) run as a process against a fake
 * v3 controller holding the class (test/fakes/gns3), each student's "R1" one of the bench's routers
 * behind its slow console. `check FILE --project student-01` against `check FILE --projects
 * 'student-*'` (the default --jobs 8): process start-up, the controller's answers, the consoles
 * and the report, end to end. Every run must exit 0 (every check passes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Topology } from '../src/gns3/types.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { frrLabNode } from '../test/fakes/gns3/nodes.js';
import { cliEnv, runCli } from '../test/e2e/oneshot-cli.js';
import { median } from './table.js';

export interface CommandTimes {
  one: number;
  all: number;
}

/** Medians of `runs` of both commands; `routers[i]` of `consoles` is student i+1's R1. */
export async function classCommandTimes(consoles: Topology, routers: string[], checks: string, runs: number): Promise<CommandTimes> {
  const gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_CONNECT_TIMEOUT_MS: '15000' });
  routers.forEach((r, i) => {
    const node = consoles.nodes.find((n) => n.name === r)!;
    const project = `student-${String(i + 1).padStart(2, '0')}`;
    gns3.addProject({ name: project });
    gns3.addNode(frrLabNode({ name: 'R1', consoleHost: node.console_host ?? '127.0.0.1', consolePort: node.console! }, { project }));
  });
  const file = join(env.home, 'lab.yaml');
  writeFileSync(file, checks);
  const timed = async (args: string[]): Promise<number> => {
    const xs: number[] = [];
    for (let k = 0; k < runs; k++) {
      const t = performance.now();
      const r = await runCli(['check', file, ...args, '--server', gns3.url], env.env, { timeoutMs: 120_000 });
      xs.push(performance.now() - t);
      if (r.code !== 0) throw new Error(`bench: check ${args.join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
    }
    return median(xs);
  };
  try {
    return { one: await timed(['--project', 'student-01']), all: await timed(['--projects', 'student-*']) };
  } finally {
    await gns3.close();
    env.cleanup();
  }
}
