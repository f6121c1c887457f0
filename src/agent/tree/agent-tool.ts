/**
 * The `agent` tool: its arguments depend on the policy — flat takes
 * `task` (one child) or `messages` (a batch, one child per message, run in
 * parallel); recursive takes `task_brief` (one brief or a batch). Children answer
 * with a natural-language summary (flat) or a TaskReport (recursive). The call's
 * status is the batch of its children: a failed child is an error item, one that
 * stopped early (a limit, the budget, Esc) did part of its work.
 */
import { z } from 'zod';
import { defineTool, failure, type ToolDef, type ToolOutcome } from '../../tools/types.js';
import { taskBriefSchema } from './brief.js';
import { DelegationRefused, type DelegateItem, type TreeEngine } from './engine.js';
import type { TaskReport } from './report.js';
import { batchStatus } from '../../tools/batch.js';
import type { OutcomeStatus } from '../../tools/types.js';

const flatSchema = z
  .object({
    task: z.string().trim().min(1).optional().describe('the task for one sub-agent'),
    messages: z
      .array(z.string().trim().min(1))
      .min(1)
      .max(10)
      .optional()
      .describe('several independent tasks: one sub-agent each, run in parallel'),
  })
  .refine((a) => a.task !== undefined || a.messages !== undefined, 'give task or messages');

const recursiveSchema = z.object({
  task_brief: z.union([taskBriefSchema, z.array(taskBriefSchema).min(1)]).describe('one brief, or a batch of briefs'),
  continue_from: z
    .string()
    .min(1)
    .optional()
    .describe(
      'the agent_id of one of your ended sub-agents to continue with this (one) brief of the same task: it keeps its history, no new sub-agent',
    ),
});

function flatText(reports: TaskReport[]): string {
  const one = (r: TaskReport) =>
    r.status === 'completed'
      ? r.result || '(no answer)'
      : `[${r.status}${r.stopped_reason ? `: ${r.stopped_reason}` : ''}] ${r.result}`.trim();
  if (reports.length === 1) return one(reports[0]!);
  return reports.map((r, i) => `Sub-agent ${i + 1} (${r.goal}):\n${one(r)}`).join('\n\n');
}

function itemStatus(r: TaskReport): OutcomeStatus {
  return r.status === 'completed' ? 'success' : r.status === 'stopped' ? 'partial' : 'error';
}

function delegationOutcome(reports: TaskReport[], data: string): ToolOutcome {
  const status = batchStatus(reports.map((r) => ({ status: itemStatus(r) })));
  const bad = reports.filter((r) => r.status !== 'completed');
  if (!bad.length) return { status, data };
  const what = bad.map((r) => `${r.status}${r.stopped_reason ? ` (${r.stopped_reason})` : ''}`).join(', ');
  return {
    status,
    data,
    display: `${bad.length} of ${reports.length} sub-agent${reports.length === 1 ? '' : 's'} did not complete: ${what}`,
  };
}

export function agentTool(engine: TreeEngine): ToolDef {
  const refused = (err: unknown): ToolOutcome => {
    if (err instanceof DelegationRefused) return failure(err.message, {}, { code: err.code });
    throw err;
  };
  if (engine.policy.mode === 'flat')
    return defineTool({
      name: 'agent',
      description:
        'Delegate a self-contained task to a sub-agent that has the same tools except `agent`. Give `task` for one, or `messages` for several independent tasks run in parallel. Each returns a short summary.',
      brief: 'Delegate to sub-agents: task, or messages in parallel.',
      risk: 'read',
      group: 'delegation',
      schema: flatSchema,
      async run(args, ctx) {
        const items: DelegateItem[] = (args.messages ?? [args.task!]).map((task) => ({ kind: 'task', task }));
        try {
          const { reports } = await engine.delegate(items, ctx);
          return delegationOutcome(reports, flatText(reports));
        } catch (err) {
          return refused(err);
        }
      },
    });
  return defineTool({
    name: 'agent',
    description:
      'Delegate part of the task to a sub-agent with a task_brief: goal, hard constraints, the report you expect, and the context refs (ids of your tool results) it needs. It only sees the brief; it ends with a TaskReport (result, evidence, open issues) and its validation, which you review with review_task (accept, revise, replan, split) before you answer. continue_from: the agent_id of an ended sub-agent of yours, to continue the same task (same goal and constraints) with its history. At most 6 sub-agents per agent.',
    brief:
      'Delegate to a sub-agent with a task_brief (context_refs: ids of your tool results); review its report with review_task. continue_from: an ended sub-agent of yours.',
    risk: 'read',
    group: 'delegation',
    schema: recursiveSchema,
    async run(args, ctx) {
      const briefs = Array.isArray(args.task_brief) ? args.task_brief : [args.task_brief];
      try {
        if (args.continue_from !== undefined) {
          if (briefs.length !== 1) return failure('continue_from continues one sub-agent: give one task_brief, not a batch');
          const report = await engine.continueChild(args.continue_from, briefs[0], undefined, ctx);
          return delegationOutcome([report], JSON.stringify(report));
        }
        const { reports } = await engine.delegate(
          briefs.map((brief) => ({ kind: 'brief', brief })),
          ctx,
        );
        return delegationOutcome(reports, JSON.stringify(reports.length === 1 ? reports[0] : reports));
      } catch (err) {
        return refused(err);
      }
    },
  });
}
