/**
 * The built binary in a real terminal (tmux 100×30): fake LLM + fake GNS3
 * controller whose nodes are real FRR routers (test/lab). Types a prompt, sees
 * streamed text and a tool call complete, approves a config change that really
 * lands on R1, switches mode, aborts with Esc, quits, resumes with --continue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeTurn } from '../fakes/llm/server.js';
import { startTuiEnv, Tmux, type TuiEnv } from './tui-env.js';

const script: FakeTurn[] = [
  {
    text: 'Checking OSPF on R1 and R2.',
    tool_calls: [
      {
        name: 'execute_multiple_device_commands',
        args: { device_configs: ['R1', 'R2'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor'] })) },
      },
    ],
  },
  {
    text: 'No OSPF neighbors yet: OSPF is not configured on **R1** or **R2**.\n\n| Router | OSPF |\n|---|---|\n| R1 | off |\n| R2 | off |',
  },
  {
    tool_calls: [
      {
        name: 'execute_multiple_device_config_commands',
        args: { device_configs: [{ device_name: 'R1', config_commands: ['router ospf', 'network 10.0.1.0/24 area 0'] }] },
      },
    ],
  },
  { text: 'OSPF is now enabled on R1 for 10.0.1.0/24.' },
  { text: 'Let me write a long explanation of OSPF areas', hang: true },
  { text: 'Yes, we enabled OSPF on R1 earlier in this session.' },
];

let env: TuiEnv;
let tmux: Tmux;

beforeAll(async () => {
  env = await startTuiEnv(script);
  tmux = new Tmux(env.dir, env.env);
}, 120_000);

afterAll(async () => {
  tmux?.kill();
  await env?.stop();
});

describe('TUI in a real terminal', () => {
  it('streams, runs tools, approves a config change, switches mode, aborts, quits and resumes', async () => {
    tmux.run(['--project', 'tui-lab', '--model', 'gpt-4o-mini']);
    await tmux.waitFor(/tui-lab │ teaching │ gpt-4o-mini/);
    await tmux.waitFor('Ask about your lab');

    tmux.type('check ospf on R1 and R2');
    tmux.keys('Enter');
    await tmux.waitFor('✓ execute_multiple_device_commands R1, R2: show ip ospf neighbor', 30_000);
    await tmux.waitFor('No OSPF neighbors yet: OSPF is not configured on R1 or R2.');
    // The finished turn (with the per-device table) is printed when `done` arrives.
    let text = await tmux.waitFor(/2 iter · 1 tool · \d+ tokens/);
    expect(text).toContain('Checking OSPF on R1 and R2.');
    expect(text).toMatch(/│ R1\s+success/);
    expect(text).toMatch(/ Router │ OSPF/);

    tmux.type('/mode lab');
    tmux.keys('Enter');
    await tmux.waitFor('Mode → lab (lab_automation_assistant)');
    await tmux.waitFor(/tui-lab │ lab │/);

    tmux.type('enable ospf on R1');
    tmux.keys('Enter');
    text = await tmux.waitFor('Approve execute_multiple_device_config_commands?', 30_000);
    expect(text).toContain('network 10.0.1.0/24 area 0');
    expect(text).toContain('1. Yes, run it once');
    tmux.keys('y');
    await tmux.waitFor('✓ execute_multiple_device_config_commands R1: router ospf; network 10.0.1.0/24 area 0', 30_000);
    await tmux.waitFor('OSPF is now enabled on R1 for 10.0.1.0/24.');
    await tmux.waitFor(/OSPF is now enabled on R1 for 10\.0\.1\.0\/24\.\n2 iter/);
    expect(env.lab.vtysh('R1', 'show running-config')).toMatch(/router ospf[\s\S]*network 10\.0\.1\.0\/24 area 0/);

    tmux.type('explain ospf areas');
    tmux.keys('Enter');
    await tmux.waitFor('Let me write a long explanation of OSPF areas');
    tmux.keys('Escape');
    await tmux.waitFor(/^aborted · \d+ iter/m);

    tmux.type('/quit');
    tmux.keys('Enter');
    await tmux.waitFor('EXIT:0');

    tmux.run(['--continue'], 'resume');
    text = await tmux.waitFor('Resumed session');
    // The earlier conversation is printed again from the stored checkpoint.
    expect(text).toContain('› enable ospf on R1');
    expect(text).toContain('✓ execute_multiple_device_config_commands R1: router ospf; network 10.0.1.0/24 area 0');
    expect(text).toContain('OSPF is now enabled on R1 for 10.0.1.0/24.');
    await tmux.waitFor(/tui-lab │ lab │/);
    tmux.type('did we change anything?');
    tmux.keys('Enter');
    await tmux.waitFor('Yes, we enabled OSPF on R1 earlier in this session.', 30_000);
    const last = env.llm.requests.filter((r) => r.purpose === null && r.turn >= 0).pop()!;
    const history = JSON.stringify(last.body.messages);
    expect(history).toContain('enable ospf on R1');
    expect(history).toContain('did we change anything?');
    tmux.keys('C-d');
    await tmux.waitFor('EXIT:0');
  }, 180_000);

  it('the approval feedback line takes text and Enter sent in one burst (tmux send-keys), as the main prompt does', async () => {
    const cfg = { device_configs: [{ device_name: 'R2', config_commands: ['router ospf', 'network 10.0.1.0/24 area 0'] }] };
    env.llm.push({ tool_calls: [{ name: 'execute_multiple_device_config_commands', args: cfg }] }, { text: 'Understood: area 1.' });
    const t = new Tmux(env.dir, env.env);
    try {
      t.run(['--project', 'tui-lab', '--mode', 'lab']);
      await t.waitFor('Ask about your lab');
      t.type('enable ospf on R2');
      t.keys('Enter');
      await t.waitFor('Approve execute_multiple_device_config_commands?', 30_000);
      t.keys('f');
      await t.waitFor('Tell the model what to do instead');
      // one send-keys: the text and its Enter reach the terminal together
      t.keys('-l', 'use area 1\r');
      await t.waitFor('Understood: area 1.', 30_000);
      const denied = env.llm.requests.filter((r) => r.purpose === null).pop()!;
      expect(JSON.stringify(denied.body.messages)).toContain('the user denied execute_multiple_device_config_commands: use area 1');
      expect(env.lab.vtysh('R2', 'show running-config')).not.toContain('router ospf');
      t.keys('C-d');
      await t.waitFor('EXIT:0');
    } finally {
      t.kill();
    }
  }, 90_000);

  it('works in 80×24 with NO_COLOR: no colour codes, nothing wider than the terminal', async () => {
    env.llm.push({ text: '# Plain\n\n**bold** and `code`\n\n| Router | State |\n|---|---|\n| R1 | Full |' });
    const plain = new Tmux(env.dir, { ...env.env, NO_COLOR: '1' }, { columns: 80, rows: 24 });
    try {
      plain.run(['--project', 'tui-lab', '--max-iterations', '5']);
      await plain.waitFor('Ask about your lab');
      plain.type('show me plain output');
      plain.keys('Enter');
      await plain.waitFor(/1 iter · 0 tools/, 30_000);
      const screen = plain.screen();
      expect(screen).toContain(' Router │ State');
      expect(screen).toContain('iter 1/5');
      for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
      // SGR colour codes (30–37, 90–97, 38;…) must not appear; tmux reports attributes like bold separately.
      expect(plain.screenWithEscapes()).not.toMatch(/\u001b\[[0-9;]*(3[0-8]|9[0-7])[;m]/);
      plain.keys('C-d');
      await plain.waitFor('EXIT:0');
    } finally {
      plain.kill();
    }
  }, 60_000);
});
