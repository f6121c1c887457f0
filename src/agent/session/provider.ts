/** Step 1 of a session: the model endpoint, its context size, its API key, its models and token counter. */
import type { Settings } from '../../config/schema.js';
import { ProviderError } from '../../errors.js';
import type { ChatModels } from '../graph-deps.js';
import { COST_OUTPUT_CAP } from '../cost-limit.js';
import { priceOf } from '../../core/pricing.js';
import {
  encodingForModel,
  KEYLESS_PROVIDERS,
  resolveApiKey,
  resolveContextLimitK,
  resolveProviderEndpoint,
  type ProviderEndpoint,
} from '../providers.js';
import { TokenCounter } from '../tokens.js';
import { lazyChatModels } from './models.js';

export interface ResolvedProvider {
  endpoint: ProviderEndpoint;
  limitK: number;
  models: ChatModels | (() => Promise<ChatModels>);
  counter: TokenCounter;
}

/** Refused without an API key where the provider needs one. */
export async function resolveProvider(settings: Settings): Promise<ResolvedProvider> {
  const endpoint = resolveProviderEndpoint(settings);
  const limitK = resolveContextLimitK(settings);
  const apiKey = await resolveApiKey(settings.provider);
  if (!apiKey && !KEYLESS_PROVIDERS.has(settings.provider) && settings.provider !== 'custom')
    throw new ProviderError(
      `No LLM API key for provider "${settings.provider}": run \`gns3-copilot auth login\` or set GNS3_COPILOT_API_KEY (or OPENAI_API_KEY)`,
    );
  const models = lazyChatModels(endpoint, apiKey, settings);
  // built on the first LLM call: an idle TUI session does not hold the BPE ranks
  const counter = TokenCounter.lazy(encodingForModel(endpoint.model));
  return { endpoint, limitK, models, counter };
}

/** The chat model's price and output cap: --max-cost reserves a call's worst case from them. */
export function chatCost(model: string, settings: Pick<Settings, 'model_prices' | 'max_tokens'>) {
  const price = priceOf(model, settings.model_prices);
  return { ...(price ? { price } : {}), maxOutputTokens: settings.max_tokens ?? COST_OUTPUT_CAP };
}
