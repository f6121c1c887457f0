/**
 * Topology read of a 100-node / 150-link project from the fake controller over
 * real HTTP (v2 and v3): median wall time of a fresh read, and the prompt cost
 * of renderTopologyText versus pretty-printed JSON (cl100k_base tokens).
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { settingsSchema } from '../src/config/schema.js';
import { memoryTokenStore } from '../src/gns3/auth.js';
import { createGns3Client } from '../src/gns3/client.js';
import { renderTopologyText } from '../src/gns3/render.js';
import { nullLogger } from '../src/log.js';
import { topologyJson } from '../src/tools/gns3/topology-reader.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { fmtMs, median, type BenchTable } from './table.js';

const NODES = 100;
const LINKS = 150;
const RUNS = 30;

/** 100 routers with 4 ports: a ring (100 links) plus 50 chords, 150 links in all. */
function seed(fake: Awaited<ReturnType<typeof startFakeGns3>>): void {
  fake.addProject({ name: 'bench' });
  for (let i = 1; i <= NODES; i++) {
    fake.addNode({
      name: `R${i}`,
      node_type: 'qemu',
      template_name: 'FRR',
      tags: ['device_type:frr'],
      ports: 4,
      status: i % 3 ? 'started' : 'stopped',
      x: (i % 10) * 150,
      y: Math.floor(i / 10) * 150,
    });
  }
  let links = 0;
  for (let i = 1; i <= NODES && links < LINKS; i++, links++) fake.addLink({ a: `R${i}:e0`, b: `R${(i % NODES) + 1}:e1` });
  for (let i = 1; links < LINKS; i += 2, links++) {
    const link = fake.addLink({ a: `R${i}:e2`, b: `R${((i + 49) % NODES) + 1}:e3` });
    if (i % 10 === 1) link.filters = { packet_loss: [10], delay: [50, 5] };
  }
}

export async function run(): Promise<BenchTable> {
  const enc = new Tiktoken(cl100k);
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const api of ['v2', 'v3'] as const) {
    const fake = await startFakeGns3({ api, users: api === 'v3' ? { admin: 'bench' } : undefined });
    seed(fake);
    const client = createGns3Client({
      settings: settingsSchema.parse({ server: fake.url }),
      log: nullLogger,
      credentials: async () => ({ username: 'admin', password: 'bench' }),
      tokenStore: memoryTokenStore(),
    });
    try {
      const project = await client.openProject('bench');
      await project.getTopology(); // warm up: login, template list, connection
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        project.invalidate();
        const t0 = performance.now();
        await project.getTopology();
        times.push(performance.now() - t0);
      }
      const t0 = performance.now();
      await project.getTopology();
      const cached = performance.now() - t0;
      const topo = await project.getTopology();
      if (topo.nodes.length !== NODES || topo.links.length !== LINKS) throw new Error(`seeded ${topo.nodes.length}/${topo.links.length}`);
      const text = renderTopologyText(topo);
      const pretty = JSON.stringify(topo, null, 2);
      const tool = JSON.stringify(topologyJson(topo));
      const tText = enc.encode(text).length;
      const tPretty = enc.encode(pretty).length;
      const tTool = enc.encode(tool).length;
      rows.push([api, fmtMs(median(times)), fmtMs(cached), tText, tPretty, tTool, `${(tPretty / tText).toFixed(1)}x`]);
    } finally {
      await client.close();
      await fake.close();
    }
  }
  notes.push(
    `${NODES} nodes (4 ports each), ${LINKS} links; median of ${RUNS} uncached reads (GET nodes + links over HTTP + mapping); tokens: cl100k_base.`,
  );
  notes.push(
    'text = renderTopologyText ({{topology_info}}); pretty JSON = JSON.stringify(Topology, null, 2); tool JSON = gns3_topology_reader output.',
  );
  return {
    title: 'GNS3 topology read (fake controller, 100 nodes / 150 links)',
    columns: ['api', 'read (median)', 'cached read', 'text tokens', 'pretty JSON tokens', 'tool JSON tokens', 'JSON/text'],
    rows,
    notes,
  };
}
