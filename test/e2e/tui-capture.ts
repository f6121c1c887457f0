/**
 * Records docs/tui-session.txt: a real TUI session in tmux (100×30) against the
 * fake LLM, the fake controller and the real FRR lab — the same setup as
 * tui.test.ts. Run: `node --import tsx test/e2e/tui-capture.ts` (needs root for the lab).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTuiEnv, Tmux, ROOT } from './tui-env.js';

const env = await startTuiEnv([
  {
    text: 'Let me look at the OSPF neighbors on both routers.',
    tool_calls: [
      {
        name: 'execute_multiple_device_commands',
        args: {
          device_configs: ['R1', 'R2'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor', 'show ip route connected'] })),
        },
      },
    ],
  },
  {
    text: '## Findings\n\n- **R1** and **R2** have no OSPF neighbors: OSPF is not running.\n- Both see the shared link `10.0.1.0/24` as connected.\n\n| Router | OSPF | Link 10.0.1.0/24 |\n|---|---|---|\n| R1 | off | connected |\n| R2 | off | connected |\n\nSwitch to lab mode (`/mode lab`) and I can enable OSPF for you.',
  },
  {
    text: 'I will enable OSPF area 0 on both routers.',
    tool_calls: [
      {
        name: 'execute_multiple_device_config_commands',
        args: {
          device_configs: ['R1', 'R2'].map((d) => ({ device_name: d, config_commands: ['router ospf', 'network 10.0.1.0/24 area 0'] })),
        },
      },
    ],
  },
  { text: 'OSPF is enabled on R1 and R2 for `10.0.1.0/24`; the adjacency should reach **Full** within a few seconds.' },
]);
const tmux = new Tmux(env.dir, env.env, { columns: 100, rows: 30 });
try {
  tmux.run(['--project', 'tui-lab']);
  await tmux.waitFor('Ask about your lab');
  tmux.type('Why are R1 and R2 not OSPF neighbors?');
  tmux.keys('Enter');
  await tmux.waitFor(/2 iter · 1 tool/, 30_000);
  tmux.type('/mode lab');
  tmux.keys('Enter');
  await tmux.waitFor('Mode → lab');
  tmux.type('Enable OSPF on both routers');
  tmux.keys('Enter');
  await tmux.waitFor('Approve execute_multiple_device_config_commands?', 30_000);
  await new Promise((r) => setTimeout(r, 300));
  const approval = tmux.screen();
  tmux.keys('y');
  await tmux.waitFor(/2 iter · 1 tool[^\n]*\n(?:.*\n)*?[^\n]*2 iter · 1 tool/, 30_000);
  await new Promise((r) => setTimeout(r, 300));
  const session = tmux.capture().replace(/\s+$/, '');
  const out = [
    '$ gns3-copilot --project tui-lab        # tmux 100x30, captured with `tmux capture-pane -p`',
    '',
    '----- while the config change waits for approval -----',
    approval.replace(/\s+$/, ''),
    '',
    '----- the whole session afterwards (scrollback) -----',
    session,
    '',
  ].join('\n');
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  writeFileSync(join(ROOT, 'docs/tui-session.txt'), out);
  process.stdout.write(out);
} finally {
  tmux.kill();
  await env.stop();
}
