/**
 * The TUI's approval box for a link filter: what the call does, in one line, comes first under
 * the tool's name — before the arguments' JSON, and still there on a terminal too short for it.
 */
import { afterEach, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { AgentEvent } from '../../src/core/events.js';
import { mount } from './harness.js';
import { stats } from './helpers/scripted-session.js';

afterEach(() => cleanup());

const NAME = 'manage_gns3_packet_filter';
const args = {
  link: 'PC1:e0 SW1:e1',
  action: 'set',
  filters: { bpf: ['icmp'] },
  fault: { scenario: 'link_drop_icmp', parameters: { a: 'PC1:e0', b: 'SW1:e1' }, category: 'link', difficulty: 'easy' },
};

it('a link-filter approval shows "PC1:e0 ↔ SW1:e1: drop icmp" first, above the arguments, on a short terminal too', async () => {
  const script = [
    { type: 'tool_call', id: 'f1', name: NAME, args } as AgentEvent,
    {
      type: 'ask' as const,
      id: 'f1',
      name: NAME,
      args,
      onAllow: [] as AgentEvent[],
      onDeny: [{ type: 'tool_end', id: 'f1', name: NAME, status: 'blocked', duration_ms: 0, output: 'denied by the user' }] as AgentEvent[],
    },
    { type: 'done', stopped_reason: 'done', stats: stats() } as AgentEvent,
  ];
  const t = mount({ scripts: [script], rows: 16 });
  await t.ready();
  await t.type('break icmp between PC1 and SW1');
  await t.waitFor(`Approve ${NAME}?`);
  const lines = t.frame().split('\n');
  const at = lines.findIndex((l) => l.includes(`Approve ${NAME}?`));
  const box = lines.slice(at + 1).map((l) => l.replace(/^[\s│]+|[\s│]+$/g, ''));
  expect(box[0]).toBe(NAME);
  expect(box[1]).toBe('PC1:e0 ↔ SW1:e1: drop icmp (fault link_drop_icmp)');
  expect(box[2]).toBe('{');
  await t.press('n');
});
