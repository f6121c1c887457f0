/**
 * `rewind` of a session another process is running a request on: the rewind takes the
 * session's lease as a resume does, so it is refused (exit 2, naming the process) before
 * it plans anything — it neither takes the unfinished request for its target nor says
 * "nothing changed" while that request is about to change the lab. Once the run has
 * ended, the same rewind undoes what the request did. Built CLI, fake LLM and fake v3
 * controller over HTTP, one real sessions.db.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { startFakeLlm } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli, type CliResult } from '../e2e/oneshot-cli.js';

let gns3: FakeGns3;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
const lab = ['--server', '', '--project', 'lease'];

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'lease' });
  gns3.addNode({ name: 'R1', node_type: 'qemu', status: 'stopped', ports: 2 });
  lab[1] = gns3.url;
});

afterAll(async () => {
  await gns3?.close();
  env.cleanup();
});

/** Resolves once `check` holds; the test's own timeout bounds it. */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 50));
    poll();
  });
}

it('a rewind while another process runs a request of the session is exit 2 naming it; after the run, the rewind undoes the request', async () => {
  const llm = await startFakeLlm([{ text: 'Nothing to change yet.' }], { title: 'Lease and rewind' });
  try {
    const seed = await runCli(['-p', 'look at R1', '--json', '-m', 'lab', ...lab, ...llmFlags(llm.url)], env.env);
    expect(seed.code, seed.stderr).toBe(0);
    const id = (JSON.parse(seed.stdout) as { session_id: string }).session_id;

    // request 2 renames R1, but only once the test lets the model answer
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const safety = setTimeout(() => release(), 50_000);
    llm.push(
      { hold, tool_calls: [{ id: 'ren', name: 'update_gns3_node_name', args: { nodes: [{ node: 'R1', new_name: 'Core1' }] } }] },
      { text: 'R1 is now Core1.' },
    );
    let pid = 0;
    const running = runCli(['-p', 'rename R1 to Core1', '-r', id, '--json', ...lab, ...llmFlags(llm.url)], env.env, {
      onSpawn: (c) => (pid = c.pid!),
    }).finally(() => release());
    await until(() => llm.requests.some((r) => r.turn === 1));

    const refused = await runCli(['rewind', id, '--yes', '--json', ...lab], env.env);
    release();
    const done: CliResult = await running;
    clearTimeout(safety);
    expect(refused.code, `${refused.stdout}\n${refused.stderr}`).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`^error: session is in use by pid ${pid}; a request of session ${id.slice(0, 8)} is running`, 'm'),
    );
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(refused.stdout)).toEqual({ error: { type: 'usage', message: refused.stderr.trim().replace(/^error: /, '') } });

    // the run was not disturbed: its change happened and is the session's request 2
    expect(done.code, done.stderr).toBe(0);
    expect((JSON.parse(done.stdout) as { response: string }).response).toBe('R1 is now Core1.');
    expect(gns3.node('Core1').name).toBe('Core1');

    // with the run ended the lease is free: the rewind undoes request 2
    const rewound = await runCli(['rewind', id, '--yes', '--json', ...lab], env.env);
    expect(rewound.code, `${rewound.stdout}\n${rewound.stderr}`).toBe(0);
    expect(JSON.parse(rewound.stdout)).toMatchObject({ to: 2, topology: { rename: [{ from: 'Core1', to: 'R1' }], status: 'restored' } });
    expect(gns3.node('R1').name).toBe('R1');
  } finally {
    await llm.close();
  }
}, 120_000);
