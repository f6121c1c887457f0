/**
 * No escape sequence reaches the TUI in a real tmux terminal: model text full
 * of OSC 0/8, ESC[2J, alternate-screen, C1 CSI and CR/BS overwrites, and a
 * model-chosen tool name full of escapes (also inside the error text built
 * from it). The one-shot and sessions sinks: sanitize-cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { BIN, llmFlags } from '../e2e/oneshot-cli.js';
import { startTerminal } from '../helpers/cli-tmux.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-sanitize-000000', GNS3_COPILOT_LLM_RETRIES: '0' });
const NASTY =
  '\x1b]0;PWNED-TITLE\x07\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[?1049h\x9b31mred\x1b[0m\rOVER\bX\u202e';
/** anything a terminal would interpret, except newline */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** a tool name as a hostile model sends it: OSC 0 title, 8-bit CSI clear, RTL override */
const EVIL_TOOL = '\u001b]0;EVILNAME\u0007\u009b2Jtool\u202e';

describe('the TUI', () => {
  it('shows model text without letting it retitle, clear or switch the screen', async () => {
    const e = scope.fresh();
    const gns3 = await startFakeGns3({ api: 'v2' });
    gns3.addProject({ name: 'p1' });
    const llm = await scope.startLlm([{ text: `before ${NASTY} after-marker` }], { title: 'plain title' });
    const term = startTerminal([process.execPath, BIN, '--project', 'p1', ...llmFlags(llm.url)], {
      ...(e.env as Record<string, string>),
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      GNS3_SERVER: gns3.url,
    });
    try {
      await term.waitFor(/Ask about your lab/, 20_000); // the input box takes keys
      term.send('-l', 'say hi');
      term.send('Enter');
      const screen = await term.waitFor(/after-marker/, 20_000);
      expect(screen).toMatch(/say hi/); // the screen was not cleared or switched
      expect(screen).toMatch(/before clickredOVERX/);
      expect(term.paneTitle()).not.toContain('PWNED');
    } finally {
      term.close();
      await gns3.close();
    }
  });
});

describe('the TUI, a model-chosen tool name', () => {
  it('never retitles the pane or shows the raw name, also in the error built from it', async () => {
    const e = scope.fresh();
    const gns3 = await startFakeGns3({ api: 'v2' });
    gns3.addProject({ name: 'p1' });
    const llm = await scope.startLlm([{ tool_calls: [{ id: 'x1', name: EVIL_TOOL, args: { a: 1 } }] }, { text: 'all done-marker' }], {
      title: 'plain title',
    });
    const term = startTerminal([process.execPath, BIN, '--project', 'p1', ...llmFlags(llm.url)], {
      ...(e.env as Record<string, string>),
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      GNS3_SERVER: gns3.url,
    });
    try {
      await term.waitFor(/Ask about your lab/, 20_000); // the input box takes keys
      term.send('-l', 'say hi');
      term.send('Enter');
      const screen = await term.waitFor(/done-marker/, 20_000);
      expect(screen).toMatch(/say hi/); // not cleared
      expect(screen).toMatch(/tool "tool" is not available/);
      expect(screen).not.toContain('EVILNAME');
      expect(screen).not.toMatch(CONTROL);
      expect(term.paneTitle()).not.toContain('EVILNAME');
    } finally {
      term.close();
      await gns3.close();
    }
  });
});
