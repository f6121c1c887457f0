/**
 * AGENT_MODE (docs/task-trees.md): `legacy` (default) or `recursive`, read once when a
 * session is created. The mode is then fixed on the tree (src/agent/tree/fixation.ts):
 * resuming never re-reads it.
 */
import { UsageError } from '../errors.js';
import type { AgentMode } from './events.js';

export const AGENT_MODES: readonly AgentMode[] = ['legacy', 'recursive'];

/** The removed switch is an error wherever it appears, never silently ignored. */
export function assertNoRemovedAgentFlags(env: NodeJS.ProcessEnv = process.env): void {
  if (env.AGENT_RECURSION_ENABLED !== undefined) throw new UsageError('AGENT_RECURSION_ENABLED was removed; use AGENT_MODE=recursive');
}

/** The AGENT_MODE value as written, or undefined when unset/empty. */
export function agentModeEnvValue(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.AGENT_MODE?.trim();
  return raw ? raw : undefined;
}

export function parseAgentMode(raw: string): AgentMode | undefined {
  const v = raw.trim().toLowerCase();
  return (AGENT_MODES as readonly string[]).includes(v) ? (v as AgentMode) : undefined;
}

/** The mode for a NEW session: invalid values refuse to create it (exit 2). */
export function resolveAgentMode(env: NodeJS.ProcessEnv = process.env): AgentMode {
  assertNoRemovedAgentFlags(env);
  const raw = agentModeEnvValue(env);
  if (raw === undefined) return 'legacy';
  const mode = parseAgentMode(raw);
  if (!mode) throw new UsageError(`AGENT_MODE must be one of ${AGENT_MODES.join('|')} (got "${env.AGENT_MODE}")`);
  return mode;
}
