/** The tree budget through the real graph, real SQLite, fake LLM over HTTP; and a two-process race. */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { type FakeLlm, type FakeRequest, type FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, text, type ToolLog } from '../helpers.js';
import { SessionStore } from '../../../src/sessions/store.js';
import { TreeStore } from '../../../src/sessions/tree-store.js';
import { BudgetLedger } from '../../../src/agent/tree/ledger.js';
import type { TaskReport } from '../../../src/agent/tree/report.js';
import { ExitCode } from '../../../src/errors.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-budget-');
let llm: FakeLlm | undefined;
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const delegate = (id: string, b: unknown): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: b } }] });
const priced = { model_prices: { 'fake-model': { input: 1, output: 1 } } };

async function run(envExtra: Record<string, string>, script: FakeTurn[], settingsExtra: Record<string, unknown> = {}) {
  llm = await startLlm(script);
  const log: ToolLog = { calls: [] };
  const s = await session(testSettings(llm.url, tmp.dir, { ...priced, ...settingsExtra }), testTools(log), {
    env: { AGENT_MODE: 'recursive', ...envExtra },
  });
  const ev = await collect(s.send('verify the lab'));
  return { s, ev, log, reqs: chat(llm), validator: llm.requests.filter((r) => r.purpose === 'validator') };
}

describe('tree budget', () => {
  it('llm calls: a child is stopped, the root answers with its reserved final call (no tools)', async () => {
    const { s, ev, reqs } = await run({ AGENT_MAX_LLM_CALLS: '3', AGENT_RESERVED_FINAL_CALLS: '1' }, [
      delegate('a', { goal: 'check R1' }),
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'Final answer with what I have.' },
    ]);
    expect(reqs).toHaveLength(3);
    expect(reqs[2]!.body.tools).toBeUndefined();
    expect(String(reqs[2]!.body.messages[0]!.content)).toContain('reached a limit (budget)');
    const report = JSON.parse(ofType(ev, 'tool_end').find((e) => e.id === 'a')!.output) as TaskReport;
    expect(report).toMatchObject({ status: 'stopped', stopped_reason: 'budget' });
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'a')).toMatchObject({
      status: 'partial',
      display: '1 of 1 sub-agent did not complete: stopped (budget)',
    });
    expect(text(ev)).toContain('Final answer with what I have.');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
    expect(s.tree().agents[0]!.status).toBe('stopped');
    await s.close();
  });

  for (const [name, env, extra] of [
    ['tokens', { AGENT_MAX_TOTAL_TOKENS: '50' }, {}],
    ['cost', { AGENT_MAX_TOTAL_COST_USD: '0.5' }, { model_prices: { 'fake-model': { input: 10_000, output: 10_000 } } }],
    ['duration', { AGENT_MAX_DURATION_SECONDS: '1' }, {}],
  ] as const)
    it(`${name}: the response that crossed it runs none of its tool calls; the root answers once more`, async () => {
      const { s, ev, log, reqs } = await run(
        env,
        [
          {
            tool_calls: [showCall('R1', 'x1'), showCall('R2', 'x2')],
            usage: { prompt_tokens: 100, completion_tokens: 10 },
            ...(name === 'duration' ? { delay_ms: 1100 } : {}),
          },
          { text: `Answer after the ${name} budget.` },
        ],
        extra,
      );
      expect(log.calls).toHaveLength(0);
      expect(ofType(ev, 'tool_end').map((e) => e.status)).toEqual(['limit', 'limit']);
      expect(reqs).toHaveLength(2);
      expect(reqs[1]!.body.tools).toBeUndefined();
      expect(text(ev)).toContain(`Answer after the ${name} budget.`);
      expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
      expect(s.usage()!.exhausted).toBe(name);
      await s.close();
    });

  it('agents: a batch over AGENT_MAX_TOTAL_AGENTS is refused and the tree stops with the final call', async () => {
    const { s, ev, reqs } = await run({ AGENT_MAX_TOTAL_AGENTS: '2' }, [
      delegate('b', [{ goal: 'one' }, { goal: 'two' }]),
      { text: 'answered anyway' },
    ]);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ status: 'error', code: 'limit' });
    expect(ofType(ev, 'tool_end')[0]!.output).toContain('AGENT_MAX_TOTAL_AGENTS');
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.body.tools).toBeUndefined();
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
    expect(s.tree().agents).toHaveLength(0);
    expect(s.usage()).toMatchObject({ agents: 1, exhausted: 'agents' });
    await s.close();
  });

  it('AGENT_RESOURCE_BUDGET_ENABLED=false records usage and enforces nothing', async () => {
    const { s, ev, reqs } = await run({ AGENT_RESOURCE_BUDGET_ENABLED: 'false', AGENT_MAX_LLM_CALLS: '2' }, [
      { tool_calls: [showCall('R1')] },
      { tool_calls: [showCall('R2')] },
      { text: 'done' },
    ]);
    expect(reqs).toHaveLength(3);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(s.usage()).toMatchObject({ llm_calls: 4, exhausted: null }); // and the title
    await s.close();
  });

  it('a missing or corrupt usage row fails closed: the request and a resume are refused, saying why', async () => {
    const { s } = await run({}, [{ text: 'first' }]);
    const id = s.id;
    const store = await SessionStore.open(tmp.dir);
    store.db.prepare("UPDATE tree_usage SET llm_calls = 'lots' WHERE root_id = ?").run(id);
    const ev = await collect(s.send('again'));
    expect(ofType(ev, 'error')[0]!.error).toMatchObject({
      type: 'limit',
      message: expect.stringMatching(/budget usage record of task tree .* is corrupt; refusing to continue/),
    });
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('error');
    await s.close();
    store.db.prepare('DELETE FROM tree_usage WHERE root_id = ?').run(id);
    store.close();
    const err = await session(testSettings(llm!.url, tmp.dir, priced), [], { sessionId: id, env: {} }).catch(
      (e: unknown) => e as Error & { exitCode: number },
    );
    expect((err as Error).message).toMatch(/budget usage record of task tree .* is missing; refusing to continue/);
    expect((err as { exitCode: number }).exitCode).toBe(ExitCode.Limit);
  });

  it('two processes racing on one tree never exceed its budget (20 trees)', async () => {
    const file = join(tmp.dir, 'race.sqlite');
    const db = new Sqlite(file);
    db.pragma('journal_mode = WAL');
    new TreeStore(db);
    const roots = Array.from({ length: 20 }, (_, i) => `race-root-${i}`);
    for (const r of roots) BudgetLedger.init(db, r);
    let ready = 0;
    const procs: ReturnType<typeof spawn>[] = [];
    const go = () => procs.forEach((p) => p.stdin!.write('go\n'));
    const worker = () =>
      new Promise<number[]>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'race-worker.ts'), file, ...roots], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        procs.push(p);
        let out = '';
        let err = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          if (d.toString().includes('ready') && ++ready === 2) go();
        });
        p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`worker exited ${code}: ${err}`))));
      });
    const [a, b] = await Promise.all([worker(), worker()]);
    for (const [i, r] of roots.entries()) {
      expect(a[i]! + b[i]!).toBe(29); // max 30 minus 1 reserved final call, never more
      const row = db.prepare('SELECT llm_calls, tokens FROM tree_usage WHERE root_id = ?').get(r) as { llm_calls: number; tokens: number };
      expect(row).toEqual({ llm_calls: 29, tokens: 29 });
    }
    // both processes really raced on most trees
    expect(roots.filter((_, i) => a[i]! > 0 && b[i]! > 0).length).toBeGreaterThan(0);
    db.close();
  }, 60_000);
});

/** A model that delegates in every response, also when it was offered no tools. */
const alwaysDelegating = (n: number): FakeTurn[] =>
  Array.from({ length: n }, (_, i) => ({
    text: `delegating ${i}`,
    tool_calls: [{ id: `d${i}`, name: 'agent', args: { task_brief: { goal: `part ${i}` } } }],
  }));

describe('a tree whose budget runs out ends cleanly (stopped_reason budget, exit 0, no call after it but the reserved final one)', () => {
  it('AGENT_MAX_TOTAL_AGENTS with a model that keeps delegating', async () => {
    const { s, ev, reqs, log } = await run({ AGENT_MAX_TOTAL_AGENTS: '3' }, alwaysDelegating(40), { max_iterations: 5 });
    expect(ofType(ev, 'error')).toHaveLength(0);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('budget');
    expect(done.stats.iterations).toBeLessThanOrEqual(5);
    expect(s.usage()!.exhausted).toBe('agents');
    // root, child, grandchild (refused), then only the root's final call, offered no tools
    expect(reqs).toHaveLength(4);
    expect(reqs.at(-1)!.body.tools).toBeUndefined();
    expect(JSON.stringify(reqs[3]!.body.messages)).toContain('verify the lab');
    expect(log.calls).toHaveLength(0);
    expect(ofType(ev, 'limit').find((e) => !e.depth)!.message).toContain('budget (agents: AGENT_MAX_TOTAL_AGENTS)');
    await s.close();
  });

  it('AGENT_MAX_TOTAL_TOKENS: the crossing response runs nothing and the final call, whose own calls never run, ends it', async () => {
    const { s, ev, reqs } = await run({ AGENT_MAX_TOTAL_TOKENS: '100' }, alwaysDelegating(40), { max_iterations: 5 });
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.body.tools).toBeUndefined();
    expect(s.tree().agents).toHaveLength(0);
    expect(s.usage()!.exhausted).toBe('tokens');
    expect(ofType(ev, 'tool_end').map((e) => e.status)).toEqual(['limit', 'limit']);
    await s.close();
  });

  it('default iteration limits: every run stays within max_iterations and the tree stops at its LLM-call budget', async () => {
    // the default max_iterations (20); a smaller LLM-call budget than the default 150 keeps the test short
    const { s, ev, reqs, validator } = await run({ AGENT_MAX_LLM_CALLS: '45' }, alwaysDelegating(100));
    expect(ofType(ev, 'error')).toHaveLength(0);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('budget');
    expect(done.stats.iterations).toBeLessThanOrEqual(20);
    expect(done.stats.by_kind!.agent.llm_calls).toBe(reqs.length);
    expect(reqs.length + validator.length).toBeLessThanOrEqual(45);
    // every call the tree booked is one of the request's: the Validators' too
    expect(done.stats.llm_calls).toBe(s.usage()!.llm_calls);
    // every call is booked, the Validators' too
    expect(s.usage()).toMatchObject({ llm_calls: reqs.length + validator.length });
    for (const a of s.tree().agents) expect(a.llm_calls).toBeLessThanOrEqual(20);
    expect(reqs.at(-1)!.body.tools).toBeUndefined();
    await s.close();
  }, 60_000);

  it("a child's own limit wrap-up is not the tree's reserved final call: the tree is not exhausted, the root's stopped_reason stays the limit", async () => {
    const { s, ev, reqs, validator } = await run(
      { AGENT_MAX_LLM_CALLS: '150' },
      [
        delegate('a', { goal: 'check R1' }),
        { tool_calls: [showCall('R1', 's1')] },
        { text: 'R1 checked.' },
        { text: 'The child checked R1.' },
      ],
      { max_iterations: 2 },
    );
    expect(reqs).toHaveLength(4);
    expect(reqs[2]!.body.tools).toBeUndefined(); // the child's last iteration
    expect(reqs[3]!.body.tools).toBeUndefined(); // the root's last iteration
    const report = JSON.parse(ofType(ev, 'tool_end').find((e) => e.id === 'a')!.output) as TaskReport;
    expect(report).toMatchObject({ status: 'stopped', stopped_reason: 'max_iterations', result: 'R1 checked.' });
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_iterations');
    expect(validator).toHaveLength(1);
    expect(s.usage()).toMatchObject({ llm_calls: 6, exhausted: null }); // root 2, child 2, its Validator 1, the title 1
    expect(s.usage()!.llm_calls).toBe(llm!.requests.length);
    await s.close();
  });

  for (const [limit, settings] of [
    ['max_tool_calls', { max_tool_calls: 2, on_limit: 'warn' }],
    ['tool_limit', { tool_limits: { execute_multiple_device_commands: 1 }, on_limit: 'continue' }],
  ] as const)
    it(`a child's ${limit} wrap-up (on_limit ${settings.on_limit}) does not exhaust the tree and the root's stopped_reason is not budget`, async () => {
      const { s, ev, reqs } = await run(
        { AGENT_MAX_LLM_CALLS: '150' },
        [
          delegate('a', { goal: 'check R1 and R2' }),
          { tool_calls: [showCall('R1', 's1')] },
          { tool_calls: [showCall('R2', 's2')] },
          { text: 'R1 checked, R2 not.' },
          // the review is a protocol call: no limit refuses it
          review('a'),
          { text: 'The child checked R1.' },
        ],
        settings,
      );
      expect(reqs).toHaveLength(6);
      const report = JSON.parse(ofType(ev, 'tool_end').find((e) => e.id === 'a')!.output) as TaskReport;
      expect(report.result).toBe('R1 checked, R2 not.');
      expect(ofType(ev, 'done')[0]!.stopped_reason).not.toBe('budget');
      expect(s.usage()).toMatchObject({ exhausted: null });
      expect(s.usage()!.llm_calls).toBe(llm!.requests.length);
      await s.close();
    });
});
