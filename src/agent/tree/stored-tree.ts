/** The stored task tree of a session for `sessions show` / `sessions export`. */
import type Database from 'better-sqlite3';
import { TreeStore } from '../../sessions/tree-store.js';
import { BudgetLedger } from './ledger.js';
import { parseBudgetSnapshot } from './budget.js';
import { agentViews, parseJson, renderTree, resourceUsage, type AgentView, type ResourceUsage } from './view.js';
import type { ValidationResult } from './validation-result.js';

export interface StoredTree {
  agent_mode: string;
  agents: AgentView[];
  resource_usage: ResourceUsage | null;
  /** the root Validator's verdict on the latest root answer (recursive; null before one) */
  validation: ValidationResult | null;
}

export function storedTree(db: Database.Database, rootId: string): StoredTree | null {
  const trees = new TreeStore(db);
  const root = trees.get(rootId);
  if (!root) return null;
  const budget = parseBudgetSnapshot(root.budget);
  let usage;
  try {
    usage = budget ? new BudgetLedger(db, rootId, budget, true).usage() : undefined;
  } catch {
    usage = undefined;
  }
  return {
    agent_mode: root.agent_mode,
    agents: agentViews(trees.nodes(rootId), trees.reviewNotes(rootId)),
    resource_usage: resourceUsage(root, usage),
    validation: parseJson<ValidationResult>(root.validation ?? null),
  };
}

/** Markdown section appended to the transcript; empty for a tree without sub-agents or budget. */
export function treeMarkdown(rootId: string, t: StoredTree | null): string {
  if (!t || (t.agents.length === 0 && !t.resource_usage)) return '';
  return `\n\n## Task tree\n\n\`\`\`\n${renderTree(rootId, t.agent_mode, t.agents, t.resource_usage, t.validation).join('\n')}\n\`\`\``;
}
