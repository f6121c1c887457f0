/**
 * The context lines of the log (info, the default file level): what each LLM call
 * was built from — topology injected or not, the budget, trimming n→m, the
 * prepared size — and an error when the tool schemas alone do not fit.
 */
import type { Logger } from '../log.js';
import { STRATEGY_RATIO, type ContextPlan, type ContextStrategy } from './context.js';

export interface ContextLogInput {
  strategy: ContextStrategy;
  limitK: number;
  /** rendered topology text, undefined when none was injected */
  topology: string | undefined;
  /** history messages before trimming */
  historyMessages: number;
  finalPass: boolean;
}

export function logContext(log: Logger, plan: ContextPlan, c: ContextLogInput): void {
  if (c.topology) log.info('topology injected', { chars: c.topology.length });
  else log.info('no topology injected');
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
  if (plan.trimmed > 0)
    log.info(`messages trimmed ${c.historyMessages}→${sent}`, { from: c.historyMessages, to: sent, summarized: plan.summary !== null });
  log.info('context prepared', {
    messages: sent,
    tokens: plan.tokens,
    tools_tokens: plan.toolsTokens,
    total: plan.tokens + plan.toolsTokens,
    percent: plan.percent,
  });
}
