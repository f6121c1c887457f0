/** AGENT_MODE (README, Agent): legacy is the only run mode this version ships. */
import { UsageError } from '../errors.js';
import type { AgentMode } from './events.js';

export function resolveAgentMode(env: NodeJS.ProcessEnv = process.env): AgentMode {
  if (env.AGENT_RECURSION_ENABLED !== undefined)
    throw new UsageError('AGENT_RECURSION_ENABLED is not supported: use AGENT_MODE=legacy|recursive instead');
  const raw = (env.AGENT_MODE ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'legacy') return 'legacy';
  if (raw === 'recursive')
    throw new UsageError('AGENT_MODE=recursive (sub-agent tree) is not available in this version: unset AGENT_MODE or use AGENT_MODE=legacy');
  throw new UsageError(`AGENT_MODE must be legacy or recursive, got "${env.AGENT_MODE}"`);
}
