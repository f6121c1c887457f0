/** One question to the user at a time (src/agent/session/questions.ts). */
import { describe, expect, it } from 'vitest';
import { approverInTurn, questionQueue } from '../../src/agent/session/questions.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/core/api.js';

const req = (id: string): ApprovalRequest => ({ id, name: 'execute_multiple_device_config_commands', args: {} });

describe('question queue', () => {
  it('asks in order, each once the one before is answered; a failed question does not hold the next', async () => {
    const turn = questionQueue();
    const seen: string[] = [];
    let answerFirst!: () => void;
    const first = turn(async () => {
      seen.push('first asked');
      await new Promise<void>((r) => (answerFirst = r));
      seen.push('first answered');
      return 1;
    });
    const failing = turn(async () => {
      seen.push('second asked');
      throw new Error('the asker broke');
    });
    const third = turn(async () => {
      seen.push('third asked');
      return 3;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['first asked']);
    answerFirst();
    expect(await first).toBe(1);
    await expect(failing).rejects.toThrow('the asker broke');
    expect(await third).toBe(3);
    expect(seen).toEqual(['first asked', 'first answered', 'second asked', 'third asked']);
  });

  it('lets a run stopped while it waits go at once, without asking; the next question still waits for the one shown', async () => {
    // the user: sees each question asked, and answers the one shown
    const asked: string[] = [];
    let answer!: (d: ApprovalDecision) => void;
    const approver = approverInTurn((r) => {
      asked.push(r.id);
      return new Promise<ApprovalDecision>((res) => (answer = res));
    }, questionQueue());
    const shown = approver(req('shown'), new AbortController().signal);
    const stop = new AbortController();
    const stopped = approver(req('stopped'), stop.signal);
    const next = approver(req('next'), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 20));
    stop.abort(); // e.g. `/tree stop` of that sub-agent while another's box is shown
    expect(await stopped).toEqual({ kind: 'deny' });
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual(['shown']);
    answer({ kind: 'allow_once' });
    expect(await shown).toEqual({ kind: 'allow_once' });
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual(['shown', 'next']);
    answer({ kind: 'deny' });
    expect(await next).toEqual({ kind: 'deny' });
  });
});
