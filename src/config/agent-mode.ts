/**
 * The agent mode (docs/task-trees.md): `flat` (the default) or `recursive`. It is a setting,
 * `agent_mode` (flag --agent-mode, env AGENT_MODE, config files, lockable), read once when a
 * session is created and then fixed on its tree (src/agent/tree/fixation.ts): resuming never
 * changes it.
 *
 * `legacy` is what releases before this one called `flat`: it is still accepted wherever a
 * mode is given (flag, env, files) and read from sessions.db rows written before, and never
 * printed.
 */
import { UsageError } from '../errors.js';
import type { AgentMode } from '../core/events.js';

export const AGENT_MODES = ['flat', 'recursive'] as const satisfies readonly AgentMode[];

/** The mode of a session nobody asked anything else for. */
export const DEFAULT_AGENT_MODE: AgentMode = 'flat';

/** The removed switch is an error wherever it appears, never silently ignored. */
export function assertNoRemovedAgentFlags(env: NodeJS.ProcessEnv = process.env): void {
  if (env.AGENT_RECURSION_ENABLED !== undefined) throw new UsageError('AGENT_RECURSION_ENABLED was removed; use AGENT_MODE=recursive');
}

/** A mode as a user writes it (`legacy` is `flat`), or undefined when it is none. */
export function parseAgentMode(raw: string): AgentMode | undefined {
  const v = raw.trim().toLowerCase();
  if (v === 'legacy') return 'flat';
  return (AGENT_MODES as readonly string[]).includes(v) ? (v as AgentMode) : undefined;
}

/** A mode read back from sessions.db: rows of earlier releases say `legacy`; only `recursive` is a tree. */
export function storedAgentMode(raw: string): AgentMode {
  return raw === 'recursive' ? 'recursive' : 'flat';
}
