import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompactCounter, RankTable } from '../../src/agent/bpe-count.js';
import { encodeRankTable, readRankTable } from '../../src/agent/bpe-table-file.js';
import { loadEncoder, rankTablePath, readRanks, readRanksFile } from '../../src/agent/tokens.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-bpe-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const texts = [
  'R1# show ip route\nO>* 10.0.23.0/24 [110/20] via 10.0.12.2, eth0, 00:01:02',
  '日本語のテキストと emoji 🚀🔥 and accents: café naïve façade',
  readFileSync('README.md', 'utf8'),
];

describe('saved rank table', () => {
  const raw = readRanksFile('cl100k_base');
  const source = readRanks('cl100k_base', raw);
  const built = RankTable.build(source.bpe_ranks);
  const file = rankTablePath('cl100k_base', dir);
  writeFileSync(file, encodeRankTable(built, raw));

  it('reads back a table that counts exactly as the one built from the ranks', () => {
    const saved = readRankTable(file, raw);
    expect(saved).toBeDefined();
    expect(saved!.size).toBe(built.size);
    const fromFile = new CompactCounter(source, saved);
    const fromRanks = new CompactCounter(source, built);
    for (const t of texts) expect(fromFile.count(t)).toBe(fromRanks.count(t));
  });

  it('is refused for other ranks, when cut short, or when missing (the caller builds instead)', () => {
    expect(readRankTable(file, readRanksFile('o200k_base'))).toBeUndefined();
    const cut = join(dir, 'cut.bpe-table');
    writeFileSync(cut, readFileSync(file).subarray(0, 5000));
    expect(readRankTable(cut, raw)).toBeUndefined();
    expect(readRankTable(join(dir, 'missing.bpe-table'), raw)).toBeUndefined();
  });

  it('loadEncoder uses the saved table next to it, and builds one where there is none', () => {
    const fromFile = loadEncoder('cl100k_base', dir) as CompactCounter;
    // read back: every array is a view of the one buffer the file was read into
    expect(fromFile.table.offsets.buffer).toBe(fromFile.table.bytes.buffer);
    const builtHere = loadEncoder('cl100k_base', join(dir, 'empty')) as CompactCounter;
    expect(builtHere.table.offsets.buffer).not.toBe(builtHere.table.bytes.buffer);
    for (const t of texts) expect(fromFile.count(t)).toBe(builtHere.count(t));
  });
});
