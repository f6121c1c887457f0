/**
 * The agent mode (setting agent_mode, env alias AGENT_MODE) chosen for a new session and fixed on
 * its tree, with real SQLite and the fake LLM. How the setting is layered and locked is
 * test/config/load.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../../fakes/llm/server.js';
import { collect, session, useFakeLlm, testSettings } from '../helpers.js';
import { SessionStore } from '../../../src/sessions/store.js';
import { TreeStore } from '../../../src/sessions/tree-store.js';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { anchorHash } from '../../../src/agent/tree/fixation.js';
import { DEFAULT_BUDGET } from '../../../src/agent/tree/budget.js';
import { BudgetLedger } from '../../../src/agent/tree/ledger.js';
import { chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

describe('agent mode', () => {
  it('an invalid mode, budget or AGENT_RECURSION_ENABLED refuses a new session (exit 2, one line) before any LLM call', async () => {
    llm = await startLlm([]);
    const settings = testSettings(llm.url, tmp.dir);
    expect((await refusal(session(settings, [], { env: { AGENT_MODE: 'tree' } }))).message).toBe(
      'AGENT_MODE: must be one of flat|recursive (got tree)',
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
    ).toMatch(/^agent_budget: reserved_final_calls must be less than max_llm_calls \(5 >= 5;/);
    // unset is flat, and `legacy` (the earlier name) is flat too
    for (const env of [{}, { AGENT_MODE: 'legacy' }, { AGENT_MODE: ' Flat ' }]) {
      const s = await session(settings, [], { env });
      expect(s.agentMode).toBe('flat');
      await s.close();
    }
    expect(llm.requests).toHaveLength(0);
  });

  it('recursive root stores mode, revision, depth 0, anchor, hash and budget; resume keeps the mode whatever the settings say (notice)', async () => {
    llm = await startLlm([{ text: 'one' }, { text: 'settings' }, { text: 'two' }, { text: 'three' }]);
    const settings = testSettings(llm.url, tmp.dir, { model_prices: { 'fake-model': { input: 1, output: 2 } } });
    const s = await session(settings, [], { env: { AGENT_MODE: 'recursive', AGENT_MAX_TOTAL_AGENTS: '7' } });
    expect(s.agentMode).toBe('recursive');
    await collect(s.send('  Verify   OSPF\ton R1  '));
    const root = s.tree().root!;
    expect(root).toMatchObject({ root_id: s.id, agent_mode: 'recursive', mode_revision: 2, depth: 0, anchor: 'Verify OSPF on R1' });
    expect(root.anchor_hash).toBe(anchorHash('Verify OSPF on R1'));
    expect(JSON.parse(root.budget!)).toMatchObject({ enabled: true, max_total_agents: 7, max_llm_calls: 150 });
    // the agent_budget setting sets the defaults of a new root; its env aliases win over it, field by field
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
      `agent mode flat was not applied: session ${s.id.slice(0, 8)} keeps its agent mode recursive, fixed when it was created`,
    ]);
    await collect(r1.send('again'));
    expect(r1.tree().root!.anchor).toBe('Verify OSPF on R1'); // immutable
    await r1.close();
    // the budget settings of now are not re-read: the tree keeps its snapshot; asking for its own mode is no notice
    const r2 = await session({ ...settings, agent_mode: 'recursive', agent_budget: { max_total_agents: 2 } }, [], { continueLatest: true });
    expect(r2.id).toBe(s.id);
    expect(r2.agentMode).toBe('recursive');
    expect(r2.notices).toEqual([]);
    expect(JSON.parse(r2.tree().root!.budget!)).toMatchObject({ max_total_agents: 7 });
    await r2.close();
    // a flat session resumed with agent_mode recursive stays flat
    const l = await session(settings, []);
    await collect(l.send('flat one'));
    await l.close();
    const l2 = await session({ ...settings, agent_mode: 'recursive' }, [], { sessionId: l.id });
    expect(l2.agentMode).toBe('flat');
    expect(l2.notices[0]).toMatch(/^agent mode recursive was not applied: session \w{8} keeps its agent mode flat/);
    await l2.close();
  });

  it('a session of an earlier release (agent_mode "legacy", no tree row) resumes as flat and gets its tree row written', async () => {
    llm = await startLlm([]);
    const settings = testSettings(llm.url, tmp.dir);
    const store = await SessionStore.open(tmp.dir);
    const row = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
    store.db.prepare("UPDATE sessions SET agent_mode = 'legacy' WHERE id = ?").run(row.id);
    expect(store.get(row.id)!.agent_mode).toBe('flat');
    expect(new TreeStore(store.db).get(row.id)).toBeUndefined();
    store.close();
    const s = await session(settings, [], { sessionId: row.id, env: {} });
    expect(s.agentMode).toBe('flat');
    expect(s.tree().root).toMatchObject({ root_id: row.id, agent_mode: 'flat', mode_revision: 2, depth: 0 });
    await s.close();
    // a tree row of an earlier release reads as flat too
    const again = await SessionStore.open(tmp.dir);
    again.db.prepare("UPDATE agent_trees SET agent_mode = 'legacy' WHERE root_id = ?").run(row.id);
    expect(new TreeStore(again.db).get(row.id)!.agent_mode).toBe('flat');
    again.close();
    const r = await session({ ...settings, agent_mode: 'flat' }, [], { sessionId: row.id });
    expect(r.agentMode).toBe('flat');
    expect(r.notices).toEqual([]);
    await r.close();
  });

  it('a classroom lock on agent_mode refuses to continue a session of the other mode (exit 2 naming the lock)', async () => {
    llm = await startLlm([{ text: 'flat answer' }]);
    const settings = testSettings(llm.url, tmp.dir);
    const flat = await session(settings, []);
    await collect(flat.send('one'));
    await flat.close();
    const sys = join(tmp.dir, 'classroom.json');
    writeFileSync(sys, JSON.stringify({ agent_mode: 'recursive', locked: ['agent_mode'] }));
    // the lock is read as the CLI reads it (a root-owned file; tests run as root)
    chownSync(sys, 0, 0);
    const e = await refusal(
      session({ ...settings, agent_mode: 'recursive' }, [], { sessionId: flat.id, env: { GNS3_COPILOT_SYSTEM_CONFIG: sys } }),
    );
    expect(e.message).toBe(
      `"agent_mode" is locked to "recursive" by the system config ${sys} (classroom lock): session ${flat.id.slice(0, 8)} runs in agent mode flat; start a new session`,
    );
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
    const newer = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
    trees.create({ root_id: newer.id, agent_mode: 'flat' });
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
