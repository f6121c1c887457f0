/**
 * Which AGENT_MODE a session runs in. A new session reads
 * the environment once; an existing tree keeps its stored mode whatever the
 * environment says now (a notice says it was ignored). A session stored without a
 * tree row resumes as legacy and gets the row written; a recursive root missing its
 * anchor, anchor hash or budget snapshot is refused.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { AgentMode } from '../../core/events.js';
import { agentModeEnvValue, assertNoRemovedAgentFlags, parseAgentMode, resolveAgentMode } from '../../core/agent-mode.js';
import { budgetFromEnv, parseBudgetSnapshot, type BudgetSnapshot } from './budget.js';
import type { TreeRow, TreeStore } from '../../sessions/tree-store.js';
import { BudgetLedger } from './ledger.js';

export interface ModeFixation {
  mode: AgentMode;
  /** a recursive tree's budget: read now for a new root, the stored snapshot on resume */
  budget?: BudgetSnapshot;
  /** the stored tree (resume) */
  tree?: TreeRow;
  /** one line for the user (stderr / TUI notice) */
  notice?: string;
}

/** The RootTaskAnchor: the user's request with whitespace normalised. */
export function normaliseAnchor(request: string): string {
  return request
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function anchorHash(anchor: string): string {
  return createHash('sha256').update(anchor, 'utf8').digest('hex');
}

export function fixAgentMode(
  env: NodeJS.ProcessEnv,
  resumed: { id: string; agent_mode: AgentMode } | undefined,
  trees: TreeStore,
  budgetSettings: Partial<BudgetSnapshot> = {},
): ModeFixation {
  assertNoRemovedAgentFlags(env);
  if (!resumed) {
    const mode = resolveAgentMode(env);
    return mode === 'recursive' ? { mode, budget: budgetFromEnv(env, budgetSettings) } : { mode };
  }
  let tree = trees.get(resumed.id);
  if (!tree) {
    if (resumed.agent_mode === 'recursive') throw missingAnchor(resumed.id, 'its tree record');
    tree = trees.create({ root_id: resumed.id, agent_mode: 'legacy' });
  }
  const mode = tree.agent_mode;
  let budget: BudgetSnapshot | undefined;
  if (mode === 'recursive') {
    if (!tree.anchor || !tree.anchor_hash) throw missingAnchor(resumed.id, 'its root task anchor');
    if (anchorHash(tree.anchor) !== tree.anchor_hash) throw missingAnchor(resumed.id, 'a root task anchor matching its hash');
    budget = parseBudgetSnapshot(tree.budget);
    if (!budget) throw missingAnchor(resumed.id, 'a valid budget snapshot');
    // fails closed: a missing or corrupt usage row refuses to continue
    new BudgetLedger(trees.db, resumed.id, budget, false).usage();
  }
  const raw = agentModeEnvValue(env);
  const asked = raw === undefined ? undefined : parseAgentMode(raw);
  const notice =
    raw !== undefined && asked !== mode
      ? `AGENT_MODE=${raw} in the environment was ignored: session ${resumed.id.slice(0, 8)} keeps its agent mode ${mode}`
      : undefined;
  return { mode, tree, ...(budget ? { budget } : {}), ...(notice ? { notice } : {}) };
}

function missingAnchor(id: string, what: string): UsageError {
  return new UsageError(`session ${id.slice(0, 8)} is a recursive task tree without ${what}; it cannot be resumed: start a new session`);
}
