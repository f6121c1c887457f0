/**
 * The Validator pages a cut result: a sub-agent's `show` longer than tool_result_tokens enters
 * its history as head and tail (stored whole), and the Validator that judges its report gets
 * read_context_ref to read the omitted middle — as the sub-agent (the refs it holds), nothing else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FakeLlm, FakeRequest } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, testSettings, testTools, useFakeLlm, type ToolLog } from '../helpers.js';
import { defineTool } from '../../../src/tools/types.js';
import { cutRefs } from '../../../src/agent/tree/validator.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-val-refs-');
let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const DOWN = 'line 1500: neighbor 10.0.0.2 state Down';
/** 3,000 lines of a neighbour table, one neighbour Down in the middle (where the cut omits it). */
const LONG = Array.from({ length: 3000 }, (_, i) => (i === 1499 ? DOWN : `line ${i + 1}: neighbor 10.0.${i % 250}.1 state Full`)).join(
  '\n',
);

const longShow = defineTool({
  name: 'execute_multiple_device_commands',
  description: 'Run read-only show commands on devices',
  risk: 'read',
  schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
  run: async () => ({ status: 'success', data: LONG }),
});

const validatorRequests = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === 'validator');
const content = (r: FakeRequest, role: string, i = 0): string => {
  const c = r.body.messages.filter((m) => m.role === role)[i]?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
};

describe('the Validator and cut results', () => {
  it('a result over tool_result_tokens: the Validator is given read_context_ref and reads the omitted middle as the sub-agent', async () => {
    llm = await startLlm(
      [
        { tool_calls: [{ id: 'a', name: 'agent', args: { task_brief: { goal: 'check OSPF on R1' } } }] },
        { tool_calls: [showCall('R1', 's1')] },
        { text: 'R1: every OSPF neighbour is Full' },
        review('a', 'replan'),
        { text: 'root done' },
      ],
      {
        validator: [
          { tool_calls: [{ id: 'v1', name: 'read_context_ref', args: { ref_id: 's1', line: 1490 } }] },
          { tool_calls: [{ id: 'v2', name: 'read_context_ref', args: { ref_id: 'someone-elses' } }] },
          {
            text: JSON.stringify({
              verdict: 'fail',
              checks: [{ claim: 'every neighbour Full on R1', ok: false, evidence: `s1 (paged): ${DOWN}` }],
              summary: 'a neighbour is Down in the part of the output the report skipped',
            }),
          },
        ],
      },
    );
    const log: ToolLog = { calls: [] };
    const tools = [...testTools(log).filter((t) => t.name !== 'execute_multiple_device_commands'), longShow];
    const settings = testSettings(llm.url, tmp.dir, { mode: 'lab_automation_assistant', tool_result_tokens: 400 });
    const s = await session(settings, tools, { env: { AGENT_MODE: 'recursive' } });
    const ev = await collect(s.send('ospf'));
    await s.close();

    const [first, second, third] = validatorRequests(llm);
    expect(validatorRequests(llm)).toHaveLength(3);
    // shown the tool, and which result is stored whole; the trajectory itself lacks the middle
    expect((first!.body.tools ?? []).map((t) => t.function.name)).toContain('read_context_ref');
    const input = content(first!, 'user');
    expect(input).toMatch(/"stored_whole": \[\s*"s1"\s*\]/);
    expect(input).toContain('read_context_ref {ref_id, line? | offset?} pages the whole');
    expect(input).not.toContain(DOWN);
    // the page starts at line 1490 and holds the Down neighbour
    const page = content(second!, 'tool');
    expect(page).toContain('line 1490: neighbor');
    expect(page).toContain(DOWN);
    // a ref the sub-agent does not hold is refused, naming the ones it holds
    expect(content(third!, 'tool', 1)).toMatch(/context ref \\"someone-elses\\" was not granted to you; you hold \\"s1\\"/);
    const ends = ofType(ev, 'tool_end').filter((e) => e.id === 'v1' || e.id === 'v2');
    expect(ends.map((e) => [e.id, e.status])).toEqual([
      ['v1', 'success'],
      ['v2', 'error'],
    ]);
    const v = ofType(ev, 'validation').find((e) => e.agent_id);
    expect(v).toMatchObject({ verdict: 'fail' });
    expect(log.calls).toHaveLength(0);
  });

  it('the refs of a cut note are read from plain text and from a device batch (JSON-escaped)', () => {
    expect(cutRefs('a\n…[cut …: read_context_ref {"ref_id":"call_1","line":38}]…\nz')).toEqual(['call_1']);
    const batch = JSON.stringify({ devices: [{ results: [{ output: 'x …[read_context_ref {"ref_id":"c.1","line":3}]…' }] }] });
    expect(cutRefs(batch)).toEqual(['c.1']);
    expect(cutRefs('no note here')).toEqual([]);
  });
});
