/**
 * A classroom on one machine, for the load test and its bench: one fake GNS3
 * controller whose nodes are real FRR consoles from the lab, one fake LLM, and
 * many concurrent one-shot runs of the built CLI. Each run has its own short
 * tool-using script (a `show` on one router, then an answer), keyed by a tag in
 * its prompt so concurrent runs never take each other's turns. Half of the runs
 * share one data dir (one user, many terminals: one sessions.db), the others
 * have their own.
 */
import { performance } from 'node:perf_hooks';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { startFakeLlm, type FakeLlm, type FakeTurn } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli, type CliEnv, type CliResult } from './oneshot-cli.js';

export const LOAD_ROUTERS = ['R1', 'R2', 'R3'];
const PROJECT = 'classroom';

export interface Classroom {
  lab: Lab;
  gns3: FakeGns3;
  llm: FakeLlm;
  stop(): Promise<void>;
}

export async function startClassroom(): Promise<Classroom> {
  const lab = await startLab({ routers: LOAD_ROUTERS, links: [] });
  const gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: PROJECT });
  for (const name of LOAD_ROUTERS) gns3.addNode(frrLabNode(lab.device(name)));
  const llm = await startFakeLlm([], { title: 'Classroom run' });
  return {
    lab,
    gns3,
    llm,
    async stop() {
      await llm.close();
      await gns3.close();
      await lab.stop();
    },
  };
}

export interface LoadRun {
  tag: string;
  router: string;
  env: CliEnv;
  shared: boolean;
  result: CliResult;
  ms: number;
}

const ENV = { GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' };

/** The two turns of run `tag`: one read-only device call, then the answer. */
function script(tag: string, router: string): FakeTurn[] {
  return [
    {
      when: tag,
      tool_calls: [
        {
          id: `${tag}-show`,
          name: 'execute_multiple_device_commands',
          args: { device_configs: [{ device_name: router, commands: ['show version'] }] },
        },
      ],
    },
    { when: tag, text: `${tag}: ${router} runs FRR.` },
  ];
}

/**
 * Starts `count` runs at once (the first half in one shared env, the rest each
 * in its own) and waits for all of them. `prefix` keeps tags unique across
 * rounds on one fake LLM; `extraEnv` goes to every run (the bench's GNS3_COPILOT_CODE_CACHE);
 * `cwd`, when given, is every run's working directory (else each run's HOME).
 */
export async function runClassroom(
  c: Classroom,
  count: number,
  prefix: string,
  sharedEnv?: CliEnv,
  extraEnv: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<LoadRun[]> {
  const shared = sharedEnv ?? cliEnv({ ...ENV, ...extraEnv });
  const runs = Array.from({ length: count }, (_, i) => {
    const tag = `${prefix}-${String(i).padStart(2, '0')}`;
    const isShared = i < Math.ceil(count / 2);
    return {
      tag,
      shared: isShared,
      env: isShared ? shared : cliEnv({ ...ENV, ...extraEnv }),
      router: LOAD_ROUTERS[i % LOAD_ROUTERS.length]!,
    };
  });
  for (const r of runs) for (const t of script(r.tag, r.router)) c.llm.push(t);
  return Promise.all(
    runs.map(async (r) => {
      const t0 = performance.now();
      const result = await runCli(
        [
          '-p',
          `${r.tag}: which software does ${r.router} run?`,
          '--json',
          '--server',
          c.gns3.url,
          '--project',
          PROJECT,
          ...llmFlags(c.llm.url),
        ],
        r.env.env,
        { timeoutMs: 180_000, ...(cwd ? { cwd } : {}) },
      );
      return { tag: r.tag, router: r.router, env: r.env, shared: r.shared, result, ms: performance.now() - t0 };
    }),
  );
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}
