/**
 * The scenario library's scoring blocks: every built-in scenario that can be scored has a
 * trouble ticket that gives nothing away and a diagnosis; the schema refuses the ways a
 * scenario could be scored wrongly; and the eval-ready counts the docs and the README print
 * are the library's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { keywordsIn } from '../../src/skills/schema.js';
import { evalReadyCounts, isEvalReady } from '../../src/skills/eval-ready.js';

const ROOT = join(import.meta.dirname, '../..');
const lib = new SkillStore([builtinSkillsDir()]).load();
const all = [...lib.injection.values()];

describe('the built-in scenarios', () => {
  it('load without issues; every one with a repair check or a link filter is eval-ready', () => {
    expect(lib.issues).toEqual([]);
    const scorable = all.filter((s) => s.repair_check || s.target === 'link');
    expect(scorable.filter((s) => !isEvalReady(s)).map((s) => s.id)).toEqual([]);
    expect(all.filter((s) => !isEvalReady(s)).map((s) => s.id).sort()).toEqual(['linux_nft_drop_icmp', 'mtu_mismatch', 'trunk_vlan_pruned']);
  });

  it('tickets name no keyword of their diagnosis; link filters are scored on diagnosis only', () => {
    for (const s of all.filter(isEvalReady)) {
      expect(keywordsIn(s.ticket!, s.diagnosis!.keywords), s.id).toEqual([]);
      expect(s.diagnosis!.repair, s.id).toBe(s.target === 'link' ? 'none' : 'config');
    }
  });

  it('docs/checks-and-faults.md and the README print the eval-ready counts of the library', () => {
    const counts = evalReadyCounts(all);
    const docs = readFileSync(join(ROOT, 'docs/checks-and-faults.md'), 'utf8');
    const table = docs.split('<!-- eval-ready: kept true by test/skills/eval-ready.test.ts -->\n')[1]!.split('\n\n')[0]!;
    const rows = table
      .split('\n')
      .slice(2)
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    expect(rows).toEqual(counts.map((c) => [c.platform, String(c.ready), String(c.diagnosis_only), String(c.not_ready)]));
    const readme = /<!-- eval-ready-readme -->(.*?)<!-- \/eval-ready-readme -->/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))![1];
    expect(readme).toBe(counts.map((c) => `${c.platform === 'any' ? 'any lab (link filters)' : c.platform} ${c.ready}`).join(', '));
  });
});

describe('the schema of ticket and diagnosis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-scoring-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (name: string, extra: string, target: 'device' | 'link' = 'device') => {
    const base = join(dir, name);
    mkdirSync(join(base, 'injection'), { recursive: true });
    const body =
      target === 'link'
        ? '     link_filter: {packet_loss: [30]},'
        : '     parameters: [{name: interface, description: i, example: eth0}], inject: {frr: ["interface {{interface}}", shutdown]}, restore: {frr: ["interface {{interface}}", no shutdown]},';
    writeFileSync(
      join(base, 'injection/x.yaml'),
      `scenarios:\n  - {id: x, title: X, category: interface, severity: low, difficulty: easy, platforms: [${target === 'link' ? 'any' : 'frr'}], target: ${target},\n     description: d,\n${body}\n     symptoms: [s], hints: [h],\n${extra}}\n`,
    );
    const l = new SkillStore([base]).load();
    return { issue: l.issues[0]?.message ?? '', scenario: l.injection.get('x') };
  };

  it('refuses a ticket that says a keyword, a ticket with a placeholder, and repair: config without a check', () => {
    const check = '     repair_check: {interface: {device: "{{device}}", name: "{{interface}}", state: up}},\n';
    expect(load('a', `${check}     ticket: "The interface went into shutdown.", diagnosis: {keywords: [shutdown]}`).issue).toBe(
      'scenarios[0].ticket (x): gives the cause away: it says "shutdown" (a diagnosis keyword)',
    );
    expect(load('b', `${check}     ticket: "{{device}} is cut off.", diagnosis: {keywords: [shut]}`).issue).toBe(
      'scenarios[0].ticket (x): a ticket is plain text: no {{placeholders}}',
    );
    expect(load('c', '     ticket: "Neighbours are gone.", diagnosis: {keywords: [shut]}').issue).toMatch(
      /^scenarios\[0\]\.diagnosis\.repair \(x\): repair: config needs a repair_check/,
    );
    const ok = load('d', `${check}     ticket: "Neighbours over one link went down.", diagnosis: {keywords: [Shutdown, "admin down"]}`);
    expect(ok.issue).toBe('');
    expect(ok.scenario!.diagnosis).toEqual({ keywords: ['shutdown', 'admin down'], repair: 'config' });
    expect(isEvalReady(ok.scenario!)).toBe(true);
  });

  it('a link filter must say it is scored on diagnosis only', () => {
    expect(load('e', '     ticket: "Pings miss replies.", diagnosis: {keywords: [loss]}', 'link').issue).toMatch(
      /^scenarios\[0\]\.diagnosis\.repair \(x\): a link filter is not repaired by device configuration: say repair: none/,
    );
    expect(load('f', '     ticket: "Pings miss replies.", diagnosis: {keywords: [loss], repair: none}', 'link').issue).toBe('');
  });

  it('keywords match as whole words or phrases, case-insensitively', () => {
    expect(keywordsIn('The Hello timer changed', ['hello', 'timer', 'interval'])).toEqual(['hello', 'timer']);
    expect(keywordsIn('Pings lose replies', ['loss'])).toEqual([]);
    expect(keywordsIn('a /32 on the loopback', ['/32', 'loopback'])).toEqual(['/32', 'loopback']);
  });
});
