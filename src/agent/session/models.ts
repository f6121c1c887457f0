/**
 * The session's chat models (answer, title, summary, the sub-agent and root Validators), built with the first LLM call:
 * importing @langchain/openai costs ~45 MB that an idle TUI session waiting at the
 * prompt should not pay for. A failed build is retried by the next call.
 */
import type { Settings } from '../../config/schema.js';
import type { ChatModels } from '../graph-deps.js';
import { COST_OUTPUT_CAP, VALIDATOR_MAX_TOKENS } from '../cost-limit.js';
import { configureLlmRetries, createChatModel, type ProviderEndpoint } from '../providers.js';

/** the session title is a few words */
export const TITLE_MAX_TOKENS = 32;
/** the summary of dropped history is one paragraph */
export const SUMMARY_MAX_TOKENS = 600;

export function lazyChatModels(
  endpoint: ProviderEndpoint,
  apiKey: string | undefined,
  settings: Pick<Settings, 'temperature' | 'max_tokens' | 'llm_retries' | 'max_cost'>,
): () => Promise<ChatModels> {
  configureLlmRetries(settings.llm_retries);
  // --max-cost needs a worst case per call: without max_tokens, chat calls are capped
  const chatMaxTokens = settings.max_tokens ?? (settings.max_cost !== undefined ? COST_OUTPUT_CAP : undefined);
  let modelsPromise: Promise<ChatModels> | undefined;
  return () => {
    modelsPromise ??= Promise.all(
      (['chat', 'title', 'summary', 'validator', 'root_validator'] as const).map((purpose) =>
        createChatModel({
          endpoint,
          apiKey,
          purpose,
          ...(purpose === 'chat' && settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
          ...(purpose === 'chat' && chatMaxTokens !== undefined ? { maxTokens: chatMaxTokens } : {}),
          ...(purpose === 'title' || purpose === 'summary'
            ? { maxTokens: purpose === 'title' ? TITLE_MAX_TOKENS : SUMMARY_MAX_TOKENS, temperature: 0 }
            : {}),
          ...(purpose === 'validator' || purpose === 'root_validator' ? { maxTokens: VALIDATOR_MAX_TOKENS, temperature: 0 } : {}),
        }),
      ),
    ).then(([chat, title, summary, validator, rootValidator]) => ({
      chat: chat!,
      title: title!,
      summary: summary!,
      validator: validator!,
      rootValidator: rootValidator!,
    }));
    modelsPromise.catch(() => (modelsPromise = undefined));
    return modelsPromise;
  };
}
