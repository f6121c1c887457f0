import { describe, expect, it } from 'vitest';
import { reduce, findToolCall, type UiAction, type UiState } from '../../src/ui/state.js';
import { uiState } from './helpers/ui-state.js';
import type { AgentEvent } from '../../src/core/events.js';
import { stats } from './helpers/scripted-session.js';

const base = () => uiState({ projectName: 'lab1', model: 'gpt-4o-mini' });

const ev = (event: AgentEvent, at = 1000): UiAction => ({ type: 'agent', event, at });
const run = (s: UiState, actions: UiAction[]) => actions.reduce(reduce, s);
const ospfArgs = {
  device_configs: ['R1', 'R2', 'R3'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor'] })),
};

describe('ui state reducer', () => {
  it('streams content into the live turn and closes it into the printed history on done', () => {
    let s = run(base(), [
      { type: 'user_prompt', prompt: 'hi', at: 0 },
      ev({ type: 'init', session_id: 's1', project_id: 'p1', mode: 'lab_automation_assistant', agent_mode: 'flat', model: 'm1' }),
      ev({ type: 'content', delta: 'Hel' }),
      ev({ type: 'content', delta: 'lo' }),
    ]);
    expect(s.live?.items).toEqual([{ kind: 'text', text: 'Hello' }]);
    expect(s.sessionId).toBe('s1');
    expect(s.mode).toBe('lab_automation_assistant');
    expect(s.model).toBe('m1');
    s = reduce(s, ev({ type: 'done', stopped_reason: 'done', stats: stats({ input_tokens: 50, output_tokens: 7 }) }));
    expect(s.live).toBeNull();
    expect(s.entries).toHaveLength(1);
    const e = s.entries[0]!;
    expect(e.kind === 'turn' && e.turn.prompt).toBe('hi');
    expect(e.kind === 'turn' && e.turn.stoppedReason).toBe('done');
    expect(s.tokens).toEqual({ input: 50, output: 7 });
  });

  it('walks a tool call through pending → awaiting approval → running → success with a summary', () => {
    let s = run(base(), [
      { type: 'user_prompt', prompt: 'check ospf', at: 0 },
      ev({ type: 'tool_call', id: 'c1', name: 'execute_multiple_device_commands', args: ospfArgs }),
    ]);
    const call = () => findToolCall(s, 'c1')!;
    expect(call().state).toBe('pending');
    expect(call().summary).toBe('R1, R2, R3: show ip ospf neighbor');
    s = reduce(s, ev({ type: 'approval', id: 'c1', name: 'execute_multiple_device_commands', args: ospfArgs, why: 'config' }));
    expect(call().state).toBe('awaiting_approval');
    s = reduce(s, { type: 'approval_request', request: { id: 'c1', name: 'execute_multiple_device_commands', args: ospfArgs } });
    expect(s.approval?.id).toBe('c1');
    s = reduce(s, { type: 'approval_resolved', id: 'c1', decision: { kind: 'allow_once' } });
    expect(s.approval).toBeNull();
    expect(call().decision).toBe('allow_once');
    s = reduce(s, ev({ type: 'tool_start', id: 'c1', name: 'execute_multiple_device_commands' }, 2000));
    expect(call().state).toBe('running');
    expect(call().startedAt).toBe(2000);
    s = reduce(
      s,
      ev({ type: 'tool_end', id: 'c1', name: 'execute_multiple_device_commands', status: 'success', duration_ms: 42, output: '[]' }),
    );
    expect(call().state).toBe('success');
    expect(call().durationMs).toBe(42);
    expect(s.toolCalls).toBe(1);
  });

  it.each(['error', 'blocked', 'limit', 'aborted'] as const)('records a %s tool end', (status) => {
    const s = run(base(), [
      { type: 'user_prompt', prompt: 'x', at: 0 },
      ev({ type: 'tool_call', id: 'c1', name: 'stop_gns3_node', args: { nodes: ['R1'] } }),
      ev({ type: 'tool_end', id: 'c1', name: 'stop_gns3_node', status, duration_ms: 1, output: 'nope' }),
    ]);
    expect(findToolCall(s, 'c1')?.state).toBe(status);
  });

  it('marks unfinished calls aborted when the turn ends aborted', () => {
    const s = run(base(), [
      { type: 'user_prompt', prompt: 'x', at: 0 },
      ev({ type: 'tool_call', id: 'c1', name: 'start_gns3_node', args: { nodes: ['R1'] } }),
      ev({ type: 'tool_start', id: 'c1', name: 'start_gns3_node' }),
      ev({ type: 'done', stopped_reason: 'aborted', stats: stats() }),
    ]);
    expect(findToolCall(s, 'c1')?.state).toBe('aborted');
    expect(s.live).toBeNull();
  });

  it("counts LLM calls and tool calls as the core does: context's llm_call, one tool_start per executed call", () => {
    const ctx = (llm_call: number): AgentEvent => ({
      type: 'context',
      tokens: 10,
      tools_tokens: 1,
      limit: 100,
      percent: 11,
      trimmed: 0,
      llm_call,
    });
    const topo = 'gns3_topology_reader';
    let s = run(base(), [
      { type: 'user_prompt', prompt: 'x', at: 0 },
      ev(ctx(1)),
      // a context overflow makes the core prepare the same call again: still call 1
      ev(ctx(1)),
      ev({ type: 'content', delta: 'Let me look.' }),
      ev({ type: 'tool_call', id: 'a', name: topo, args: {} }),
      ev({ type: 'tool_call', id: 'b', name: 'stop_gns3_node', args: { nodes: ['R1'] } }),
      // refused by the mode: the core never ran it, so it is not counted
      ev({ type: 'tool_end', id: 'b', name: 'stop_gns3_node', status: 'blocked', duration_ms: 0, output: '{}' }),
      ev({ type: 'tool_start', id: 'a', name: topo }),
    ]);
    expect([s.iterations, s.toolCalls]).toEqual([1, 1]);
    s = run(s, [
      ev({ type: 'tool_end', id: 'a', name: topo, status: 'success', duration_ms: 1, output: '{}' }),
      // the next call answers without text or tools: event order alone would not show it
      ev(ctx(2)),
      ev(ctx(3)),
      ev({ type: 'content', delta: 'Done.' }),
    ]);
    expect([s.iterations, s.toolCalls]).toEqual([3, 1]);
    expect(s.live?.items.map((i) => i.kind)).toEqual(['text', 'tool', 'tool', 'text']);
    s = reduce(s, ev({ type: 'done', stopped_reason: 'done', stats: stats({ iterations: 3, llm_calls: 3, tool_calls: 1 }) }));
    expect([s.iterations, s.toolCalls]).toEqual([3, 1]);
    // the next prompt starts from zero
    s = reduce(s, { type: 'user_prompt', prompt: 'y', at: 5 });
    expect([s.iterations, s.toolCalls]).toEqual([0, 0]);
  });

  it('keeps context use, errors, mode/limit/model switches and the output toggle', () => {
    let s = run(base(), [
      { type: 'user_prompt', prompt: 'x', at: 0 },
      ev({ type: 'context', tokens: 43_000, tools_tokens: 1200, limit: 128_000, percent: 34, trimmed: 0 }),
      ev({ type: 'tool_call', id: 'a', name: 'gns3_topology_reader', args: {} }),
      ev({ type: 'error', error: { type: 'provider', message: 'LLM provider refused the request (401)' } }),
      ev({ type: 'done', stopped_reason: 'error', stats: stats() }),
      { type: 'set_mode', mode: 'troubleshooting_injection' },
      { type: 'set_limits', limits: { max_iterations: 5, max_tool_calls: 3, tool_limits: {}, on_limit: 'warn' } },
      { type: 'set_model', model: 'deepseek-chat' },
    ]);
    expect(s.context?.percent).toBe(34);
    const t = s.entries[0]!;
    expect(t.kind === 'turn' && t.turn.error?.type).toBe('provider');
    expect(s.mode).toBe('troubleshooting_injection');
    expect(s.limits.max_tool_calls).toBe(3);
    expect(s.model).toBe('deepseek-chat');
    s = reduce(s, { type: 'toggle_output' });
    expect(s.expandedToolId).toBe('a');
    s = reduce(s, { type: 'toggle_output' });
    expect(s.expandedToolId).toBeNull();
  });

  it('clears the printed history into a new epoch and resets totals for a new session', () => {
    let s = run(base(), [
      { type: 'notice', text: 'hello' },
      { type: 'user_prompt', prompt: 'x', at: 0 },
      ev({ type: 'done', stopped_reason: 'done', stats: stats() }),
    ]);
    expect(s.entries).toHaveLength(2);
    s = reduce(s, { type: 'clear' });
    expect(s.entries).toHaveLength(0);
    expect(s.epoch).toBe(1);
    expect(s.tokens.input).toBe(100);
    s = reduce(s, { type: 'session_changed', sessionId: null, resetTotals: true });
    expect(s.tokens).toEqual({ input: 0, output: 0 });
  });

  it('closes a failed send as a turn with the error', () => {
    const s = run(base(), [
      { type: 'user_prompt', prompt: 'x', at: 0 },
      { type: 'turn_failed', message: 'GNS3 controller unreachable', errorType: 'controller', at: 1 },
    ]);
    expect(s.live).toBeNull();
    const t = s.entries[0]!;
    expect(t.kind === 'turn' && t.turn.error?.message).toBe('GNS3 controller unreachable');
  });
});

describe('resumed history', () => {
  it('turns a stored transcript into finished turns, newest 10 kept', async () => {
    const { turnsFromTranscript } = await import('../../src/ui/resume.js');
    const entries = Array.from({ length: 12 }, (_, i) => [
      { role: 'user' as const, content: `q${i}` },
      { role: 'assistant' as const, content: `a${i}`, tool_calls: [{ id: `c${i}`, name: 'gns3_topology_reader', args: {} }] },
      { role: 'tool' as const, content: '{}', tool_call_id: `c${i}`, status: i === 11 ? 'blocked' : 'success' },
    ]).flat();
    const { turns, omitted } = turnsFromTranscript(entries);
    expect(omitted).toBe(2);
    expect(turns).toHaveLength(10);
    expect(turns[0]!.prompt).toBe('q2');
    const last = turns[9]!;
    expect(last.items[0]).toEqual({ kind: 'text', text: 'a11' });
    expect(last.items[1]!.kind === 'tool' && last.items[1]!.call.state).toBe('blocked');
    const s = reduce(base(), { type: 'history', turns });
    expect(s.entries).toHaveLength(10);
  });
});
