/**
 * The graph's title node: after the root's first answer, a few words naming the session.
 * A metered call like any other (--max-cost, the tree budget); when it is not made or
 * fails, the first words of the user's message are the title.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { chatModels, runOf, type GraphDeps } from './graph-deps.js';
import { MeteredCall, meteredCompletion, runScope } from './metered-call.js';
import { TITLE_MAX_TOKENS } from './session/models.js';
import { addUsage } from './completion.js';
import { messageText } from '../sessions/message-text.js';
import { errorMessage } from '../errors.js';
import { fallbackTitle } from '../sessions/store.js';

/** a title that takes longer is not worth waiting for */
const TITLE_TIMEOUT_MS = 15_000;

export function titleNode(deps: GraphDeps) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const run = runOf(config);
    const firstUser = state.messages.find((m) => m.getType() === 'human');
    const question = firstUser ? messageText(firstUser) : '';
    const answer = [...state.messages].reverse().find((m) => m.getType() === 'ai' && messageText(m));
    let title = '';
    let usage = state.usage;
    const messages = [
      new SystemMessage(deps.prompts.get('title')),
      new HumanMessage(`User: ${question.slice(0, 2000)}\n\nAssistant: ${(answer ? messageText(answer) : '').slice(0, 1000)}`),
    ];
    if (!run.signal.aborted) {
      try {
        const call = await meteredCompletion(
          new MeteredCall(runScope(run, deps.cost.price), 'title'),
          (await chatModels(deps)).title,
          messages,
          {
            signal: AbortSignal.any([run.signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]),
            inputTokens: messages.reduce((n, m) => n + deps.counter.message(m), 0),
            maxOutputTokens: TITLE_MAX_TOKENS,
          },
        );
        if (call.made) {
          title = messageText(call.res);
          usage = addUsage(usage, call.res);
        }
      } catch (err) {
        deps.log.warn('title generation failed, using the first words of the message', { error: errorMessage(err) });
      }
    }
    deps.saveTitle(title.trim() ? title : fallbackTitle(question));
    return { usage };
  };
}
