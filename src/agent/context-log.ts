/**
 * The context lines of the log (info, the default file level): what each LLM call
 * was built from — how many messages went into the preparation, the topology injected
 * (its node names) or a warning that none was, the budget, the messages before → after
 * preparation, the prepared size — an error when the tool schemas alone do not fit, and
 * an error when trimming failed and the original messages are sent instead.
 */
import type { Logger } from '../log.js';
import type { InjectedTopology } from './graph-deps.js';
import { STRATEGY_RATIO, type ContextPlan, type ContextStrategy } from './context.js';

export interface ContextLogInput {
  strategy: ContextStrategy;
  limitK: number;
  /** the topology injected into the system prompt, undefined when none was */
  topology: InjectedTopology | undefined;
  /** history messages before preparation */
  historyMessages: number;
  finalPass: boolean;
}

/** Said before the history is prepared (trimmed, summarized) for a call. */
export function logPreparing(log: Logger, historyMessages: number): void {
  log.info(`Calling pre_hook to prepare ${historyMessages} messages`, { messages: historyMessages });
}

export function logContext(log: Logger, plan: ContextPlan, c: ContextLogInput): void {
  if (c.topology)
    log.info(`Topology injected: ${c.topology.nodes.length ? c.topology.nodes.join(', ') : 'no nodes'}`, {
      nodes: c.topology.nodes,
      chars: c.topology.text.length,
    });
  else log.warn('No topology injected: the model sees no lab topology (no project open, or it could not be read)');
  if (plan.failure) log.error(`${plan.failure}; sending the original ${plan.messages.length} messages`);
  if (plan.warning) log.warn(plan.warning);
  if (plan.budget <= 0) {
    const share = Math.floor(plan.limit * STRATEGY_RATIO[c.strategy]);
    log.error(
      `Tools alone exceed the budget: the tool schemas take ${plan.toolsTokens} tokens of the ${share} the ${c.strategy} strategy allows from --context-limit ${c.limitK} (${plan.limit} tokens); raise --context-limit`,
      { tools_tokens: plan.toolsTokens, budget: plan.budget, limit: plan.limit, strategy: c.strategy },
    );
  }
  log.info('context ready', {
    strategy: c.strategy,
    limit: plan.limit,
    budget: plan.budget,
    tools_tokens: plan.toolsTokens,
    final_pass: c.finalPass,
  });
  const sent = plan.messages.length;
  log.info(`Messages prepared: ${c.historyMessages} → ${sent}`, {
    from: c.historyMessages,
    to: sent,
    trimmed: plan.trimmed,
    summarized: plan.summary !== null,
  });
  log.info('context prepared', {
    messages: sent,
    tokens: plan.tokens,
    tools_tokens: plan.toolsTokens,
    total: plan.tokens + plan.toolsTokens,
    percent: plan.percent,
  });
}
