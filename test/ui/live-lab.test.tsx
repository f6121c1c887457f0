/**
 * The TUI on a lab that changes under it (ink-testing-library): the real App over a real
 * session (real graph, real SQLite, the fake LLM over HTTP) on the fake v2 controller with
 * its real notification WebSocket. /map draws the lab, follows another client's change
 * from the stream without a REST read, pans a lab larger than the screen and closes with
 * Esc; a node another client adds during the session is in the next call's topology
 * without a GET /nodes and the model is told in the drift note (the TUI shows a notice
 * line); on an auto_close project neither the TUI nor its /map listens, so closing the
 * TUI leaves the project opened with its nodes running.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { WebSocket } from 'ws';
import { KEY, mountReal } from './harness.js';
import { until } from '../gns3/helpers.js';
// the agent tests' fake-LLM helper is no React hook, whatever its name says
import { session, testSettings, testTools, useFakeLlm as fakeLlmPerTest } from '../agent/helpers.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { seedRingLab } from '../fakes/gns3/lab-seed.js';
import type { FakeLlm, FakeTurn } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmPerTest('gc-tui-live-');
const VPCS_TEMPLATE = '19021f99-e36f-394d-b4a1-8aaa902ab9cc';
let gns3: FakeGns3 | undefined;
let closeApp: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeApp?.();
  closeApp = undefined;
  cleanup();
  await gns3?.close();
  gns3 = undefined;
});

async function lab(o: { size: number; autoClose?: boolean }) {
  const fake = await startFakeGns3({ api: 'v2', closeDelayMs: 60, pingMs: 200 });
  gns3 = fake;
  const pid = fake.addProject({ name: 'lab', auto_close: o.autoClose ?? false });
  seedRingLab(fake, o.size, pid);
  return { fake, pid };
}

function tui(fake: FakeGns3, llm: FakeLlm, size: { columns: number; rows: number }) {
  const settings = testSettings(llm.url, tmp.dir, { server: fake.url, project: 'lab' });
  const m = mountReal(settings, (o) => session(settings, testTools({ calls: [] }), { approver: o.approver }));
  m.resize(size.columns, size.rows);
  closeApp = () => m.close();
  return m;
}

const nodeReads = (fake: FakeGns3) => fake.requests.filter((q) => q.method === 'GET' && /\/projects\/[^/]+\/nodes$/.test(q.path)).length;
const chats = (llm: FakeLlm) => llm.requests.filter((r) => r.purpose === null);
const ARROW = { right: '\u001b[C', left: '\u001b[D', up: KEY.up, down: KEY.down };
/** the status word drawn under a node's name in its box */
function statusUnder(frame: string, name: string): string | undefined {
  const lines = frame.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    // a box's side is a junction where a link meets it
    const col = lines[i]!.search(new RegExp(`[│├┤┼] ${name} `));
    if (col >= 0) return /^[│├┤┼] (\S+)/.exec(lines[i + 1]!.slice(col))?.[1];
  }
  return undefined;
}
const answer = (text: string): FakeTurn[] => [{ text }];

describe('/map in the TUI', () => {
  it('draws 12 nodes at 120×40 whole, follows another client from the stream, closes with Esc', async () => {
    const { fake, pid } = await lab({ size: 12 });
    const llm = await startLlm(answer('ok'));
    const m = tui(fake, llm, { columns: 120, rows: 40 });
    await m.ready();
    await m.type('/map');
    await m.waitFor('Project lab: 12 nodes, 12 links', 10_000);
    await m.waitFor(/Project lab: 12 nodes, 12 links · live/, 10_000);
    const f = m.frame();
    for (const n of fake.project(pid).nodes.values()) expect(f).toMatch(new RegExp(`[│├┤┼] ${n.name}\\s+[│├┤┼]`));
    // status as words (no colour here), ports at the line ends, marked links in the legend
    expect(f).toMatch(/[│├┤┼] stopped\s+[│├┤┼]/);
    expect(f).toMatch(/[│├┤┼] started\s+[│├┤┼]/);
    expect(f).toMatch(/e0/);
    expect(f).toMatch(/[┆┄]/);
    expect(f).toContain('~1 R1:e0–R2:e1 filters packet_loss=50');
    expect(f).toContain('~2 R2:e0–R3:e1 suspended');
    // it fits: no panning offered, no line wider than the terminal
    expect(f).not.toContain('pan');
    expect(Math.max(...f.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(120);
    // the input line is hidden while the map is shown
    expect(f).not.toContain('›');

    // another client stops R1: the map follows the stream, no REST read
    const reads = nodeReads(fake);
    const r1 = fake.node('R1', pid);
    await fetch(`${fake.url}/v2/projects/${pid}/nodes/${r1.node_id}/stop`, { method: 'POST', body: '{}' });
    await until(() => statusUnder(m.frame(), 'R1') === 'stopped', 5_000, `R1 stopped\n${m.frame()}`);
    expect(nodeReads(fake)).toBe(reads);

    await m.press(KEY.esc);
    await m.waitFor('›');
    expect(m.frame()).not.toContain('Project lab: 12 nodes');
  });

  it('fits 20 nodes at 120×40 without panning', async () => {
    const { fake, pid } = await lab({ size: 20 });
    const llm = await startLlm(answer('ok'));
    const m = tui(fake, llm, { columns: 120, rows: 40 });
    await m.ready();
    await m.type('/map');
    await m.waitFor(/Project lab: 20 nodes, 20 links · live/, 10_000);
    const f = m.frame();
    for (const n of fake.project(pid).nodes.values()) expect(f).toMatch(new RegExp(`[│├┤┼] ${n.name}\\s+[│├┤┼]`));
    expect(f).not.toContain('pan');
    expect(f.split('\n').length).toBeLessThanOrEqual(40);
    expect(Math.max(...f.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(120);
  });

  it('pans a lab larger than the screen with the arrow keys', async () => {
    const { fake } = await lab({ size: 20 });
    const llm = await startLlm(answer('ok'));
    const m = tui(fake, llm, { columns: 80, rows: 24 });
    await m.ready();
    await m.type('/map');
    await m.waitFor(/Project lab: 20 nodes, \d+ links/, 10_000);
    await m.waitFor(/· 0,0 of \d+×\d+ · ←↑↓→ pan/);
    const before = m.frame();
    await m.press(ARROW.right, ARROW.down);
    await m.waitFor(/· 8,3 of \d+×\d+/);
    expect(m.frame()).not.toBe(before);
    // the window never leaves the drawing
    await m.press(...Array<string>(40).fill(ARROW.right));
    const [, x, w] = /· (\d+),3 of (\d+)×/.exec(m.frame())!;
    expect(Number(x)).toBe(Number(w) - 79);
    await m.press(ARROW.left, ARROW.up, ARROW.up);
    await m.waitFor(new RegExp(`· ${Number(x) - 8},0 of`));
    await m.press('q');
    await m.waitFor('›');
  });
});

describe('a TUI session on a live lab', () => {
  it("a node another client adds is in the next call's topology without a REST read, and the model is told", async () => {
    const { fake, pid } = await lab({ size: 4 });
    const llm = await startLlm([...answer('first answer'), ...answer('second answer')]);
    const m = tui(fake, llm, { columns: 120, rows: 40 });
    await m.ready();
    await m.type('look at the lab');
    await m.waitFor('first answer', 10_000);
    const view = (await m.session()!.lab())!;
    await until(() => view.status().live, 5_000, 'the stream');
    await fetch(`${fake.url}/v2/projects/${pid}/templates/${VPCS_TEMPLATE}`, {
      method: 'POST',
      body: JSON.stringify({ x: 0, y: 0, compute_id: 'local' }),
    });
    await until(async () => (await view.topology()).nodes.length === 5, 2_000, 'the new node in the cache');
    const reads = nodeReads(fake);
    await m.type('and now?');
    await m.waitFor('second answer', 10_000);
    expect(nodeReads(fake)).toBe(reads);
    const second = chats(llm)[1]!.body.messages;
    expect(String(second[0]!.content)).toMatch(/^PC1 \(vpcs\) stopped /m);
    expect(JSON.stringify(second)).toContain('Since your last turn');
    expect(JSON.stringify(second)).toContain('node PC1 added');
    expect(m.frame()).toContain('⟳ lab changed: node PC1 added');
  });

  it('on an auto_close project neither the TUI nor /map listens: closing the TUI leaves the project opened, its nodes running', async () => {
    const { fake, pid } = await lab({ size: 12, autoClose: true });
    const llm = await startLlm(answer('done'));
    const m = tui(fake, llm, { columns: 120, rows: 40 });
    await m.ready();
    await m.type('look');
    await m.waitFor(/1 iter · 0 tools/, 10_000);
    await m.type('/map');
    await m.waitFor(/not live: the project has auto_close on/, 10_000);
    await m.press(KEY.esc);
    expect(fake.notifications.count(pid)).toBe(0);
    const running = [...fake.project(pid).nodes.values()].filter((n) => n.status === 'started').length;
    await closeApp!();
    closeApp = undefined;
    // a control project whose listener left is closed by the controller: the delay has passed
    const control = fake.addProject({ name: 'control', auto_close: true });
    const ws = new WebSocket(`${fake.url.replace('http', 'ws')}/v2/projects/${control}/notifications/ws`);
    await new Promise((resolve) => ws.once('message', resolve));
    ws.close();
    await until(() => fake.project(control).data.status === 'closed', 5_000, 'the control project closed');
    expect(fake.project(pid).data.status).toBe('opened');
    expect([...fake.project(pid).nodes.values()].filter((n) => n.status === 'started').length).toBe(running);
    expect(running).toBeGreaterThan(0);
    expect(fake.notifications.autoClosed).toEqual([control]);
  });
});
