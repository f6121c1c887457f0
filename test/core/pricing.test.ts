import { describe, expect, it } from 'vitest';
import { costUsd, priceOf } from '../../src/core/pricing.js';
import { validateSetting } from '../../src/config/validate.js';

describe('model prices', () => {
  it('finds exact, dated and provider-prefixed model names', () => {
    expect(priceOf('gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf('gpt-4o-2024-08-06')).toEqual({ input: 2.5, output: 10 });
    expect(priceOf('openai/gpt-4.1-mini')).toEqual({ input: 0.4, output: 1.6 });
  });

  it('reports an unknown model as unknown, not free', () => {
    expect(priceOf('qwen2.5')).toBeUndefined();
    expect(costUsd('qwen2.5', { input_tokens: 1000, output_tokens: 1000 })).toBeUndefined();
  });

  it('settings override and extend the table', () => {
    const table = { 'qwen2.5': { input: 0, output: 0 }, 'gpt-4o-mini': { input: 1, output: 2 } };
    expect(costUsd('qwen2.5', { input_tokens: 5000, output_tokens: 5000 }, table)).toBe(0);
    expect(costUsd('gpt-4o-mini', { input_tokens: 1_000_000, output_tokens: 500_000 }, table)).toBeCloseTo(2);
  });

  it('computes USD per million tokens', () => {
    expect(costUsd('gpt-4o-mini', { input_tokens: 2_000_000, output_tokens: 1_000_000 })).toBeCloseTo(0.9);
  });

  it('model_prices is validated like every setting', () => {
    expect(validateSetting('model_prices', { m: { input: 1, output: 2 } }, 'config.json')).toEqual({ m: { input: 1, output: 2 } });
    expect(() => validateSetting('model_prices', { m: { input: -1, output: 2 } }, 'config.json')).toThrow(
      /model_prices|config.json: must be a JSON object \{model/,
    );
  });
});
