/** Context refs: stored whole when granted, listed in the brief, read on demand with read_context_ref, re-granted edge by edge. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { collect, session, useFakeLlm, testSettings } from '../helpers.js';
import { defineTool } from '../../../src/tools/types.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-refs-');
let llm: FakeLlm | undefined;
const env = { AGENT_MODE: 'recursive' };
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const toolResult = (r: FakeRequest, id: string): string => {
  const content = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  return typeof content === 'string' ? content : '';
};

// long device output with multi-byte text: over 20 KB, within one tool result
const BIG = Array.from(
  { length: 260 },
  (_, i) => `行 ${String(i).padStart(3, '0')}: 接口 Gi0/${i % 8} 状态 正常 — 邻居 10.0.${i}.1 已建立 ──────────\n`,
).join('');

const bigShow = defineTool({
  name: 'execute_multiple_device_commands',
  description: 'Run read-only show commands on devices',
  risk: 'read',
  schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
  run: async () => ({ status: 'success', data: BIG }),
});

describe('read_context_ref', () => {
  it('a 20 KB ref is read whole at depth 5 after re-grants at every level; an ungranted id is refused', async () => {
    expect(Buffer.byteLength(BIG)).toBeGreaterThan(20 * 1024);
    const delegate = (id: string, goal: string): FakeTurn => ({
      tool_calls: [{ id, name: 'agent', args: { task_brief: { goal, context_refs: ['big'] } } }],
    });
    const read = (id: string, args: Record<string, unknown>): FakeTurn => ({ tool_calls: [{ id, name: 'read_context_ref', args }] });
    const script: FakeTurn[] = [
      {
        tool_calls: [
          {
            id: 'big',
            name: 'execute_multiple_device_commands',
            args: { device_configs: [{ device_name: 'R1', commands: ['show all'] }] },
          },
        ],
      },
      delegate('d0', 'level 1'),
    ];
    for (let d = 1; d <= 4; d++) script.push(delegate(`d${d}`, `level ${d + 1}`));
    script.push(read('x1', { ref_id: 'big' }), read('x2', { ref_id: 'big', offset: 8000 }), read('x3', { ref_id: 'r-never-granted' }));
    script.push({ text: 'read it all' });
    for (let d = 4; d >= 1; d--) script.push({ text: `done at depth ${d}` });
    script.push({ text: 'root done' });
    llm = await startLlm(script);
    // results within tool_result_tokens here: the ref is granted from the history, pages are 8000 characters
    const s = await session(testSettings(llm.url, tmp.dir, { tool_result_tokens: 100_000 }), [bigShow], { env });
    await collect(s.send('read deep'));
    const reqs = chat(llm);
    // every level's brief lists the ref (id, source, size, first line), never pastes it
    for (let d = 1; d <= 5; d++) {
      const brief = String(reqs[d + 1]!.body.messages[1]!.content);
      expect(brief).toContain(`[big] (execute_multiple_device_commands, ${BIG.length} chars): 行 000: 接口 Gi0/0`);
      expect(brief).not.toContain('行 001');
    }
    const first = JSON.parse(toolResult(reqs[7]!, 'x1')) as { content: string; next_offset: number; size: number };
    expect(first).toMatchObject({ status: 'success', size: BIG.length, next_offset: 8000 });
    const second = JSON.parse(toolResult(reqs[8]!, 'x2')) as { content: string; next_offset?: number };
    expect(second.next_offset).toBeUndefined();
    expect(first.content + second.content).toBe(BIG);
    expect(JSON.parse(toolResult(reqs[9]!, 'x3'))).toEqual({
      status: 'error',
      error: 'context ref "r-never-granted" was not granted to you; you hold "big"',
    });
    expect(s.tree().agents.map((a) => a.depth)).toEqual([1, 2, 3, 4, 5]);
    await s.close();
  });
});
