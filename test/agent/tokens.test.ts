import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { getEncoder, TokenCounter } from '../../src/agent/tokens.js';

const sample = 'hello world, OSPF neighbor 10.0.0.1 FULL/DR';

describe('token counting encoder', () => {
  it('one encoder per encoding per process; a lazy counter builds it on ready()', async () => {
    expect(await getEncoder('cl100k_base')).toBe(await getEncoder('cl100k_base'));
    const lazy = TokenCounter.lazy('cl100k_base');
    expect(() => lazy.text('hello')).toThrow(/before ready/);
    await lazy.ready();
    expect(lazy.text(sample)).toBe(new Tiktoken(cl100k).encode(sample).length);
  });

  it('a message quoting a special token is counted, not refused (js-tiktoken throws on it)', async () => {
    const counter = await TokenCounter.create('o200k_base');
    expect(counter.text('the model printed <|endoftext|> and stopped')).toBeGreaterThan(5);
  });
});
