/**
 * What the topology costs in the system prompt of every LLM call: the compact text (one line per
 * node, defaults said once, links as an adjacency list) read from the fake controller at
 * 10/40/100/400 nodes, counted with o200k, stays at most 8 tokens per node and link on a
 * 100-node lab and still names every node and every link; above `topology_inline_max` nodes
 * the real session's prompt carries a summary and points at gns3_topology_reader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGns3Client, type Gns3Client } from '../../src/gns3/client.js';
import { nameRanges, renderPromptTopology, renderTopologySummary } from '../../src/gns3/render.js';
import type { Topology } from '../../src/gns3/types.js';
import { getEncoder } from '../../src/agent/tokens.js';
import { settingsSchema } from '../../src/config/schema.js';
import { nullLogger } from '../../src/log.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { seedRingLab, seedRouterRing } from '../fakes/gns3/lab-seed.js';
import { collect, session, testSettings, testTools, useFakeLlm } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-topo-prompt-');
const SIZES = [10, 40, 100, 400] as const;

let gns3: FakeGns3;
let client: Gns3Client;
const links = new Map<number, number>();

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  for (const n of SIZES) links.set(n, seedRouterRing(gns3, `ring${n}`, n));
  gns3.addProject({ name: 'mixed' });
  seedRingLab(gns3, 30, 'mixed');
  client = createGns3Client({ settings: settingsSchema.parse({ server: gns3.url }), log: nullLogger });
});
afterAll(async () => {
  await client.close();
  await gns3.close();
});

const topologyOf = async (name: string) => (await client.openProject(name)).getTopology();

/** Every link named by the text, as sorted `A:p=B:p` pairs, read back from the node lines' adjacency lists. */
function linksIn(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const name = /^(\S+)(?= |$)/.exec(line)?.[1];
    if (!name || line.startsWith('Project ') || line.startsWith('Nodes:')) continue;
    for (const m of line.matchAll(/ (\S+?)-(\S+?:\S+?)(?:\[[^\]]*\])?(?= |$)/g)) out.push([`${name}:${m[1]}`, m[2]!].sort().join('='));
  }
  return out.sort();
}
const linksOf = (t: Topology) =>
  t.links
    .map((l) =>
      l.ends
        .map((e) => `${e.node_name}:${e.port_name}`)
        .sort()
        .join('='),
    )
    .sort();

describe('the topology in the system prompt', () => {
  it('costs at most 8 o200k tokens per node and link at 100 nodes, and names every node and link (10/40/100/400)', async () => {
    const enc = await getEncoder('o200k_base');
    const perUnit: Record<number, number> = {};
    for (const n of SIZES) {
      const t = await topologyOf(`ring${n}`);
      expect(t.nodes).toHaveLength(n);
      expect(t.links).toHaveLength(links.get(n)!);
      const text = renderPromptTopology(t, Infinity);
      expect(linksIn(text)).toEqual(linksOf(t));
      const lines = text.split('\n');
      for (const node of t.nodes) expect(lines.filter((l) => l.startsWith(`${node.name} `))).toHaveLength(1);
      perUnit[n] = enc.count(text) / (n + t.links.length);
    }
    expect(perUnit[100]).toBeLessThanOrEqual(8);
    expect(perUnit[40]).toBeLessThanOrEqual(8);
    expect(perUnit[400]).toBeLessThanOrEqual(8);
    // the legend weighs more on a small lab, and it is still far under the ~17 of the verbose form
    expect(perUnit[10]).toBeLessThanOrEqual(10);
  });

  it('says the defaults once and only what differs on a line: platforms, status, consoles, filters, suspended links', async () => {
    const t = await topologyOf('mixed');
    const text = renderPromptTopology(t, 150);
    expect(linksIn(text)).toEqual(linksOf(t));
    expect(text).toMatch(/^Nodes: .*Unless shown a node is \(vpcs\), stopped, telnet console on 127\.0\.0\.1$/m);
    expect(text).toMatch(/^R1 \(qemu\) started \d+ e0-R2:e1\[packet_loss=50\] /m);
    expect(text).toMatch(/^R2 \(qemu\) started \d+ e0-R3:e1\[suspended\] /m);
    expect(text).toMatch(/^R3 \(qemu\) \d+ e0-R4:e1 /m);
    expect(text).toMatch(/^SW1 \(ethernet_switch\) started e1-PC1:e0 /m);
    expect(text).toMatch(/^PC1 \d+$/m);
    // free ports are left to gns3_topology_reader (about 5 tokens a node on every call)
    expect(text).not.toMatch(/free e/);
    expect(text).toContain('free ports: gns3_topology_reader');
    const enc = await getEncoder('o200k_base');
    expect(enc.count(text) / (t.nodes.length + t.links.length)).toBeLessThanOrEqual(8);
  });

  it('above topology_inline_max nodes is a summary: counts per platform and status, and where the details are', async () => {
    const t = await topologyOf('mixed');
    expect(renderPromptTopology(t, 30)).not.toBe(renderTopologySummary(t));
    const summary = renderPromptTopology(t, 29);
    expect(summary).toBe(renderTopologySummary(t));
    expect(summary.split('\n')).toEqual([
      'Project mixed: 30 nodes, 30 links',
      'Too many nodes to list here: read them with gns3_topology_reader — nodes ["R1","R[1-4]","PC*"] gives just those nodes and their links, format text is compact.',
      'Platforms: vpcs 22, qemu 4, ethernet_switch 4',
      'Status: stopped 23, started 7',
      'Names: R[1-4], SW[1-4], PC[1-22]',
      'Links: 1 suspended, 1 with packet filters',
    ]);
  });

  it("the summary's names are the reader's globs: numbered runs as ranges, gaps split, other names as written, bounded", () => {
    expect(nameRanges(['R1', 'R2', 'R3', 'R5', 'PC10', 'PC11', 'core', 'R01', 'edge 1'])).toBe(
      'R[1-3], R5, PC[10-11], core, R01, "edge 1"',
    );
    const many = Array.from({ length: 100 }, (_, i) => `n${i * 2}`);
    expect(nameRanges(many)).toBe(`${many.slice(0, 40).join(', ')} and 60 more`);
  });

  it('a session lists a 100-node lab whole, sends a 400-node lab (or any lab over the setting) as the summary', async () => {
    const llm = await startLlm([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const systemFor = async (project: string, extra: Record<string, unknown> = {}) => {
      const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project, ...extra }), testTools({ calls: [] }));
      try {
        await collect(s.send('hi'));
      } finally {
        await s.close();
      }
      return String(llm.requests.filter((r) => r.purpose === null).at(-1)!.body.messages[0]!.content);
    };
    const whole = await systemFor('ring100');
    expect(whole).toContain(renderPromptTopology(await topologyOf('ring100'), 150));
    expect(whole).toMatch(/^R100 \d+$/m);
    const big = await systemFor('ring400');
    expect(big).toContain(renderTopologySummary(await topologyOf('ring400')));
    expect(big).toContain('Platforms: qemu/FRR 400');
    expect(big).toContain('Names: R[1-400]');
    expect(big).not.toMatch(/^R1 /m);
    const capped = await systemFor('ring40', { topology_inline_max: 39 });
    expect(capped).toContain('Project ring40: 40 nodes, 50 links\nToo many nodes to list here');
    await llm.close();
  });
});
