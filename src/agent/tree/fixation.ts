/**
 * Which AGENT_MODE a session runs in. A new session reads
 * the environment once; an existing tree keeps its stored mode whatever the
 * environment says now (a notice says it was ignored). A session stored without a
 * tree row resumes as legacy and gets the row written; a recursive root missing its
 * anchor, anchor hash or budget snapshot is refused.
 *
 * The stored mode revision is checked on resume. A revision-1 tree (the release before
 * validated, reviewed children) is migrated in place: nothing it stored changes meaning,
 * its existing children simply count as reviewed (they never enter the review gate)
 * and only new reports are validated. A revision newer than this build is refused.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { AgentMode } from '../../core/events.js';
import { agentModeEnvValue, assertNoRemovedAgentFlags, parseAgentMode, resolveAgentMode } from '../../config/agent-mode.js';
import { budgetFromEnv, parseBudgetSnapshot, type BudgetSnapshot } from './budget.js';
import { AGENT_MODE_REVISION, type TreeRow, type TreeStore } from '../../sessions/tree-store.js';
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
  let migrated: string | undefined;
  if (tree.mode_revision > AGENT_MODE_REVISION)
    throw new UsageError(
      `session ${resumed.id.slice(0, 8)} was made by a newer gns3-copilot (agent mode revision ${tree.mode_revision}, this one knows ${AGENT_MODE_REVISION}); upgrade to resume it`,
    );
  if (tree.mode_revision < AGENT_MODE_REVISION) {
    trees.setRevision(resumed.id, AGENT_MODE_REVISION);
    if (mode === 'recursive')
      migrated = `session ${resumed.id.slice(0, 8)} was made by an earlier version: its existing sub-agent reports were not validated; new ones will be`;
    tree = { ...tree, mode_revision: AGENT_MODE_REVISION };
  }
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
  const ignored =
    raw !== undefined && asked !== mode
      ? `AGENT_MODE=${raw} in the environment was ignored: session ${resumed.id.slice(0, 8)} keeps its agent mode ${mode}`
      : undefined;
  const notice = [ignored, migrated].filter(Boolean).join('; ') || undefined;
  return { mode, tree, ...(budget ? { budget } : {}), ...(notice ? { notice } : {}) };
}

function missingAnchor(id: string, what: string): UsageError {
  return new UsageError(`session ${id.slice(0, 8)} is a recursive task tree without ${what}; it cannot be resumed: start a new session`);
}
