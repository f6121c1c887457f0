import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { getEncoder, TokenCounter } from '../../src/agent/tokens.js';

const samples = [
  'hello world, OSPF neighbor 10.0.0.1 FULL/DR',
  'R1# show ip route\nCodes: K - kernel route, C - connected, S - static, O - OSPF\nO>* 10.0.23.0/24 [110/20] via 10.0.12.2, eth0, 00:01:02',
  '日本語のテキストと emoji 🚀🔥 and accents: café naïve façade',
  '{"device_configs":[{"device_name":"R1","commands":["show ip ospf neighbor"]}]}',
  '   leading spaces\t\ttabs\r\n\r\nand\u00a0nbsp ' + '-'.repeat(300),
  Array.from({ length: 2000 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 5000))).join(''),
];

describe('token counting encoder', () => {
  it('one encoder per encoding per process; a lazy counter builds it on ready()', async () => {
    expect(await getEncoder('cl100k_base')).toBe(await getEncoder('cl100k_base'));
    const lazy = TokenCounter.lazy('cl100k_base');
    expect(() => lazy.text('hello')).toThrow(/before ready/);
    await lazy.ready();
    expect(lazy.text(samples[0]!)).toBe(new Tiktoken(cl100k).encode(samples[0]!).length);
  });
});
