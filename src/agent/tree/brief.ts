/**
 * What a child is told (context inheritance): the normalised TaskBrief with
 * inherited hard constraints, the root's anchor, the ContextRef snapshots its parent
 * granted, its lineage and its frozen tool set. Never the parent's history.
 */
import { z } from 'zod';

export const taskBriefSchema = z.object({
  goal: z.string().trim().min(1).describe('what the sub-agent must achieve, in one or two sentences'),
  constraints: z.array(z.string().trim().min(1)).max(20).optional().describe('hard constraints the sub-agent must respect'),
  expected_report: z.string().trim().optional().describe('what the report must contain'),
  context_refs: z
    .array(z.string().min(1))
    .max(8)
    .optional()
    .describe('ids of tool results (tool_call ids) or context refs you hold that the sub-agent needs; at most 8'),
});
export type TaskBriefInput = z.infer<typeof taskBriefSchema>;

/**
 * A context ref as a brief lists it. The content itself is stored whole in SQLite when
 * granted and read on demand with `read_context_ref`, so long device output reaches a
 * child complete and the brief stays short.
 */
export interface ContextRef {
  id: string;
  /** where it came from: a tool name, or `agent` for a child's report */
  source: string;
  /** characters */
  size: number;
  first_line: string;
}

/** A ref's listing from its content. */
export function refListing(id: string, source: string, content: string): ContextRef {
  const first = content.split('\n', 1)[0]!.trim();
  return { id, source, size: content.length, first_line: first.length > 120 ? `${first.slice(0, 120)}…` : first };
}

export interface TaskBrief {
  goal: string;
  constraints: string[];
  expected_report: string;
  refs: ContextRef[];
}

export interface Lineage {
  id: string;
  parent_id: string;
  root_id: string;
  depth: number;
}

export const DEFAULT_REPORT = 'result, evidence (which tool calls on which devices), open issues';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Normalises a brief; the parent's hard constraints are kept in front of the child's own. */
export function normaliseBrief(input: TaskBriefInput, inherited: readonly string[], refs: ContextRef[]): TaskBrief {
  const constraints: string[] = [];
  for (const c of [...inherited, ...(input.constraints ?? [])].map(norm)) if (c && !constraints.includes(c)) constraints.push(c);
  return {
    goal: norm(input.goal),
    constraints,
    expected_report: norm(input.expected_report ?? '') || DEFAULT_REPORT,
    refs,
  };
}

/** The one human message a recursive child starts with. */
export function renderBrief(b: TaskBrief, anchor: string, lineage: Lineage, tools: readonly string[]): string {
  const lines = [
    `You are sub-agent ${lineage.id} at depth ${lineage.depth} of a task tree (parent ${lineage.parent_id}, root ${lineage.root_id}).`,
    'Work only on the goal below; your parent reviews your report.',
    '',
    '## Root request (for orientation; do not do more than your goal)',
    anchor,
    '',
    '## Goal',
    b.goal,
  ];
  if (b.constraints.length) lines.push('', '## Hard constraints', ...b.constraints.map((c) => `- ${c}`));
  lines.push('', '## Expected report', b.expected_report);
  if (b.refs.length) {
    lines.push('', '## Context granted by your parent (read with read_context_ref; you may grant these to your own sub-agents)');
    for (const r of b.refs) lines.push(`[${r.id}] (${r.source}, ${r.size} chars): ${r.first_line}`);
  }
  lines.push('', `## Your tools`, tools.length ? tools.join(', ') : '(none)');
  lines.push('', 'End with your report: Result, Evidence (tool calls and devices), Open issues.');
  return lines.join('\n');
}

/** A flat child's message: the task as given, with optional extra context. */
export function renderFlatTask(task: string): string {
  return `You are a sub-agent. Do this task and answer with a short natural-language summary of what you found or did:\n\n${task.trim()}`;
}

const goalKey = (s: string) =>
  norm(s)
    .toLowerCase()
    .replace(/[.!;:]+$/, '');

/**
 * `task_briefs_match`: whether a continued brief is still the original task — the
 * same goal once normalised (spacing, case, a trailing full stop) and every hard
 * constraint of the original kept (a continuation may add constraints, never drop
 * one). Anything else is a different task: a new child.
 */
export function taskBriefsMatch(original: TaskBrief, next: TaskBrief): boolean {
  if (goalKey(original.goal) !== goalKey(next.goal)) return false;
  const kept = new Set(next.constraints.map((c) => c.toLowerCase()));
  return original.constraints.every((c) => kept.has(c.toLowerCase()));
}

/** The message a continued child gets on its own thread: the brief again (what may have changed) and the parent's note. */
export function renderContinuation(b: TaskBrief, note: string | undefined, tools: readonly string[]): string {
  const lines = [
    '## Your parent continues your task',
    'Your previous report was reviewed; go on from where you stopped.',
    '',
    '## Goal',
    b.goal,
  ];
  if (b.constraints.length) lines.push('', '## Hard constraints', ...b.constraints.map((c) => `- ${c}`));
  lines.push('', '## Expected report', b.expected_report);
  if (note?.trim()) lines.push('', "## Your parent's review note", note.trim());
  if (b.refs.length) {
    lines.push('', '## Context granted by your parent (read with read_context_ref)');
    for (const r of b.refs) lines.push(`[${r.id}] (${r.source}, ${r.size} chars): ${r.first_line}`);
  }
  lines.push('', `## Your tools`, tools.length ? tools.join(', ') : '(none)');
  lines.push('', 'End with your report: Result, Evidence (tool calls and devices), Open issues.');
  return lines.join('\n');
}

/** A stored brief (JSON) as a TaskBrief; undefined for a flat child's `{task}`. */
export function parseBrief(json: string): TaskBrief | undefined {
  try {
    const b = JSON.parse(json) as Partial<TaskBrief>;
    return typeof b.goal === 'string' && Array.isArray(b.constraints)
      ? { goal: b.goal, constraints: b.constraints, expected_report: b.expected_report ?? '', refs: b.refs ?? [] }
      : undefined;
  } catch {
    return undefined;
  }
}
