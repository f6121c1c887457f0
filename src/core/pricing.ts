/**
 * What a model costs, per million tokens (USD). The defaults cover common OpenAI
 * and DeepSeek models; the `model_prices` setting adds or overrides entries (a
 * local Ollama model costs nothing: `{"qwen2.5": {"input": 0, "output": 0}}`).
 * Shared by the per-request stats (`stats.cost_usd`) and the sub-agent tree budget.
 */
export interface ModelPrice {
  /** USD per 1M input (prompt) tokens */
  input: number;
  /** USD per 1M output (completion) tokens */
  output: number;
}

export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'deepseek-chat': { input: 0.27, output: 1.1 },
  'deepseek-reasoner': { input: 0.55, output: 2.19 },
};

/**
 * The price of a model: an exact entry wins, then the longest entry the name starts
 * with (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`; a provider prefix such as
 * `openai/gpt-4o` is looked up without it too). Undefined when nothing matches:
 * callers then report the cost as unknown instead of guessing.
 */
export function priceOf(model: string, overrides: Record<string, ModelPrice> = {}): ModelPrice | undefined {
  const table: Record<string, ModelPrice> = { ...DEFAULT_MODEL_PRICES, ...overrides };
  const names = [model, model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : undefined].filter((n): n is string => !!n);
  for (const name of names) {
    const exact = table[name];
    if (exact) return exact;
    const prefix = Object.keys(table)
      .filter((k) => name.startsWith(k))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix) return table[prefix];
  }
  return undefined;
}

/** Micro-dollar precision for stats; null when the price is unknown. */
export function roundUsd(v: number | undefined): number | null {
  return v === undefined ? null : Math.round(v * 1e6) / 1e6;
}

/** USD for the given token counts, or undefined when the model's price is unknown. */
export function costUsd(
  model: string,
  usage: { input_tokens: number; output_tokens: number },
  overrides: Record<string, ModelPrice> = {},
): number | undefined {
  const p = priceOf(model, overrides);
  if (!p) return undefined;
  return (usage.input_tokens * p.input + usage.output_tokens * p.output) / 1_000_000;
}
