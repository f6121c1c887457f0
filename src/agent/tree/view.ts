/**
 * The tree as the surfaces show it: `--json` `agents` / `resource_usage`,
 * `sessions show` / `export`, the TUI's `/tree` and status bar. Pure functions over
 * the stored rows; no UI code.
 */
import type { AgentNodeRow, TreeRow } from '../../sessions/tree-store.js';
import type { TreeUsage } from './ledger.js';
import { parseBudgetSnapshot, type BudgetSnapshot } from './budget.js';
import type { TaskReport } from './report.js';
import type { ValidationResult } from './validation.js';
import { verdictWords } from '../../core/verdict.js';

export interface AgentView {
  id: string;
  parent_id: string;
  depth: number;
  goal: string;
  status: string;
  report: TaskReport | null;
  usage: { llm_calls: number; input_tokens: number; output_tokens: number };
  /** the Validator's verdict on the latest report (recursive; null before one) */
  validation: ValidationResult | null;
  /** the parent's review: `pending` until it decides (recursive; null when never validated) */
  review: { decision: string; note: string } | null;
}

export interface ResourceUsage {
  agents: number;
  llm_calls: number;
  tokens: number;
  cost_usd: number;
  /** how long the tree's requests ran (what AGENT_MAX_DURATION_SECONDS counts), not the tree's age */
  elapsed_s: number;
  exhausted: string | null;
  limits: BudgetSnapshot | null;
}

export function parseJson<T>(json: string | null): T | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

/** `notes`: the latest review note per agent (from the reviews log) */
export function agentViews(rows: AgentNodeRow[], notes: ReadonlyMap<string, string> = new Map()): AgentView[] {
  return rows.map((r) => ({
    id: r.id,
    parent_id: r.parent_id,
    depth: r.depth,
    goal: r.goal,
    status: r.status,
    report: parseJson<TaskReport>(r.report),
    usage: { llm_calls: r.llm_calls, input_tokens: r.input_tokens, output_tokens: r.output_tokens },
    validation: parseJson<ValidationResult>(r.validation),
    review: r.review ? { decision: r.review, note: notes.get(r.id) ?? '' } : null,
  }));
}

export function resourceUsage(root: TreeRow | undefined, u: TreeUsage | undefined): ResourceUsage | null {
  if (!u) return null;
  return {
    agents: u.agents,
    llm_calls: u.llm_calls,
    tokens: u.tokens,
    cost_usd: Math.round(u.cost_usd * 1e6) / 1e6,
    elapsed_s: Math.round(u.running_ms / 1000),
    exhausted: u.exhausted,
    limits: parseBudgetSnapshot(root?.budget ?? null) ?? null,
  };
}

/** `agents 3/50 · llm 12/150 · $0.04/15` for the status bar. */
export function budgetLine(r: ResourceUsage | null): string | undefined {
  if (!r || !r.limits) return undefined;
  return `agents ${r.agents}/${r.limits.max_total_agents} · llm ${r.llm_calls}/${r.limits.max_llm_calls} · $${r.cost_usd.toFixed(2)}/${r.limits.max_total_cost_usd}`;
}

/** The tree as indented text (`sessions show`, TUI `/tree`). */
export function renderTree(
  rootId: string,
  mode: string,
  agents: AgentView[],
  usage: ResourceUsage | null,
  /** the root Validator's verdict on the latest root answer: the final line */
  rootValidation?: ValidationResult | null,
): string[] {
  const lines = [
    `task tree (${mode}) ${rootId.slice(0, 8)}${usage ? ` — ${budgetLine(usage) ?? ''}${usage.exhausted ? ` · stopped: budget (${usage.exhausted})` : ''}` : ''}`,
  ];
  const kids = new Map<string, AgentView[]>();
  for (const a of agents) kids.set(a.parent_id, [...(kids.get(a.parent_id) ?? []), a]);
  const walk = (parent: string, indent: string): void => {
    for (const a of kids.get(parent) ?? []) {
      lines.push(
        `${indent}└ [${a.depth}] ${a.id.slice(0, 8)} ${a.status} — ${a.goal} (llm ${a.usage.llm_calls}, tokens ${a.usage.input_tokens + a.usage.output_tokens})`,
      );
      if (a.report?.result) lines.push(`${indent}   report: ${a.report.result.replace(/\s+/g, ' ').slice(0, 160)}`);
      if (a.validation) lines.push(`${indent}   ${verdictWords(a.validation)}: ${a.validation.summary.replace(/\s+/g, ' ').slice(0, 160)}`);
      if (a.review) lines.push(`${indent}   review: ${a.review.decision}${a.review.note ? ` — ${a.review.note.slice(0, 120)}` : ''}`);
      walk(a.id, `${indent}  `);
    }
  };
  walk(rootId, '  ');
  if (agents.length === 0) lines.push('  (no sub-agents)');
  if (rootValidation)
    lines.push(`  ${verdictWords(rootValidation, 'root answer')}: ${rootValidation.summary.replace(/\s+/g, ' ').slice(0, 160)}`);
  return lines;
}
