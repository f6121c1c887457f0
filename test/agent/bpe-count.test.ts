import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { CompactCounter } from '../../src/agent/bpe-count.js';
import { readRanks } from '../../src/agent/tokens.js';

/** deterministic pseudo-random text: mixed scripts, digits, punctuation, whitespace runs, lone surrogates */
function randomText(seed: number, length: number): string {
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  const pools = [
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '0123456789',
    ' \t\n\r  ',
    '.,;:!?\'"()[]{}<>/\\|-_=+*&^%$#@~`',
    'éèçàüößñøåæœ',
    '日本語中文한국어Русскийעבריתالعربية',
    '🚀🔥👍🏽🇩🇪',
    '\ud800\udfff\udc00', // lone surrogates and a valid pair
    "'s 're 'll 'd 'S 'LL ",
  ];
  let s = '';
  while (s.length < length) {
    const pool = pools[next() % pools.length]!;
    const run = 1 + (next() % 12);
    for (let i = 0; i < run; i++) s += pool[next() % pool.length];
  }
  return s;
}

/** real text of this repository: code, prose, JSON, YAML */
function repoCorpus(): string[] {
  const out: string[] = [];
  for (const dir of ['src/agent', 'prompts', 'docs']) {
    for (const f of readdirSync(dir)) {
      if (!/\.(ts|md|txt|ya?ml|json)$/.test(f)) continue;
      out.push(readFileSync(join(dir, f), 'utf8'));
    }
  }
  out.push(readFileSync('package.json', 'utf8'), readFileSync('README.md', 'utf8'));
  return out;
}

const samples = [
  '',
  'hello world, OSPF neighbor 10.0.0.1 FULL/DR',
  'R1# show ip route\nCodes: K - kernel route, C - connected, S - static, O - OSPF\nO>* 10.0.23.0/24 [110/20] via 10.0.12.2, eth0, 00:01:02',
  '日本語のテキストと emoji 🚀🔥 and accents: café naïve façade',
  '{"device_configs":[{"device_name":"R1","commands":["show ip ospf neighbor"]}]}',
  '   leading spaces\t\ttabs\r\n\r\nand\u00a0nbsp ' + '-'.repeat(300),
  Array.from({ length: 2000 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 5000))).join(''),
  'a'.repeat(3000),
  ('x'.repeat(15) + ' ').repeat(200),
  '\ud83d',
];

const RANKS = { cl100k_base: cl100k, o200k_base: o200k };
type Name = keyof typeof RANKS;

/** One stock encoder and one compact counter per encoding for the whole file: building
 * js-tiktoken's from its rank text takes seconds, and neither keeps state between calls. */
const built = new Map<Name, { stock: Tiktoken; compact: CompactCounter }>();
function encoders(name: Name): { stock: Tiktoken; compact: CompactCounter } {
  let e = built.get(name);
  if (!e) built.set(name, (e = { stock: new Tiktoken(RANKS[name]), compact: new CompactCounter(readRanks(name)) }));
  return e;
}

describe('compact BPE counter', () => {
  for (const name of ['cl100k_base', 'o200k_base'] as const) {
    it(`${name}: counts exactly what stock js-tiktoken encodes, on samples, the repo's own text and random text`, () => {
      const { stock, compact } = encoders(name);
      const stockRanks: unknown = Reflect.get(stock, 'rankMap'); // a private field of js-tiktoken
      expect(stockRanks).toBeInstanceOf(Map);
      expect(compact.table.size).toBe((stockRanks as Map<string, number>).size);
      const corpus = [...samples, ...repoCorpus(), ...Array.from({ length: 40 }, (_, i) => randomText(i + 1, 4000))];
      let tokens = 0;
      for (const s of corpus) {
        const want = stock.encode(s, [], []).length;
        expect(compact.count(s), JSON.stringify(s.slice(0, 80))).toBe(want);
        tokens += want;
      }
      expect(tokens).toBeGreaterThan(100_000);
    });
  }

  it('counts text that quotes a special token as ordinary text (js-tiktoken would throw)', () => {
    const { stock, compact } = encoders('cl100k_base');
    expect(() => stock.encode('a <|endoftext|> b')).toThrow();
    expect(compact.count('a <|endoftext|> b')).toBe(stock.encode('a <|endoftext|> b', [], []).length);
  });
});
