/** AGENT_MODE selection and fixation (issue 9; issue 12 item 7) with real SQLite and the fake LLM. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../../fakes/llm/server.js';
import { collect, session, useFakeLlm, testSettings } from '../helpers.js';
import { SessionStore } from '../../../src/sessions/store.js';
import { TreeStore } from '../../../src/sessions/tree-store.js';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { anchorHash } from '../../../src/agent/tree/fixation.js';
import { DEFAULT_BUDGET } from '../../../src/agent/tree/budget.js';
import { BudgetLedger } from '../../../src/agent/tree/ledger.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-mode-');
let llm: FakeLlm | undefined;

async function refusal(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  expect((err as UsageError).exitCode).toBe(ExitCode.Usage);
  return err as UsageError;
}

describe('AGENT_MODE', () => {
  it('invalid AGENT_MODE and AGENT_RECURSION_ENABLED refuse a new session (exit 2, one line) before any LLM call', async () => {
    llm = await startLlm([]);
    const settings = testSettings(llm.url, tmp.dir);
    expect((await refusal(session(settings, [], { env: { AGENT_MODE: 'tree' } }))).message).toBe(
      'AGENT_MODE must be one of legacy|recursive (got "tree")',
    );
    expect((await refusal(session(settings, [], { env: { AGENT_RECURSION_ENABLED: 'false' } }))).message).toBe(
      'AGENT_RECURSION_ENABLED was removed; use AGENT_MODE=recursive',
    );
    expect((await refusal(session(settings, [], { env: { AGENT_MODE: 'recursive', AGENT_MAX_LLM_CALLS: '0' } }))).message).toMatch(
      /^AGENT_MAX_LLM_CALLS must be a positive integer/,
    );
    expect(
      (
        await refusal(
          session(settings, [], { env: { AGENT_MODE: 'recursive', AGENT_RESERVED_FINAL_CALLS: '5', AGENT_MAX_LLM_CALLS: '5' } }),
        )
      ).message,
    ).toMatch(/AGENT_RESERVED_FINAL_CALLS must be less than AGENT_MAX_LLM_CALLS/);
    // legacy does not parse the budget variables
    const s = await session(settings, [], { env: { AGENT_MAX_LLM_CALLS: 'lots' } });
    expect(s.agentMode).toBe('legacy');
    await s.close();
    expect(llm.requests).toHaveLength(0);
  });

  it('recursive root stores mode, revision, depth 0, anchor, hash and budget; resume keeps the mode whatever the env says (notice)', async () => {
    llm = await startLlm([{ text: 'one' }, { text: 'settings' }, { text: 'two' }, { text: 'three' }]);
    const settings = testSettings(llm.url, tmp.dir, { model_prices: { 'fake-model': { input: 1, output: 2 } } });
    const s = await session(settings, [], { env: { AGENT_MODE: 'recursive', AGENT_MAX_TOTAL_AGENTS: '7' } });
    expect(s.agentMode).toBe('recursive');
    await collect(s.send('  Verify   OSPF\ton R1  '));
    const root = s.tree().root!;
    expect(root).toMatchObject({ root_id: s.id, agent_mode: 'recursive', mode_revision: 2, depth: 0, anchor: 'Verify OSPF on R1' });
    expect(root.anchor_hash).toBe(anchorHash('Verify OSPF on R1'));
    expect(JSON.parse(root.budget!)).toMatchObject({ enabled: true, max_total_agents: 7, max_llm_calls: 150 });
    // the agent_budget setting sets the defaults of a new root; the environment wins over it
    const fromSettings = await session({ ...settings, agent_budget: { max_total_agents: 9, max_llm_calls: 40 } }, [], {
      env: { AGENT_MODE: 'recursive', AGENT_MAX_TOTAL_AGENTS: '7' },
    });
    await collect(fromSettings.send('budget from the settings'));
    expect(JSON.parse(fromSettings.tree().root!.budget!)).toMatchObject({
      max_total_agents: 7,
      max_llm_calls: 40,
      max_total_tokens: 1_500_000,
    });
    await fromSettings.close();
    expect(s.notices).toEqual([]);
    await s.close();

    const r1 = await session(settings, [], { sessionId: s.id, env: { AGENT_MODE: 'legacy' } });
    expect(r1.agentMode).toBe('recursive');
    expect(r1.notices).toEqual([
      `AGENT_MODE=legacy in the environment was ignored: session ${s.id.slice(0, 8)} keeps its agent mode recursive`,
    ]);
    await collect(r1.send('again'));
    expect(r1.tree().root!.anchor).toBe('Verify OSPF on R1'); // immutable
    await r1.close();
    // an invalid value does not block resuming either; the env budget is not re-read
    const r2 = await session(settings, [], { continueLatest: true, env: { AGENT_MODE: 'bogus', AGENT_MAX_TOTAL_AGENTS: 'x' } });
    expect(r2.id).toBe(s.id);
    expect(r2.agentMode).toBe('recursive');
    expect(r2.notices[0]).toMatch(/AGENT_MODE=bogus in the environment was ignored/);
    await r2.close();
    // a legacy session resumed with AGENT_MODE=recursive stays legacy
    const l = await session(settings, []);
    await collect(l.send('legacy one'));
    await l.close();
    const l2 = await session(settings, [], { sessionId: l.id, env: { AGENT_MODE: 'recursive' } });
    expect(l2.agentMode).toBe('legacy');
    expect(l2.notices[0]).toMatch(/keeps its agent mode legacy/);
    await l2.close();
  });

  it('a session stored without a mode resumes as legacy and gets its tree row written', async () => {
    llm = await startLlm([]);
    const settings = testSettings(llm.url, tmp.dir);
    const store = await SessionStore.open(tmp.dir);
    const row = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'legacy' });
    expect(new TreeStore(store.db).get(row.id)).toBeUndefined();
    store.close();
    const s = await session(settings, [], { sessionId: row.id, env: {} });
    expect(s.agentMode).toBe('legacy');
    expect(s.tree().root).toMatchObject({ root_id: row.id, agent_mode: 'legacy', mode_revision: 2, depth: 0 });
    await s.close();
  });

  it('a recursive session missing its anchor, hash or budget is refused on resume with a clear message', async () => {
    llm = await startLlm([]);
    const settings = testSettings(llm.url, tmp.dir);
    const store = await SessionStore.open(tmp.dir);
    const trees = new TreeStore(store.db);
    const noTree = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'recursive' });
    const noAnchor = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'recursive' });
    trees.create({ root_id: noAnchor.id, agent_mode: 'recursive', budget: '{}' });
    const badHash = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'recursive' });
    trees.create({ root_id: badHash.id, agent_mode: 'recursive', anchor: 'a', anchor_hash: anchorHash('b'), budget: '{}' });
    const badBudget = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'recursive' });
    trees.create({ root_id: badBudget.id, agent_mode: 'recursive', anchor: 'a', anchor_hash: anchorHash('a'), budget: '{"enabled":true' });
    store.close();
    for (const [id, what] of [
      [noTree.id, 'its tree record'],
      [noAnchor.id, 'its root task anchor'],
      [badHash.id, 'a root task anchor matching its hash'],
      [badBudget.id, 'a valid budget snapshot'],
    ] as const)
      expect((await refusal(session(settings, [], { sessionId: id, env: { AGENT_MODE: 'recursive' } }))).message).toBe(
        `session ${id.slice(0, 8)} is a recursive task tree without ${what}; it cannot be resumed: start a new session`,
      );
  });

  it('mode revision: a revision-1 tree is migrated on resume (notice, existing children not put under review); a newer one is refused', async () => {
    llm = await startLlm([{ text: 'goes on' }]);
    const settings = testSettings(llm.url, tmp.dir);
    const store = await SessionStore.open(tmp.dir);
    const trees = new TreeStore(store.db);
    const old = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'recursive' });
    trees.create({
      root_id: old.id,
      agent_mode: 'recursive',
      anchor: 'a',
      anchor_hash: anchorHash('a'),
      budget: JSON.stringify(DEFAULT_BUDGET),
    });
    BudgetLedger.init(store.db, old.id);
    trees.addChildren(old.id, 6, [
      { id: 'old-child', root_id: old.id, parent_id: old.id, depth: 1, goal: 'g', brief: '{}', tools: '[]', status: 'queued' },
    ]);
    trees.finish('old-child', { status: 'completed', report: '{}', llm_calls: 1, input_tokens: 1, output_tokens: 1 });
    store.db.prepare('UPDATE agent_trees SET mode_revision = 1 WHERE root_id = ?').run(old.id);
    const newer = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'legacy' });
    trees.create({ root_id: newer.id, agent_mode: 'legacy' });
    store.db.prepare('UPDATE agent_trees SET mode_revision = 3 WHERE root_id = ?').run(newer.id);
    store.close();

    expect((await refusal(session(settings, [], { sessionId: newer.id, env: {} }))).message).toBe(
      `session ${newer.id.slice(0, 8)} was made by a newer gns3-copilot (agent mode revision 3, this one knows 2); upgrade to resume it`,
    );
    const s = await session(settings, [], { sessionId: old.id, env: {} });
    expect(s.notices[0]).toEqual(
      `session ${old.id.slice(0, 8)} was made by an earlier version: its existing sub-agent reports were not validated; new ones will be`,
    );
    expect(s.tree().root!.mode_revision).toBe(2);
    expect(s.tree().agents[0]).toMatchObject({ id: 'old-child', review: null, validation: null });
    // nothing awaits review: the root answers at once
    const ev = await collect(s.send('continue'));
    expect(ev.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'done' });
    await s.close();
  });
});
