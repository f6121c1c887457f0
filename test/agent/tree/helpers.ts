/** Helpers for the sub-agent tree tests. */
import { z } from 'zod';
import { defineTool, type ToolDef } from '../../../src/tools/types.js';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';

export const toolNames = (r: FakeRequest): string[] => (r.body.tools ?? []).map((t) => t.function.name);

/**
 * A show tool that records when each device's call ran (overlap is asserted from these, not wall time).
 * A device in `holdUntilEnded` waits (at most 10 s) until the named device's call has ended, which makes
 * "these two overlapped and the other finished first" deterministic when the calls run in parallel and
 * false when they do not, however loaded the machine is.
 */
export function timedShowTool(
  spans: { device: string; start: number; end: number }[],
  delayMs: Record<string, number> = {},
  holdUntilEnded: Record<string, string> = {},
): ToolDef {
  return defineTool({
    name: 'execute_multiple_device_commands',
    description: 'Run read-only show commands on devices',
    risk: 'read',
    schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
    async run(args, ctx) {
      const device = args.device_configs[0]?.device_name ?? '?';
      const start = performance.now();
      const other = holdUntilEnded[device];
      const ended = (): boolean => other !== undefined && spans.some((x) => x.device === other);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(t);
          clearInterval(poll);
          resolve();
        };
        const t = setTimeout(done, other !== undefined ? 10_000 : (delayMs[device] ?? 0));
        const poll = other !== undefined ? setInterval(() => ended() && done(), 5) : undefined;
        ctx.signal.addEventListener('abort', done);
      });
      spans.push({ device, start, end: performance.now() });
      return {
        status: 'success',
        data: JSON.stringify(
          args.device_configs.map((d) => ({ device_name: d.device_name, status: 'success', output: `routes of ${d.device_name}` })),
        ),
      };
    },
  });
}

/** `review_task` of the report(s) an `agent` call returned (`n` reports for a batch), by the fake LLM's agent-id reference. */
export function review(
  callId: string,
  decision: 'accept' | 'revise' | 'replan' | 'split' = 'accept',
  o: { n?: number; note?: string } = {},
): FakeTurn {
  const n = o.n ?? 1;
  return {
    tool_calls: Array.from({ length: n }, (_, i) => ({
      id: `rv_${callId}_${i}`,
      name: 'review_task',
      args: { agent_id: `{{agent_id:${callId}${n > 1 ? `#${i}` : ''}}}`, decision, note: o.note ?? '' },
    })),
  };
}

/** Whether a sub-agent with this goal has called the model (its brief carries `## Goal`). */
export const sawChildCall = (llm: FakeLlm, goal: string): boolean =>
  llm.requests.some((r) => r.purpose === null && JSON.stringify(r.body.messages).includes(`## Goal\\n${goal}`));

/**
 * The root splits the work into a SLOW child that never answers (the one a test stops) and a
 * FAST child held until `release()`; then the root reviews both reports and answers `answer`.
 */
export function slowAndFastChildren(answer: string): { script: FakeTurn[]; release: () => void } {
  let release!: () => void;
  const fastGate = new Promise<void>((r) => (release = r));
  return {
    release,
    script: [
      { tool_calls: [{ id: 'split', name: 'agent', args: { task_brief: [{ goal: 'SLOW part' }, { goal: 'FAST part' }] } }] },
      { when: '## Goal\\nSLOW part', text: 'thinking', hang: true },
      { when: '## Goal\\nFAST part', hold: fastGate, text: 'FAST done: R2 checked.' },
      // the root reviews both reports (the stopped one too) before it answers
      review('split', 'accept', { n: 2 }),
      { text: answer },
    ],
  };
}
