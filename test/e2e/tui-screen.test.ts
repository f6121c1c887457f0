/**
 * What the TUI leaves on a real terminal (tmux, the built binary, fake LLM and fake controller):
 * one line per abort with its hint above the status bar, typing from the very first frame, and
 * a resize that leaves no stale frame behind and no word cut in two.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { Tmux, tuiProcessEnv } from './tui-env.js';

const PARAGRAPH =
  'The adjacency between R1 and R2 never leaves ExStart because the interface MTU differs: ' +
  'R1 announces 1500 bytes while R2 announces 1400 bytes, so each side discards the database ' +
  'description packets of the other. Set the same MTU on both interfaces, or configure ' +
  'ip ospf mtu-ignore on both routers, and the neighbours reach Full within a few seconds.';

let gns3: FakeGns3;
let llm: FakeLlm;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'screen' });
  llm = await startFakeLlm([], { title: 'screen test' });
  dir = mkdtempSync(join(tmpdir(), `gcl-tui-screen-${process.pid}-`));
  env = tuiProcessEnv(dir, { gns3: gns3.url, llm: llm.url, apiKey: 'sk-test-tui-screen' });
}, 30_000);

afterAll(async () => {
  await llm?.close();
  await gns3?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The visible rows and the index of the status bar's first row (the one naming the model). */
function statusRow(screen: string): { rows: string[]; at: number } {
  const rows = screen.split('\n');
  return { rows, at: rows.findIndex((r) => r.includes('│ gpt-4o-mini')) };
}

describe('TUI on a real terminal', () => {
  it('an abort prints one line; Esc and Ctrl-C say so on the line above the status bar', async () => {
    const tmux = new Tmux(dir, env);
    try {
      llm.push({ text: 'Let me think about that', hang: true }, { text: 'And about this', hang: true });
      tmux.run(['--project', 'screen', '--model', 'gpt-4o-mini']);
      await tmux.waitFor('Ask about your lab');

      tmux.type('first question');
      tmux.keys('Enter');
      await tmux.waitFor('Let me think about that');
      tmux.keys('Escape');
      await tmux.waitFor(/^aborted · 1 iter · 0 tools/m);
      let { rows, at } = statusRow(tmux.screen());
      expect(rows[at - 1]).toBe('Aborted.');
      expect(
        tmux
          .capture()
          .split('\n')
          .filter((l) => /abort/i.test(l)),
      ).toEqual([expect.stringMatching(/^aborted · 1 iter/), 'Aborted.']);

      tmux.type('second question');
      tmux.keys('Enter');
      await tmux.waitFor('And about this');
      tmux.keys('C-c');
      await tmux.waitFor(/^aborted · 1 iter[^\n]*\n(?:.*\n)*?aborted · 1 iter/m);
      ({ rows, at } = statusRow(tmux.screen()));
      expect(rows[at - 1]).toBe('Aborted. Press Ctrl-C again to exit.');
      expect(
        tmux
          .capture()
          .split('\n')
          .filter((l) => /abort/i.test(l)),
      ).toHaveLength(3);
      tmux.keys('C-c');
      await tmux.waitFor('EXIT:130');
    } finally {
      tmux.kill();
    }
  }, 60_000);

  it('the input line takes typing from the first frame; a prompt entered before start-up is done waits and is sent', async () => {
    const tmux = new Tmux(dir, env);
    try {
      llm.push({ delay_ms: 300, text: 'Typed early, answered once the session was open.' });
      tmux.run(['--project', 'screen', '--model', 'gpt-4o-mini']);
      // The first frame: start-up still runs (the controller is not even asked yet).
      await tmux.waitFor(/^› /m, 10_000);
      tmux.type('what runs on R1');
      await tmux.waitFor(/^› what runs on R1/m, 5_000);
      tmux.type('?');
      tmux.keys('Enter');
      await tmux.waitFor('Typed early, answered once the session was open.', 30_000);
      const text = await tmux.waitFor(/1 iter · 0 tools/);
      expect(text).toMatch(/^› what runs on R1\?$/m);
      const sent = llm.requests.filter((r) => r.purpose === null).pop()!;
      expect(JSON.stringify(sent.body.messages)).toContain('what runs on R1?');
      // the first frame was erased when Ink took over, not left in the scrollback
      expect(text).not.toContain('gns3-copilot starting');
      expect(text.match(/Ask about your lab/g)).toHaveLength(1);
      tmux.keys('C-d');
      await tmux.waitFor('EXIT:0');
    } finally {
      tmux.kill();
    }
  }, 60_000);

  it('a narrower terminal gets the history printed again: no stale input line, no word cut in two', async () => {
    const tmux = new Tmux(dir, env);
    try {
      llm.push({ text: PARAGRAPH });
      tmux.run(['--project', 'screen', '--model', 'gpt-4o-mini']);
      await tmux.waitFor('Ask about your lab');
      tmux.type('why is ospf stuck in exstart?');
      tmux.keys('Enter');
      await tmux.waitFor(/1 iter · 0 tools/, 30_000);
      await tmux.waitFor('Ask about your lab');

      tmux.resize(70);
      // The history comes back rewrapped once the width has settled: every word whole (the rows,
      // joined with spaces, hold the paragraph as written) under one input line. Until the reprint
      // the terminal's own reflow cuts words, and a stale input line would never go away.
      const rows = await tmux.waitForRows(
        (rs) =>
          rs
            .map((r) => r.trim())
            .join(' ')
            .includes(PARAGRAPH) && rs.filter((r) => r.includes('Ask about your lab')).length === 1,
        'the history printed again at 70 columns under one input line',
      );
      for (const r of rows) expect([...r.trimEnd()].length).toBeLessThanOrEqual(70);
      expect(rows.filter((r) => r.startsWith('› why is ospf stuck'))).toHaveLength(1);

      tmux.keys('C-d');
      await tmux.waitFor('EXIT:0');
    } finally {
      tmux.kill();
    }
  }, 60_000);
});
