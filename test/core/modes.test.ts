/** Copilot modes and approvals: what the model sees, what dispatch allows. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, session, testSettings, testTools, type ToolLog, useFakeLlm } from '../agent/helpers.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import { MODE_TOOLS } from '../../src/core/modes.js';
import type { ApprovalDecision } from '../../src/core/api.js';

const { tmp, startLlm } = useFakeLlm('gc-modes-');
let llm: FakeLlm | undefined;

const configCall = (id = 'cfg') => ({
  id,
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R1', config_commands: ['router ospf 1'] }] },
});

/** One turn: the fake model answers with `replies`, the session runs on the test settings with `over`. */
async function turn(replies: Parameters<typeof startLlm>[0], over: Record<string, unknown>, prompt: string) {
  const server = await startLlm(replies);
  llm = server;
  const log: ToolLog = { calls: [] };
  const s = await session(testSettings(server.url, tmp.dir, over), testTools(log));
  const ev = await collect(s.send(prompt));
  return { s, log, ev, server };
}

describe('modes', () => {
  it('each mode shows the model only its tool set', async () => {
    for (const mode of ['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection'] as const) {
      llm = await startLlm([{ text: 'ok' }]);
      const s = await session(testSettings(llm.url, tmp.dir, { mode }), testTools({ calls: [] }));
      await collect(s.send('hi'));
      const names = (llm.requests[0]!.body.tools ?? []).map((t) => t.function.name).sort();
      const expected = ['agent', 'execute_multiple_device_commands', 'execute_multiple_device_config_commands', 'get_gns3_templates']
        .filter((n) => (MODE_TOOLS[mode] as readonly string[]).includes(n))
        // every session pages its stored results (tool_result_tokens) with read_context_ref
        .concat('read_context_ref')
        .sort();
      expect(names).toEqual(expected);
      expect(String(llm.requests[0]!.body.messages[0]!.content)).toContain(
        {
          teaching_assistant: 'teaching assistant',
          lab_automation_assistant: 'lab automation',
          troubleshooting_injection: 'troubleshooting injection',
        }[mode],
      );
      await s.close();
      await llm.close();
    }
    llm = undefined;
  });

  it('a forged config call in teaching mode is blocked and touches nothing', async () => {
    const { s, log, ev } = await turn(
      [{ tool_calls: [configCall()] }, { text: 'I cannot change configuration in this mode.' }],
      { mode: 'teaching', approve: 'all' },
      'configure ospf',
    );
    expect(log.calls).toHaveLength(0);
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end).toMatchObject({ status: 'blocked', code: 'not_available' });
    expect(ofType(ev, 'tool_start')).toHaveLength(0);
    await s.close();
  });

  it('a forged call to a tool outside the inject set (get_gns3_templates) is blocked', async () => {
    const { s, log, ev } = await turn(
      [{ tool_calls: [{ id: 'x', name: 'get_gns3_templates', args: {} }] }, { text: 'ok' }],
      { mode: 'inject' },
      'x',
    );
    expect(log.calls).toHaveLength(0);
    expect(ofType(ev, 'tool_end')[0]!.status).toBe('blocked');
    await s.close();
  });

  it('setMode switches the tool set for the next request', async () => {
    llm = await startLlm([{ text: 'a' }, { text: 'b' }]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }));
    await collect(s.send('one'));
    s.setMode('lab_automation_assistant');
    await collect(s.send('two'));
    const chat = llm.requests.filter((r) => r.purpose === null);
    expect(chat[0]!.body.tools!.map((t) => t.function.name)).not.toContain('execute_multiple_device_config_commands');
    expect(chat[1]!.body.tools!.map((t) => t.function.name)).toContain('execute_multiple_device_config_commands');
    expect(s.info()!.copilot_mode).toBe('lab_automation_assistant');
    await s.close();
  });
});

describe('approvals', () => {
  it('one-shot default (never): config tool returns a blocked result explaining --approve config; exit 6', async () => {
    const { s, log, ev, server } = await turn(
      [{ tool_calls: [configCall()] }, { text: 'The change needs approval.' }],
      { mode: 'lab' },
      'configure',
    );
    expect(log.calls).toHaveLength(0);
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end).toMatchObject({ status: 'blocked', code: 'approval_required' });
    // the refusal tells the model how the user may allow it
    expect(end.output).toContain('--approve config');
    // the model was told (no silent denial) and answered
    const second = server.requests.filter((r) => r.purpose === null)[1]!;
    expect(String(second.body.messages.find((m) => m.role === 'tool')!.content)).toContain('--approve config');
    const b = new ResultBuilder('lab_automation_assistant');
    ev.forEach((e) => b.add(e));
    expect(b.result().error?.type).toBe('approval');
    expect(exitCodeOf(b.result())).toBe(6);
    await s.close();
  });

  it('--approve config runs config tools without asking', async () => {
    const { s, log, ev } = await turn([{ tool_calls: [configCall()] }, { text: 'Done.' }], { mode: 'lab', approve: 'config' }, 'configure');
    expect(log.calls).toHaveLength(1);
    expect(ofType(ev, 'approval')).toHaveLength(0);
    expect(ofType(ev, 'error')).toHaveLength(0);
    await s.close();
  });

  it('ask: the Approver decides, emits approval, and allow_session sticks', async () => {
    llm = await startLlm([
      { tool_calls: [configCall('a1')] },
      { tool_calls: [configCall('a2')] },
      { text: 'ok' },
      { tool_calls: [configCall('a3')] },
      { text: 'denied' },
    ]);
    const log: ToolLog = { calls: [] };
    const decisions: ApprovalDecision[] = [{ kind: 'allow_session' }];
    let asked = 0;
    const s = await session(testSettings(llm.url, tmp.dir, { mode: 'lab' }), testTools(log), {
      approver: async () => {
        asked++;
        return decisions.shift() ?? { kind: 'deny_with_feedback', feedback: 'not on R1' };
      },
    });
    const ev = await collect(s.send('configure twice'));
    expect(asked).toBe(1);
    expect(ofType(ev, 'approval')).toHaveLength(1);
    expect(log.calls).toHaveLength(2);
    expect(ofType(ev, 'error')).toHaveLength(0);
    await s.close();
  });

  it('ask: a denial with feedback reaches the model', async () => {
    llm = await startLlm([{ tool_calls: [configCall('d1')] }, { text: 'understood' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { mode: 'lab' }), testTools(log), {
      approver: async () => ({ kind: 'deny_with_feedback', feedback: 'use area 1 instead' }),
    });
    const ev = await collect(s.send('configure'));
    expect(log.calls).toHaveLength(0);
    expect(ofType(ev, 'tool_end')[0]!.output).toContain('use area 1 instead');
    await s.close();
  });

  it('approval_tools adds read/lab tools that need approval', async () => {
    const { s, log, ev } = await turn(
      [{ tool_calls: [{ id: 'g', name: 'get_gns3_templates', args: {} }] }, { text: 'ok' }],
      { approval_tools: ['get_gns3_templates'], approve: 'config' },
      'x',
    );
    expect(log.calls).toHaveLength(0);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ status: 'blocked', code: 'approval_required' });
    expect(ofType(ev, 'tool_end')[0]!.output).toContain('--approve all');
    await s.close();
  });

  it('invalid arguments become an error result, not a crash', async () => {
    llm = await startLlm([
      { tool_calls: [{ id: 'bad', name: 'execute_multiple_device_commands', args: { device_configs: 'R1' } }] },
      { text: 'ok' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log));
    const ev = await collect(s.send('x'));
    expect(log.calls).toHaveLength(0);
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end).toMatchObject({ status: 'error', code: 'invalid_arguments' });
    await s.close();
  });
});
