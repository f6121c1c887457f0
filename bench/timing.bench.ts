/**
 * Speeds the tests used to assert with wall-clock limits (flaky on a shared
 * 2-core CI box), measured here instead: the compact BPE counter against
 * js-tiktoken on this repository's own text (goal: ≤ 1.5× js-tiktoken's time),
 * the skills loader's cache hit (goal < 5 ms a call) and counting the
 * pathological 2 MB / 60 KB inputs (goal < 1,000 ms each).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { CompactCounter } from '../src/agent/bpe-count.js';
import { readRanks, TokenCounter } from '../src/agent/tokens.js';
import { skillStore } from '../src/skills/loader.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function repoText(): string {
  const out: string[] = [];
  for (const dir of ['src/agent', 'prompts', 'docs'])
    for (const f of readdirSync(join(ROOT, dir)))
      if (/\.(ts|md|txt|ya?ml|json)$/.test(f)) out.push(readFileSync(join(ROOT, dir, f), 'utf8'));
  out.push(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  return out.join('\n');
}

function timeMs(f: () => void, runs = 5): number {
  f(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

export async function run(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const text = repoText();
  const stock = new Tiktoken(cl100k);
  const compact = new CompactCounter(readRanks('cl100k_base'));
  const ours = timeMs(() => compact.count(text));
  const theirs = timeMs(() => stock.encode(text, [], []));
  rows.push([
    `BPE count, ${Math.round(text.length / 1024)} KB of repo text`,
    fmtMs(ours),
    `${(ours / theirs).toFixed(2)}× js-tiktoken (${fmtMs(theirs)})`,
    '≤ 1.5×',
  ]);

  const store = skillStore({}, {});
  store.load();
  const hit =
    timeMs(() => {
      for (let i = 0; i < 50; i++) store.load();
    }) / 50;
  rows.push(['skills loader, cache hit (per call)', fmtMs(hit), '', '< 5 ms']);

  const counter = await TokenCounter.create('cl100k_base');
  const inputs: [string, string][] = [
    ['2 MB of one character', 'a'.repeat(2_000_000)],
    ['57 KB of 63-char words', ('a'.repeat(63) + ' ').repeat(900)],
    ['60 KB of 15-char words', ('x'.repeat(15) + ' ').repeat(3800)],
    ['60 KB of one punctuation mark', '-'.repeat(60_000)],
  ];
  for (const [name, s] of inputs) rows.push([`token count, ${name}`, fmtMs(timeMs(() => counter.text(s), 3)), '', '< 1,000 ms']);
  return { title: 'Timing (former wall-clock test assertions)', columns: ['measure', 'median', 'relative', 'goal'], rows };
}
