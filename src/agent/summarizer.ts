/**
 * The history that no longer fits the context window, in one paragraph (context_summarize):
 * a metered call of the run whose context is prepared. When it is not made (no tree-budget
 * call left, no room under --max-cost) or fails, prepareContext drops the history instead.
 */
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Summarizer } from './context.js';
import { chatModels, type GraphDeps, type RunControl } from './graph-deps.js';
import { byteBoundTokens, MeteredCall, meteredCompletion, runScope } from './metered-call.js';
import { SUMMARY_MAX_TOKENS } from './session/models.js';
import { messageText } from '../sessions/message-text.js';

export function summarizerFor(deps: Pick<GraphDeps, 'prompts' | 'models' | 'cost'>, run: RunControl): Summarizer {
  return async (dropped, previous) => {
    const transcript = dropped.map((m) => `${m.getType().toUpperCase()}: ${messageText(m).slice(0, 4000)}`).join('\n');
    const messages = [
      new SystemMessage(deps.prompts.get('summary')),
      new HumanMessage(`${previous ? `Earlier summary:\n${previous}\n\n` : ''}Messages to summarize:\n${transcript}`),
    ];
    const call = await meteredCompletion(
      new MeteredCall(runScope(run, deps.cost.price), 'summary'),
      (await chatModels(deps)).summary,
      messages,
      {
        signal: run.signal,
        inputTokens: byteBoundTokens(messages),
        maxOutputTokens: SUMMARY_MAX_TOKENS,
      },
    );
    if (!call.made)
      throw new Error(
        call.why === 'budget'
          ? 'the tree budget has no LLM call left for a summary'
          : 'the cost limit (--max-cost) leaves no room for a summary',
      );
    return messageText(call.res);
  };
}
