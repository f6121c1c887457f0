/**
 * Which agent mode a session runs in. A new session takes the `agent_mode` setting
 * (flag, AGENT_MODE, config files; flat when unset); an existing tree keeps its stored
 * mode whatever the settings say now (a notice says the one asked for was not applied),
 * except under a classroom lock on agent_mode, which refuses a session of the other mode.
 * A session stored without a tree row resumes as flat and gets the row written; a
 * recursive root missing its anchor, anchor hash or budget snapshot is refused.
 *
 * The stored mode revision is checked on resume. A revision-1 tree (the release before
 * validated, reviewed children) is migrated in place: nothing it stored changes meaning,
 * its existing children simply count as reviewed (they never enter the review gate)
 * and only new reports are validated. A revision newer than this build is refused.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { AgentMode } from '../../core/events.js';
import { DEFAULT_AGENT_MODE } from '../../config/agent-mode.js';
import { budgetFromSettings, parseBudgetSnapshot, type BudgetSnapshot } from './budget.js';
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

/** What the settings ask for: `agent_mode` (undefined: nothing asked, a new session is flat), its classroom lock, `agent_budget`. */
export interface AgentModeRequest {
  asked: AgentMode | undefined;
  /** the locked agent_mode and the sentence naming the lock (src/config/locks.ts describeLock) */
  lock?: { value: AgentMode; describe: string } | undefined;
  budget: Partial<BudgetSnapshot>;
}

export function fixAgentMode(
  req: AgentModeRequest,
  resumed: { id: string; agent_mode: AgentMode } | undefined,
  trees: TreeStore,
): ModeFixation {
  if (!resumed) {
    const mode = req.lock?.value ?? req.asked ?? DEFAULT_AGENT_MODE;
    return mode === 'recursive' ? { mode, budget: budgetFromSettings(req.budget) } : { mode };
  }
  let tree = trees.get(resumed.id);
  if (!tree) {
    if (resumed.agent_mode === 'recursive') throw missingAnchor(resumed.id, 'its tree record');
    tree = trees.create({ root_id: resumed.id, agent_mode: 'flat' });
  }
  const mode = tree.agent_mode;
  // a tree cannot change its mode, so a lock on another mode refuses to continue it
  if (req.lock && req.lock.value !== mode)
    throw new UsageError(`${req.lock.describe}: session ${resumed.id.slice(0, 8)} runs in agent mode ${mode}; start a new session`);
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
  const ignored =
    req.asked !== undefined && req.asked !== mode
      ? `agent mode ${req.asked} was not applied: session ${resumed.id.slice(0, 8)} keeps its agent mode ${mode}, fixed when it was created`
      : undefined;
  const notice = [ignored, migrated].filter(Boolean).join('; ') || undefined;
  return { mode, tree, ...(budget ? { budget } : {}), ...(notice ? { notice } : {}) };
}

function missingAnchor(id: string, what: string): UsageError {
  return new UsageError(`session ${id.slice(0, 8)} is a recursive task tree without ${what}; it cannot be resumed: start a new session`);
}
