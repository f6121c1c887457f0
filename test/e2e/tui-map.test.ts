/**
 * /map on a real terminal (tmux, the built binary, the fake LLM and the fake v2 controller
 * with its notification WebSocket): a 12-node lab drawn whole at 120×40 with status words
 * (NO_COLOR), ports and marked links, live from the stream — a node another client stops is
 * redrawn without a REST read — and Esc gives the input line back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { seedRingLab } from '../fakes/gns3/lab-seed.js';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { Tmux, tuiProcessEnv } from './tui-env.js';

let gns3: FakeGns3;
let llm: FakeLlm;
let pid: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  pid = gns3.addProject({ name: 'maplab', auto_close: false });
  seedRingLab(gns3, 12, pid);
  llm = await startFakeLlm([], { title: 'map test' });
  dir = mkdtempSync(join(tmpdir(), `gcl-tui-map-${process.pid}-`));
  env = tuiProcessEnv(dir, { gns3: gns3.url, llm: llm.url, apiKey: 'sk-test-tui-map' }, { NO_COLOR: '1' });
}, 30_000);

afterAll(async () => {
  await llm?.close();
  await gns3?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const nodeReads = () => gns3.requests.filter((q) => q.method === 'GET' && /\/projects\/[^/]+\/nodes$/.test(q.path)).length;

/** the status word drawn under a node's name in its box (a box's side is a junction where a link meets it) */
function statusUnder(screen: string, name: string): string | undefined {
  const lines = screen.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const col = lines[i]!.search(new RegExp(`[│├┤┼] ${name} `));
    if (col >= 0) return /^[│├┤┼] (\S+)/.exec(lines[i + 1]!.slice(col))?.[1];
  }
  return undefined;
}

describe('/map on a real terminal', () => {
  it('draws 12 nodes at 120×40, follows another client from the stream, Esc gives the input line back', async () => {
    const tmux = new Tmux(dir, env, { columns: 120, rows: 40 });
    try {
      tmux.run(['--project', 'maplab', '--model', 'gpt-4o-mini']);
      await tmux.waitFor('Ask about your lab');
      tmux.type('/map');
      tmux.keys('Enter');
      await tmux.waitFor(/Project maplab: 12 nodes, 12 links · live/);
      const screen = tmux.screen();
      for (const n of gns3.project(pid).nodes.values()) expect(screen).toMatch(new RegExp(`[│├┤┼] ${n.name}\\s+[│├┤┼]`));
      expect(screen).toMatch(/[│├┤┼] stopped\s+[│├┤┼]/);
      expect(screen).toContain('~1 R1:e0–R2:e1 filters packet_loss=50');
      expect(screen).toContain('~2 R2:e0–R3:e1 suspended');
      expect(screen).not.toContain('pan');

      const reads = nodeReads();
      const r4 = gns3.node('R4', pid);
      await fetch(`${gns3.url}/v2/projects/${pid}/nodes/${r4.node_id}/stop`, { method: 'POST', body: '{}' });
      // R4's box: its name, then its status word on the row below, in the same column
      const deadline = Date.now() + 15_000;
      while (statusUnder(tmux.screen(), 'R4') !== 'stopped') {
        if (Date.now() > deadline) throw new Error(`R4 not redrawn stopped:\n${tmux.screen()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(nodeReads()).toBe(reads);

      tmux.keys('Escape');
      await tmux.waitFor('Ask about your lab');
      expect(tmux.screen()).not.toContain('Project maplab: 12 nodes');
    } finally {
      tmux.kill();
    }
  }, 120_000);
});
