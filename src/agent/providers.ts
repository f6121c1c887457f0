/**
 * LLM providers: base-URL presets, known context limits, the chat model factory
 * and the translation of provider failures into one-line ProviderErrors.
 *
 * Every provider here speaks OpenAI chat completions. We build
 * ChatOpenAICompletions directly: plain ChatOpenAI silently switches to the
 * Responses API for some model names (codex, gpt-5.x-pro), which local and
 * third-party servers do not implement.
 */
import type { Settings } from '../config/schema.js';
import { ProviderError, UsageError, errorMessage } from '../errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectionDrop, retryAfterMs, tlsProblem } from './stream-guard.js';
import { runState } from '../core/run-state.js';

export const PROVIDER_PRESETS: Record<string, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  deepseek: 'https://api.deepseek.com/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  custom: undefined,
};

/** Local servers accept any key; hosted ones need one. */
export const KEYLESS_PROVIDERS = new Set(['ollama', 'lmstudio', 'vllm']);

export interface ProviderEndpoint {
  baseURL: string;
  model: string;
  provider: string;
}

export function resolveProviderEndpoint(settings: Pick<Settings, 'provider' | 'model' | 'base_url'>): ProviderEndpoint {
  const provider = settings.provider;
  const baseURL = settings.base_url ?? PROVIDER_PRESETS[provider];
  if (!baseURL) throw new UsageError(`provider "${provider}" needs a base URL: set --base-url <url> (or config set base_url)`);
  return { baseURL: baseURL.replace(/\/+$/, ''), model: settings.model, provider };
}

/** Context windows (thousands of tokens) of common models; prefix match, longest first. */
const KNOWN_CONTEXT_K: [string, number][] = [
  ['gpt-4o-mini', 128],
  ['gpt-4o', 128],
  ['gpt-4.1', 1047],
  ['gpt-4-turbo', 128],
  ['gpt-4', 8],
  ['gpt-3.5-turbo', 16],
  ['gpt-5', 400],
  ['o1', 200],
  ['o3', 200],
  ['o4-mini', 200],
  ['deepseek-chat', 64],
  ['deepseek-reasoner', 64],
  ['deepseek/deepseek-chat', 64],
  ['anthropic/claude', 200],
  ['claude', 200],
  ['google/gemini', 1000],
  ['gemini', 1000],
  ['qwen2.5', 32],
  ['qwen3', 32],
  ['llama3.1', 128],
  ['llama3.2', 128],
  ['llama3.3', 128],
  ['llama3', 8],
  ['mistral-nemo', 128],
  ['mistral', 32],
  ['gemma3', 128],
  ['gemma2', 8],
  ['phi4', 16],
].sort((a, b) => (b[0] as string).length - (a[0] as string).length) as [string, number][];

export function knownContextLimitK(model: string): number | undefined {
  const m = model.toLowerCase().replace(/^openai\//, '');
  for (const [prefix, k] of KNOWN_CONTEXT_K) if (m.startsWith(prefix)) return k;
  return undefined;
}

/** context_limit (thousands of tokens): the setting, else the known default, else a UsageError naming the setting. */
export function resolveContextLimitK(settings: Pick<Settings, 'context_limit' | 'model'>): number {
  if (settings.context_limit !== undefined) {
    if (!Number.isInteger(settings.context_limit) || settings.context_limit < 1 || settings.context_limit > 10_000)
      throw new UsageError(`context_limit must be an integer 1..10000 (thousands of tokens), got ${String(settings.context_limit)}`);
    return settings.context_limit;
  }
  const known = knownContextLimitK(settings.model);
  if (known === undefined)
    throw new UsageError(
      `context_limit is required for model "${settings.model}" (unknown context window): pass --context-limit <k> (thousands of tokens) or run \`gns3-copilot config set context_limit <k>\``,
    );
  return known;
}

/** o200k_base for the GPT-4o / 4.1 / 5 / o-series families, cl100k_base otherwise. */
export function encodingForModel(model: string): 'cl100k_base' | 'o200k_base' {
  const m = model.toLowerCase().replace(/^openai\//, '');
  return /^(gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4|chatgpt-4o)/.test(m) ? 'o200k_base' : 'cl100k_base';
}

export interface ModelOptions {
  endpoint: ProviderEndpoint;
  apiKey: string | undefined;
  temperature?: number;
  maxTokens?: number;
  /** tags auxiliary requests (title, summary, validator, root_validator) with x-copilot-purpose */
  purpose?: 'chat' | 'title' | 'summary' | 'validator' | 'root_validator';
  timeoutMs?: number;
}

/** Builds a chat-completions model; retries are ours (see withProviderRetry), not the SDK's. */
export async function createChatModel(o: ModelOptions) {
  const { ChatOpenAICompletions } = await import('@langchain/openai');
  return new ChatOpenAICompletions({
    model: o.endpoint.model,
    apiKey: o.apiKey ?? 'not-needed',
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
    streaming: true,
    streamUsage: true,
    maxRetries: 0,
    ...(o.timeoutMs ? { timeout: o.timeoutMs } : {}),
    configuration: {
      baseURL: o.endpoint.baseURL,
      maxRetries: 0,
      // the SDK would console.error raw SSE chunks it cannot parse; toProviderError says it in one line
      logLevel: 'off',
      ...(o.purpose && o.purpose !== 'chat' ? { defaultHeaders: { 'x-copilot-purpose': o.purpose } } : {}),
    },
  });
}

/** The LLM API key: keychain → GNS3_COPILOT_API_KEY → OPENAI_API_KEY; none for local servers. */
export async function resolveApiKey(provider: string): Promise<string | undefined> {
  try {
    const { openSecretStore, resolveLlmApiKey } = await import('../config/secrets.js');
    const key = await resolveLlmApiKey(openSecretStore());
    if (key) return key;
  } catch {
    // A broken keychain is not fatal: fall through to the env vars directly.
    const env = process.env.GNS3_COPILOT_API_KEY ?? process.env.OPENAI_API_KEY;
    if (env) return env;
  }
  // Local servers (Ollama, LM Studio, vLLM) and keyless custom endpoints need none.
  void provider;
  return undefined;
}

// ---------------------------------------------------------------------------
// Errors and retries

interface ErrorLike {
  status?: number;
  code?: string;
  name?: string;
  message?: string;
  cause?: unknown;
  headers?: unknown;
  lc_error_code?: string;
}

function statusOf(err: unknown): number | undefined {
  const e = err as ErrorLike | undefined;
  if (e && typeof e.status === 'number') return e.status;
  const m = /^(\d{3}) /.exec(e?.message ?? '');
  return m ? Number(m[1]) : undefined;
}

function isConnectionError(err: unknown): boolean {
  let e = err as ErrorLike | undefined;
  for (let i = 0; e && i < 5; i++) {
    if (e.name === 'APIConnectionError' || e.name === 'APIConnectionTimeoutError') return true;
    if (e.code && /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|UND_ERR/.test(e.code)) return true;
    e = e.cause as ErrorLike | undefined;
  }
  return /Connection error|ECONNREFUSED|fetch failed/i.test(errorMessage(err));
}

export function isRetryable(err: unknown): boolean {
  if ((err as ErrorLike | undefined)?.name === 'LlmIdleTimeoutError') return true;
  if (tlsProblem(err)) return false;
  const s = statusOf(err);
  if (s === 429 || (s !== undefined && s >= 500)) return true;
  return s === undefined && isConnectionError(err) && !/ECONNREFUSED/.test(JSON.stringify(causeChain(err)));
}

function causeChain(err: unknown): string[] {
  const out: string[] = [];
  let e = err as ErrorLike | undefined;
  for (let i = 0; e && i < 5; i++) {
    out.push(`${e.name ?? ''}:${e.code ?? ''}:${e.message ?? ''}`);
    e = e.cause as ErrorLike | undefined;
  }
  return out;
}

/** One clear line for the user; never the SDK's stack or raw body. */
export function toProviderError(
  err: unknown,
  endpoint: ProviderEndpoint,
  opts: { midStream?: boolean; attempts?: number } = {},
): ProviderError {
  if (err instanceof ProviderError) return err;
  const s = statusOf(err);
  const at = `${endpoint.provider} at ${endpoint.baseURL}`;
  if ((err as ErrorLike | undefined)?.name === 'LlmIdleTimeoutError')
    return new ProviderError(`LLM stream stalled: ${errorMessage(err)} — ${at}; raise llm_idle_timeout_ms for slow local models`, {
      cause: err,
    });
  const tls = tlsProblem(err);
  if (tls) return new ProviderError(`LLM provider ${at}: ${tls}`, { cause: err });
  if (opts.midStream && s === undefined && isConnectionDrop(err))
    return new ProviderError(`LLM stream was cut off mid-response (connection reset by ${at}); the partial answer above is incomplete`, {
      cause: err,
    });
  const detail = (errorMessage(err).split('\n')[0] ?? '').replace(/^\d{3} /, '').slice(0, 200);
  if (isMalformedStream(err))
    return new ProviderError(
      `LLM provider sent a malformed response stream (an event that is not valid JSON) — ${at}: is --base-url an OpenAI-compatible API?`,
      { cause: err },
    );
  if ((err as ErrorLike | undefined)?.name === 'ContextOverflowError')
    return new ProviderError(
      `The prompt does not fit the model's context window even after trimming — ${at}: ${detail}. Lower --context-limit or use --context-strategy conservative`,
      { cause: err },
    );
  if (s === 401 || s === 403)
    return new ProviderError(
      `LLM provider rejected the API key (${s}) — ${at}. Set it with \`gns3-copilot auth login\` or GNS3_COPILOT_API_KEY / OPENAI_API_KEY`,
      { cause: err },
    );
  if (s === 404)
    return new ProviderError(
      `LLM endpoint or model not found (404): model "${endpoint.model}" — ${at}. Check --base-url (it usually ends in /v1) and --model`,
      { cause: err },
    );
  if (s === 429) return new ProviderError(`LLM provider rate limit (429) ${triedText(opts.attempts)} — ${at}: ${detail}`, { cause: err });
  if (s !== undefined && s >= 500)
    return new ProviderError(`LLM provider error ${s} ${triedText(opts.attempts)} — ${at}: ${detail}`, { cause: err });
  if (s !== undefined) return new ProviderError(`LLM provider refused the request (${s}) — ${at}: ${detail}`, { cause: err });
  if (isConnectionError(err)) {
    const refused = causeChain(err).some((c) => c.includes('ECONNREFUSED'));
    return new ProviderError(
      `Cannot reach the LLM provider ${at}${refused ? ' (connection refused)' : ''}: is the server running and --base-url right?`,
      { cause: err },
    );
  }
  return new ProviderError(`LLM provider call failed — ${at}: ${detail}`, { cause: err });
}

function isMalformedStream(err: unknown): boolean {
  let e = err as ErrorLike | undefined;
  for (let i = 0; e && i < 5; i++) {
    if (e.name === 'SyntaxError' && /JSON/i.test(e.message ?? '')) return true;
    e = e.cause as ErrorLike | undefined;
  }
  return false;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

/**
 * The `llm_retries` setting (GNS3_COPILOT_LLM_RETRIES, validated 0..10 by the
 * settings loader like every setting): the number of retries, so 0 is one attempt.
 */
export function configureLlmRetries(retries: number): void {
  runState().llmRetries = retries;
}

/** 1 + llm_retries attempts (default 3), 500 ms → 1 s backoff (±20 %); the delay env var exists for tests. Read per call. */
export function defaultRetry(env: NodeJS.ProcessEnv = process.env): RetryPolicy {
  return {
    attempts: 1 + runState().llmRetries,
    baseDelayMs: Math.max(0, Number(env.GNS3_COPILOT_LLM_RETRY_MS ?? 500) || 0),
  };
}

/** How often a request was tried, for the final error: "after 3 attempts" / "(1 attempt, llm_retries is 0)". */
function triedText(attempts: number | undefined): string {
  if (attempts === undefined) return 'persisted';
  return attempts === 1 ? 'on the only attempt (llm_retries is 0)' : `persisted after ${attempts} attempts`;
}

/**
 * Runs `fn` with bounded exponential backoff on 429/5xx/transient network errors.
 * `fn` receives the attempt number; it must not retry once output was shown to
 * the user (it signals that by throwing a NonRetryable wrapper).
 */
export async function withProviderRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: {
    endpoint: ProviderEndpoint;
    signal?: AbortSignal;
    policy?: RetryPolicy;
    onRetry?: (attempt: number, err: unknown, delayMs: number) => void;
  },
): Promise<T> {
  const policy = opts.policy ?? defaultRetry();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (opts.signal?.aborted || isAbortErrorStrict(err)) throw err;
      const committed = (err as { committed?: boolean }).committed === true;
      if (committed || attempt >= policy.attempts || !isRetryable(err))
        throw toProviderError((err as { inner?: unknown }).inner ?? err, opts.endpoint, { midStream: committed, attempts: attempt });
      // a 429's Retry-After wins over our backoff (capped: a minute is the most we wait per attempt)
      const delay = Math.max(
        policy.baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4),
        Math.min(retryAfterMs(err) ?? 0, 60_000),
      );
      opts.onRetry?.(attempt, err, delay);
      await sleep(delay, undefined, { signal: opts.signal });
    }
  }
}

export function isAbortErrorStrict(err: unknown): boolean {
  const e = err as ErrorLike | undefined;
  return e?.name === 'AbortError' || e?.name === 'APIUserAbortError';
}
