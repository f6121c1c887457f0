/** A limit a run reached (or crossed softly), said once: a `limit` event and a warn line. */
import type { StoppedReason } from '../core/events.js';
import type { Logger } from '../log.js';
import type { RunControl } from './graph-deps.js';
import type { AgentStateType } from './state.js';
import { limitEventMessage } from './limits.js';

export function reportLimit(
  log: Logger,
  run: RunControl,
  state: Pick<AgentStateType, 'limits' | 'llm_calls'>,
  reason: StoppedReason,
  action: 'stop' | 'wrap_up' | 'continue',
): void {
  const budget = reason === 'budget' ? (run.budget?.exhausted() ?? null) : null;
  run.emit({ type: 'limit', reason, action, message: limitEventMessage(reason, action, state.limits, budget) });
  log.warn(action === 'continue' ? 'limit crossed (on_limit continue)' : 'limit reached', {
    reason,
    action,
    on_limit: state.limits.on_limit,
    ...(budget ? { budget } : {}),
    llm_calls: state.llm_calls,
    tool_calls: run.counters.count,
  });
}
