/**
 * The root Validator (recursive trees): a root's candidate final answer completes only once
 * it passes; a failed one goes back to the root with the findings, at most
 * root_validation_rounds times, then is returned with validation "fail". Real graph, real
 * SQLite, fake LLM over HTTP; --json through the one-shot ResultBuilder.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { captureStdout, collect, ofType, session, showCall, useFakeLlm, testSettings, testTools } from '../helpers.js';
import { sessionsCommand } from '../../../src/commands/sessions.js';
import { review } from './helpers.js';
import { ResultBuilder } from '../../../src/output/summary.js';
import { validateSetting } from '../../../src/config/validate.js';
import { jsonResultSchema } from '../../e2e/oneshot-schema.js';
import type { AgentEvent } from '../../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-rootval-');
const env = { AGENT_MODE: 'recursive' };
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const rootValidations = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === 'root_validator');
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }] });
const fail = (summary: string): FakeTurn => ({
  text: JSON.stringify({ verdict: 'fail', checks: [{ claim: 'R2 is Full', ok: false, evidence: 'no report covers R2' }], summary }),
});
const lastUser = (r: FakeRequest): string => {
  const c = [...r.body.messages].reverse().find((m) => m.role === 'user')?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
};
const json = (ev: AgentEvent[]) => {
  const b = new ResultBuilder('teaching_assistant');
  for (const e of ev) b.add(e);
  return jsonResultSchema.parse(JSON.parse(JSON.stringify(b.result())));
};
const tree = (): FakeTurn[] => [delegate('a', 'check R1'), { tool_calls: [showCall('R1', 's1')] }, { text: 'R1: Full' }, review('a')];

describe('root Validator', () => {
  it('fail → the root gets the findings and answers again → pass; every call is booked', async () => {
    const llm = await startLlm([...tree(), { text: 'ANSWER-ONE: R1 and R2 are Full' }, { text: 'ANSWER-TWO: R1 is Full' }], {
      rootValidator: [fail('R2 was never checked')],
    });
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env });
    const ev = await collect(s.send('check R1'));
    expect(rootValidations(llm)).toHaveLength(2);
    // the root Validator sees the anchor, the accepted report with its validation, the root's calls and the answer
    const input = String(rootValidations(llm)[0]!.body.messages[1]!.content);
    expect(input).toContain('check R1');
    expect(input).toContain('"result": "R1: Full"');
    expect(input).toContain('"verdict": "pass"');
    expect(input).toContain('"tool": "agent"');
    expect(input).toContain('ANSWER-ONE');
    // the findings went back to the root as the protocol's message
    const again = chat(llm).at(-1)!;
    expect(lastUser(again)).toMatch(/root Validator did not pass your answer \(fail; round 1 of 2\): R2 was never checked/);
    expect(lastUser(again)).toContain('- R2 is Full: no report covers R2');
    const v = ofType(ev, 'validation').filter((e) => !e.agent_id);
    expect(v.map((e) => e.verdict)).toEqual(['fail', 'pass']);
    const j = json(ev);
    expect(j.response).toBe('ANSWER-TWO: R1 is Full');
    expect(j.validation).toMatchObject({ verdict: 'pass' });
    expect(j.stopped_reason).toBe('done');
    expect(s.usage()!.llm_calls).toBe(llm.requests.length);
    expect(s.treeText!().at(-1)).toMatch(/✓ root answer validation pass/);
    await s.close();
    // the transcript shows the findings as the protocol's, not as a user message
    const show = await captureStdout(() => sessionsCommand('show', [s.id], {}, settings));
    expect(show).toMatch(/### Task protocol\n\n\[task protocol\] The root Validator did not pass your answer/);
    expect(show).not.toMatch(/## User\n\n\[task protocol\]/);
    expect(show).toMatch(/✓ root answer validation pass/);
  });

  it('rounds used up: the answer is returned with validation "fail" and the findings', async () => {
    const llm = await startLlm([...tree(), { text: 'ANSWER-ONE' }, { text: 'ANSWER-TWO' }], {
      rootValidator: [fail('first'), fail('still R2 unchecked')],
    });
    const s = await session(testSettings(llm.url, tmp.dir, { root_validation_rounds: 1 }), testTools({ calls: [] }), { env });
    const ev = await collect(s.send('check R1'));
    expect(rootValidations(llm)).toHaveLength(2);
    const j = json(ev);
    expect(j.response).toBe('ANSWER-TWO');
    expect(j.stopped_reason).toBe('done');
    expect(j.validation).toEqual({
      verdict: 'fail',
      summary: 'still R2 unchecked',
      checks: [{ claim: 'R2 is Full', ok: false, evidence: 'no report covers R2' }],
    });
    expect(s.treeText!().at(-1)).toMatch(/✗ root answer validation fail: still R2 unchecked/);
    await s.close();
  });

  it('root_validation_rounds 0 validates once and sends nothing back; a request that delegated nothing is not validated', async () => {
    expect(() => validateSetting('root_validation_rounds', 6, 'GNS3_COPILOT_ROOT_VALIDATION_ROUNDS')).toThrow(/0\.\.5/);
    const llm = await startLlm([...tree(), { text: 'ONLY ANSWER' }, { text: 'plain answer' }], { rootValidator: [fail('wrong')] });
    const s = await session(testSettings(llm.url, tmp.dir, { root_validation_rounds: 0 }), testTools({ calls: [] }), { env });
    const ev = await collect(s.send('check R1'));
    expect(json(ev)).toMatchObject({ response: 'ONLY ANSWER', validation: { verdict: 'fail' } });
    const ev2 = await collect(s.send('thanks'));
    expect(rootValidations(llm)).toHaveLength(1);
    expect(json(ev2).validation).toBeUndefined();
    await s.close();
  });

  it('the reserved final call (AGENT_RESERVED_FINAL_CALLS) is kept for the root Validator', async () => {
    // root delegate, child answer, child Validator, root review, root answer = 5 = max - reserved
    const llm = await startLlm([delegate('a', 'check R1'), { text: 'R1: Full' }, review('a'), { text: 'R1 is Full' }]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), {
      env: { ...env, AGENT_MAX_LLM_CALLS: '6', AGENT_RESERVED_FINAL_CALLS: '1' },
    });
    const ev = await collect(s.send('check R1'));
    expect(rootValidations(llm)).toHaveLength(1);
    expect(json(ev)).toMatchObject({ response: 'R1 is Full', validation: { verdict: 'pass' }, stopped_reason: 'done' });
    expect(s.usage()!.llm_calls).toBe(6);
    expect(llm.requests.length).toBe(6);
    await s.close();
  });

  it('the budget ends the tree and its reserved call goes to the answer: validation "skipped", reason "budget", said everywhere', async () => {
    // root delegate, child answer, child Validator, root review = 4 = max - reserved: the root's answer is the reserved final call
    const llm = await startLlm([delegate('a', 'check R1'), { text: 'R1: Full' }, review('a'), { text: 'R1 is Full' }]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), {
      env: { ...env, AGENT_MAX_LLM_CALLS: '5', AGENT_RESERVED_FINAL_CALLS: '1' },
    });
    const ev = await collect(s.send('check R1'));
    expect(rootValidations(llm)).toHaveLength(0);
    expect(llm.requests.length).toBe(5);
    expect(chat(llm).at(-1)!.body.tools ?? []).toEqual([]);
    const v = ofType(ev, 'validation').filter((e) => !e.agent_id);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ verdict: 'skipped', reason: 'budget' });
    const j = json(ev);
    expect(j).toMatchObject({ response: 'R1 is Full', stopped_reason: 'budget' });
    expect(j.validation).toMatchObject({ verdict: 'skipped', reason: 'budget' });
    expect(v[0]!.summary).toMatch(/tree budget ran out/);
    expect(s.treeText!().at(-1)).toMatch(/– root answer validation skipped \(budget\)/);
    await s.close();
    const show = await captureStdout(() => sessionsCommand('show', [s.id], {}, settings));
    expect(show).toMatch(/– root answer validation skipped \(budget\)/);
  });
});
