/** The sub-agent tree in the TUI: reducer nesting, tool line rendering, status bar budget, /tree. */
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { reduce, type UiAction, type UiState } from '../../src/ui/state.js';
import { uiState } from './helpers/ui-state.js';
import { ToolCallLine } from '../../src/ui/components/ToolCallLine.js';
import { statusSegments } from '../../src/ui/components/StatusBar.js';
import { COMMANDS, findCommand, helpText } from '../../src/ui/slash/index.js';
import type { AgentEvent } from '../../src/core/events.js';

const base = () => uiState({ projectName: 'lab1', agentMode: 'recursive' });
const ev = (event: AgentEvent, at = 1000): UiAction => ({ type: 'agent', event, at });
const show = (d: string) => ({ device_configs: [{ device_name: d, commands: ['show ip ospf neighbor'] }] });

describe('tui task tree', () => {
  it('child tool calls nest under the running agent call, indented by depth', () => {
    const s: UiState = [
      { type: 'user_prompt', prompt: 'verify', at: 0 } as UiAction,
      ev({ type: 'tool_call', id: 'a', name: 'agent', args: { task_brief: { goal: 'verify OSPF on R1' } } }),
      ev({ type: 'tool_start', id: 'a', name: 'agent' }),
      ev({ type: 'tool_call', id: 'c1', name: 'execute_multiple_device_commands', args: show('R1'), agent_id: 'kid-1', depth: 1 }),
      ev({ type: 'tool_start', id: 'c1', name: 'execute_multiple_device_commands', agent_id: 'kid-1', depth: 1 }),
      ev({
        type: 'tool_end',
        id: 'c1',
        name: 'execute_multiple_device_commands',
        status: 'success',
        duration_ms: 12,
        output: '[]',
        agent_id: 'kid-1',
        depth: 1,
      }),
      ev({ type: 'tool_call', id: 'g1', name: 'agent', args: {}, agent_id: 'kid-1', depth: 1 }),
      ev({
        type: 'tool_end',
        id: 'g1',
        name: 'agent',
        status: 'blocked',
        duration_ms: 0,
        output: '{"status":"blocked"}',
        agent_id: 'kid-1',
        depth: 1,
      }),
    ].reduce(reduce, base());
    const items = s.live!.items;
    expect(items).toHaveLength(1); // only the root's own call is a top-level line
    const agent = items[0]!.kind === 'tool' ? items[0]!.call : undefined;
    expect(agent!.state).toBe('running');
    expect(agent!.children!.map((c) => [c.id, c.state, c.depth])).toEqual([
      ['c1', 'success', 1],
      ['g1', 'blocked', 1],
    ]);
    const { lastFrame, unmount } = render(<ToolCallLine call={agent!} now={2000} width={100} />);
    const lines = lastFrame()!.split('\n');
    expect(lines[0]).toMatch(/agent/);
    expect(lines[1]).toMatch(/^ {2}\S+ execute_multiple_device_commands R1/);
    expect(lines.some((l) => /^ {2}\S+ agent/.test(l))).toBe(true);
    unmount();
  });

  it('two agent calls of one response each get their own sub-agents (root_call_id)', () => {
    const s: UiState = [
      { type: 'user_prompt', prompt: 'verify', at: 0 } as UiAction,
      ev({ type: 'tool_call', id: 'a', name: 'agent', args: { task: 'R1' } }),
      ev({ type: 'tool_call', id: 'b', name: 'agent', args: { task: 'R2' } }),
      ev({ type: 'tool_start', id: 'a', name: 'agent' }),
      ev({ type: 'tool_start', id: 'b', name: 'agent' }),
      ev({
        type: 'tool_call',
        id: 'c1',
        name: 'execute_multiple_device_commands',
        args: show('R1'),
        agent_id: 'kid-1',
        depth: 1,
        root_call_id: 'a',
      }),
      ev({
        type: 'tool_call',
        id: 'c2',
        name: 'execute_multiple_device_commands',
        args: show('R2'),
        agent_id: 'kid-2',
        depth: 1,
        root_call_id: 'b',
      }),
      ev({
        type: 'tool_call',
        id: 'c3',
        name: 'execute_multiple_device_commands',
        args: show('R1'),
        agent_id: 'kid-3',
        depth: 2,
        root_call_id: 'a',
      }),
    ].reduce(reduce, base());
    const calls = s.live!.items.map((it) => (it.kind === 'tool' ? it.call : undefined));
    expect(calls.map((c) => [c!.id, (c!.children ?? []).map((k) => k.id)])).toEqual([
      ['a', ['c1', 'c3']],
      ['b', ['c2']],
    ]);
  });

  it('status bar shows the tree budget; /tree is a command', () => {
    const s = reduce(base(), { type: 'set_tree_budget', text: 'agents 3/50 · llm 12/150 · $0.04/15' });
    expect(statusSegments(s).map((x) => x.text)).toContain('recursive · agents 3/50 · llm 12/150 · $0.04/15');
    expect(statusSegments(reduce(s, { type: 'set_tree_budget', text: undefined })).map((x) => x.text)).toContain('recursive');
    expect(findCommand(COMMANDS, 'tree')?.name).toBe('tree');
    expect(helpText(COMMANDS)).toContain('/tree');
  });
});
