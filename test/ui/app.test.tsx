import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { AgentEvent } from '../../src/core/events.js';
import { mount, KEY } from './harness.js';
import { previewDevice } from '../../src/checkpoints/preview.js';
import { stats, until, type ScriptStep } from './helpers/scripted-session.js';
import { sessionRow, testSettings } from './helpers/fake-services.js';
import { displayWidth } from '../../src/ui/style.js';
import { topologyNode } from '../helpers/topology.js';

afterEach(() => cleanup());

const ospf = { device_configs: ['R1', 'R2', 'R3'].map((d) => ({ device_name: d, commands: ['show ip ospf neighbor'] })) };
const deviceOutput = JSON.stringify({
  status: 'success',
  devices: ['R1', 'R2', 'R3'].map((d) => ({
    device_name: d,
    status: 'success',
    results: [
      {
        command: 'show ip ospf neighbor',
        status: 'success',
        output: `Neighbor ID     Pri State\n2.2.2.2           1 Full/DR   (${d})`,
        duration_ms: 30,
      },
    ],
    blocked: [],
    duration_ms: 41,
  })),
});
/** The three-router OSPF command call, ending with deviceOutput; `during` comes between the call and its end. */
const ospfCall = (...during: ScriptStep[]): ScriptStep[] => [
  { type: 'tool_call', id: 'c1', name: 'execute_multiple_device_commands', args: ospf },
  ...during,
  { type: 'tool_end', id: 'c1', name: 'execute_multiple_device_commands', status: 'success', duration_ms: 41, output: deviceOutput },
];
const cfgArgs = { device_configs: [{ device_name: 'R1', config_commands: ['router ospf 1', 'network 10.0.12.0/24 area 0'] }] };
const done = (over = {}): AgentEvent => ({ type: 'done', stopped_reason: 'done', stats: stats(over) });

describe('App: streaming and tool calls', () => {
  it('streams text, shows a tool call with its summary and per-device table, and prints the finished turn', async () => {
    const t = mount({
      scripts: [
        [
          { type: 'init', session_id: 'sess-1', project_id: 'p-1', mode: 'teaching_assistant', agent_mode: 'flat', model: 'gpt-4o-mini' },
          { type: 'context', tokens: 43_000, tools_tokens: 2000, limit: 128_000, percent: 34, trimmed: 0 },
          { type: 'content', delta: 'Checking **OSPF** ' },
          { type: 'content', delta: 'neighbors…' },
          ...ospfCall({ type: 'tool_start', id: 'c1', name: 'execute_multiple_device_commands' }, { type: 'wait', ms: 300 }),
          { type: 'content', delta: '\n\n| Router | State |\n|---|---|\n| R1 | Full |\n' },
          done({ iterations: 2, tool_calls: 1, input_tokens: 900, output_tokens: 120 }),
        ],
      ],
    });
    await t.ready();
    await t.type('check ospf');
    await t.waitFor('execute_multiple_device_commands R1, R2, R3: show ip ospf neighbor');
    expect(t.frame()).toContain('Checking **OSPF** neighbors…');
    expect(t.frame()).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] execute_multiple_device_commands/);
    await t.waitFor('2 iter · 1 tool');
    const f = t.frame();
    expect(f).toContain('› check ospf');
    expect(f).toContain('✓ execute_multiple_device_commands R1, R2, R3: show ip ospf neighbor');
    expect(f).toMatch(/│ R1\s+success\s+1 cmd/);
    expect(f).toContain(' Router │ State');
    expect(f).toContain('34% of 128K');
    expect(f).toContain('1K tok');
    expect(f).toContain('iter 2/20 · tools 1/∞');
    expect(f).toContain('flat');
    expect(t.services.session.prompts).toEqual(['check ospf']);
  });

  it('shows error, blocked, limit and aborted tool states and the stop reason', async () => {
    const call = (id: string, status: 'error' | 'blocked' | 'limit' | 'aborted', output: string): AgentEvent[] => [
      { type: 'tool_call', id, name: 'start_gns3_node', args: { nodes: [id] } },
      { type: 'tool_end', id, name: 'start_gns3_node', status, duration_ms: 3, output },
    ];
    const t = mount({
      scripts: [
        [
          ...call('R1', 'error', '{"status":"error","error":"node R1 not found"}'),
          ...call('R2', 'blocked', 'stop_gns3_node is not available in teaching mode'),
          ...call('R3', 'limit', 'Tool call limit reached (3 calls)'),
          ...call('R4', 'aborted', 'aborted'),
          { type: 'done', stopped_reason: 'max_tool_calls', stats: stats() },
        ],
      ],
    });
    await t.ready();
    await t.type('start all');
    await t.waitFor('stopped: tool call limit reached');
    const f = t.frame();
    expect(f).toContain('✗ start_gns3_node R1 error');
    expect(f).toContain('└ node R1 not found');
    expect(f).toContain('⊘ start_gns3_node R2 blocked');
    expect(f).toContain('⊘ start_gns3_node R3 limit reached');
    expect(f).toContain('■ start_gns3_node R4 aborted');
  });

  it('shows a provider error as one line', async () => {
    const t = mount({
      scripts: [
        [
          { type: 'error', error: { type: 'provider', message: 'LLM provider rejected the API key (401)' } },
          { type: 'done', stopped_reason: 'error', stats: stats() },
        ],
      ],
    });
    await t.ready();
    await t.type('hi');
    await t.waitFor('✗ LLM provider rejected the API key (401)');
  });

  it('toggles the last tool output with Ctrl-O, device output keeping its alignment', async () => {
    const t = mount({
      scripts: [[...ospfCall(), done()]],
    });
    await t.ready();
    await t.type('check');
    await t.waitFor('│ R3');
    await t.press(KEY.ctrlO);
    await t.waitFor('execute_multiple_device_commands output');
    expect(t.frame()).toContain('**R2** `show ip ospf neighbor`');
    expect(t.frame()).toContain('2.2.2.2           1 Full/DR   (R2)');
    await t.press(KEY.ctrlO);
    await until(() => !t.frame().includes('output · lines'));
  });

  it('keeps the live region within a 80×24 terminal while a long answer streams', async () => {
    const long = Array.from({ length: 80 }, (_, i) => `line ${i + 1} of a long answer`).join('\n');
    const t = mount({ columns: 80, rows: 24, scripts: [[{ type: 'content', delta: long }, { type: 'hang' }]] });
    await t.ready();
    await t.type('explain');
    await t.waitFor('line 80 of a long answer');
    const lines = t.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(t.frame()).toContain('more lines above');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    await t.press(KEY.esc);
    await t.waitFor('aborted');
    // Once finished, the whole answer is printed (scrollback), not just the tail.
    expect(t.frame()).toContain('line 1 of a long answer');
  });

  it('re-lays out on resize', async () => {
    const t = mount({ columns: 120, rows: 30 });
    await t.ready();
    expect(
      t
        .frame()
        .split('\n')
        .filter((l) => l.includes('│')).length,
    ).toBe(1);
    t.resize(40, 20);
    // the status bar takes more rows once the narrower frame is drawn (the history is printed again too)
    const status = () =>
      t
        .frame()
        .split('\n')
        .filter((l) => l.includes(' │ ') || l.includes('iter '));
    // the narrower frame is drawn whole once every line fits: wait for that, not for a time
    const fits = () =>
      t
        .frame()
        .split('\n')
        .every((l) => displayWidth(l) <= 40);
    await until(() => status().length > 1 && fits());
    expect(status().length).toBeGreaterThan(1);
    for (const l of t.frame().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

describe('App: approvals', () => {
  const approvalScript = (id = 'c1', name = 'execute_multiple_device_config_commands', args: Record<string, unknown> = cfgArgs) => [
    { type: 'tool_call', id, name, args } as AgentEvent,
    {
      type: 'ask' as const,
      id,
      name,
      args,
      onAllow: [
        { type: 'tool_start', id, name },
        { type: 'tool_end', id, name, status: 'success', duration_ms: 9, output: '[]' },
      ] as AgentEvent[],
      onDeny: [{ type: 'tool_end', id, name, status: 'blocked', duration_ms: 0, output: 'denied by the user' }] as AgentEvent[],
    },
    done(),
  ];
  const vpcsOn = (id: string, pc: string, command: string) =>
    approvalScript(id, 'execute_vpcs_commands', { device_configs: [{ device_name: pc, commands: [command] }] });

  /** A mounted TUI whose one turn is waiting on the config-command approval. */
  const atApproval = async () => {
    const t = mount({ scripts: [approvalScript()] });
    await t.ready();
    await t.type('x');
    await t.waitFor('Approve');
    return t;
  };

  it('shows device and command lines and runs once on "y"', async () => {
    const t = mount({ scripts: [approvalScript()] });
    await t.ready();
    await t.type('configure ospf');
    await t.waitFor('Approve execute_multiple_device_config_commands?');
    const f = t.frame();
    // why it needs approval, in the core's words
    expect(f).toContain('It changes device configuration');
    expect(f).toContain('R1');
    expect(f).toContain('router ospf 1');
    expect(f).toContain('network 10.0.12.0/24 area 0');
    expect(f).toContain('1. Yes, run it once');
    expect(f).toContain('2. Yes, and allow execute_multiple_device_config_commands on R1 for this session');
    expect(f).toContain('3. No');
    expect(f).toContain('4. No, and tell the model what to do instead');
    expect(f).toContain('? execute_multiple_device_config_commands');
    await t.press('y');
    await t.waitFor('✓ execute_multiple_device_config_commands');
    expect(t.services.session.decisions).toEqual([{ kind: 'allow_once' }]);
  });

  it('shows under each device the preview of the diff its commands would make, or why there is none', async () => {
    const args = {
      device_configs: [
        { device_name: 'R1', config_commands: ['router ospf 1', ' network 10.0.12.0/24 area 0'] },
        { device_name: 'R2', config_commands: ['router ospf 1'] },
      ],
    };
    const r1Now = 'hostname R1\n!\nrouter ospf 1\n network 10.0.1.0/24 area 0\nexit\n!\nend';
    const preview = [
      previewDevice('R1', args.device_configs[0]!.config_commands, { platform: 'frr', config: r1Now }),
      previewDevice('R2', args.device_configs[1]!.config_commands, { error: 'console refused' }),
    ];
    const step = { ...approvalScript()[1]!, args, preview } as ScriptStep;
    const t = mount({ scripts: [[approvalScript()[0]!, step, done()]], rows: 40 });
    await t.ready();
    await t.type('configure ospf');
    await t.waitFor('Approve execute_multiple_device_config_commands?');
    const f = t.frame();
    expect(f).toContain('preview, configuration now → after:');
    expect(f).toMatch(/^\W*\+ network 10\.0\.12\.0\/24 area 0/m);
    expect(f).toMatch(/^\W* {2}network 10\.0\.1\.0\/24 area 0/m);
    expect(f).toContain('no preview: cannot read R2 (console refused)');
    expect(f).toContain('1. Yes, run it once');
    await t.press('y');
    await t.waitFor('✓ execute_multiple_device_config_commands');
  });

  it('"yes for this session" is for the tool on the devices shown: the box names them, another PC is asked about, the same PC is not', async () => {
    const t = mount({
      scripts: [vpcsOn('c1', 'PC1', 'ip 10.0.0.1/24'), vpcsOn('c2', 'PC2', 'ip 10.0.0.2/24'), vpcsOn('c3', 'PC1', 'ip 10.0.0.9/24')],
    });
    await t.ready();
    await t.type('address PC1');
    await t.waitFor('Approve execute_vpcs_commands?');
    expect(t.frame()).toContain('2. Yes, and allow execute_vpcs_commands on PC1 for this session (a)');
    await t.press('a');
    await t.waitFor('✓ execute_vpcs_commands');
    await t.type('address PC2');
    // PC2 was never allowed: the box is up again, naming PC2
    await t.waitFor('allow execute_vpcs_commands on PC2 for this session');
    expect(t.services.session.decisions).toEqual([{ kind: 'allow_session' }]);
    await t.press('n');
    await until(() => t.services.session.decisions.length === 2);
    await t.type('readdress PC1');
    // PC1 was: answered without a box
    await until(() => t.services.session.decisions.length === 3);
    expect(t.services.session.decisions).toEqual([{ kind: 'allow_session' }, { kind: 'deny' }, { kind: 'allow_session' }]);
  });

  it('"yes for this session" stops asking for that tool on the same device', async () => {
    const t = mount({ scripts: [approvalScript('c1'), approvalScript('c2')] });
    await t.ready();
    await t.type('one');
    await t.waitFor('Approve');
    await t.press(KEY.down, KEY.enter);
    await t.waitFor('✓ execute_multiple_device_config_commands');
    await t.type('two');
    await until(() => t.services.session.decisions.length === 2);
    expect(t.services.session.decisions).toEqual([{ kind: 'allow_session' }, { kind: 'allow_session' }]);
  });

  it('many approvals in one turn leave no abort listener behind (no MaxListenersExceededWarning on the screen)', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `c${i + 1}`);
    // one turn: twelve asks, then done
    const script = [...ids.flatMap((id) => approvalScript(id).slice(0, 2)), done()];
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const t = mount({ scripts: [script] });
      await t.ready();
      await t.type('configure twelve routers');
      for (let n = 1; n <= ids.length; n++) {
        await until(() => t.frame().includes('Approve'), 5_000, `approval ${n}`);
        await t.press('y');
        await until(() => t.services.session.decisions.length === n, 5_000, `answer ${n}`);
      }
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('"no" blocks the call', async () => {
    const t = await atApproval();
    await t.press('3');
    await t.waitFor('⊘ execute_multiple_device_config_commands');
    expect(t.services.session.decisions).toEqual([{ kind: 'deny' }]);
  });

  it('"no with feedback" sends the typed text to the model', async () => {
    const t = await atApproval();
    await t.press('f');
    await t.waitFor('Tell the model what to do instead');
    await t.press('use area 1', KEY.enter);
    await until(() => t.services.session.decisions.length === 1);
    expect(t.services.session.decisions).toEqual([{ kind: 'deny_with_feedback', feedback: 'use area 1' }]);
  });

  it('feedback whose Enter arrives with the text (a paste, tmux send-keys) is sent, as the main prompt does', async () => {
    const t = await atApproval();
    await t.press('f');
    await t.waitFor('Tell the model what to do instead');
    await t.press('use area 1\r');
    await until(() => t.services.session.decisions.length === 1);
    expect(t.services.session.decisions).toEqual([{ kind: 'deny_with_feedback', feedback: 'use area 1' }]);
  });

  it('the feedback line edits like the main prompt (cursor keys, Ctrl-A, Ctrl-W)', async () => {
    const t = await atApproval();
    await t.press('f');
    await t.waitFor('Tell the model what to do instead');
    await t.press('area 2', KEY.backspace, '1', '\u0001', 'use ', 'OSPF', '\u0017', KEY.enter);
    await until(() => t.services.session.decisions.length === 1);
    expect(t.services.session.decisions).toEqual([{ kind: 'deny_with_feedback', feedback: 'use area 1' }]);
  });

  it('Esc during an approval aborts the turn and denies', async () => {
    const t = await atApproval();
    await t.press(KEY.esc);
    await t.waitFor(/aborted/);
    expect(t.services.session.decisions).toEqual([{ kind: 'deny' }]);
    expect(t.frame()).not.toContain('Approve');
  });
});

describe('App: keys', () => {
  it('Esc aborts the running turn', async () => {
    const t = mount({ scripts: [[{ type: 'content', delta: 'Thinking' }, { type: 'hang' }]] });
    await t.ready();
    await t.type('slow');
    await t.waitFor('Thinking');
    await t.press(KEY.esc);
    await t.waitFor(/^aborted · 1 iter · 0 tools · 120 tokens/m);
    expect(t.exitCode()).toBeUndefined();
  });

  it('an abort prints one line, and its hint sits above the status bar', async () => {
    const hang = [{ type: 'content', delta: 'Thinking' }, { type: 'hang' }] as const;
    const t = mount({ scripts: [[...hang], [...hang]] });
    await t.ready();
    const aboutAbort = () =>
      t
        .frame()
        .split('\n')
        .filter((l) => /abort/i.test(l));
    const above = (hint: string) => {
      const lines = t.frame().split('\n');
      const status = lines.findIndex((l) => l.includes('gpt-4o-mini'));
      expect(status).toBeGreaterThan(0);
      expect(lines[status - 1]).toBe(hint);
    };
    await t.type('slow');
    await t.waitFor('Thinking');
    await t.press(KEY.esc);
    await t.waitFor(/^aborted · /m);
    above('Aborted.');
    expect(aboutAbort()).toEqual(['aborted · 1 iter · 0 tools · 120 tokens · 5ms', 'Aborted.']);

    await t.type('slow again');
    await t.waitFor('› slow again');
    await t.press(KEY.ctrlC);
    await t.waitFor('Aborted. Press Ctrl-C again to exit.');
    above('Aborted. Press Ctrl-C again to exit.');
    await until(() => aboutAbort().length === 3);
    expect(aboutAbort()).toEqual([
      'aborted · 1 iter · 0 tools · 120 tokens · 5ms',
      'aborted · 1 iter · 0 tools · 120 tokens · 5ms',
      'Aborted. Press Ctrl-C again to exit.',
    ]);
  });

  it('Ctrl-C once aborts, twice exits with 130', async () => {
    const t = mount({
      scripts: [
        [
          { type: 'tool_call', id: 'a', name: 'gns3_topology_reader', args: {} },
          { type: 'tool_start', id: 'a', name: 'gns3_topology_reader' },
          { type: 'hang' },
        ],
      ],
    });
    await t.ready();
    await t.type('go');
    await t.waitFor('gns3_topology_reader');
    await t.press(KEY.ctrlC);
    await t.waitFor('Press Ctrl-C again to exit');
    await t.waitFor('■ gns3_topology_reader');
    expect(t.exitCode()).toBeUndefined();
    await t.press(KEY.ctrlC);
    await until(() => t.exitCode() !== undefined);
    expect(t.exitCode()).toBe(130);
    expect(t.services.session.closed).toBe(true);
    expect(t.services.closed).toBe(true);
  });

  it('Ctrl-D exits with 0', async () => {
    const t = mount();
    await t.ready();
    await t.press(KEY.ctrlD);
    await until(() => t.exitCode() !== undefined);
    expect(t.exitCode()).toBe(0);
  });

  it('recalls history with ↑/↓ but never a secret-looking line', async () => {
    const t = mount();
    await t.ready();
    await t.type('show ip route');
    await t.type('my key is sk-abcdefghijklmnopqrstu');
    await t.press(KEY.up);
    await t.waitFor('› show ip route');
    await t.press(KEY.up);
    const inputLine = () =>
      t
        .frame()
        .split('\n')
        .find((l) => l.includes('█')) ?? '';
    expect(inputLine()).toBe('› show ip route█');
    await t.press(KEY.down);
    await t.waitFor('Ask about your lab');
  });

  it('edits the line (backspace, Ctrl-U) and completes commands with Tab', async () => {
    const t = mount();
    await t.ready();
    await t.type('/to', false);
    await t.press(KEY.tab);
    await t.waitFor('› /topology');
    await t.press('\u0015'); // Ctrl-U
    await t.type('/c', false);
    await t.press(KEY.tab);
    await t.waitFor('/context  /clear');
    await t.press(KEY.backspace, KEY.backspace);
    await t.waitFor('Ask about your lab');
  });

  it('refuses a second prompt while a turn runs', async () => {
    const t = mount({ scripts: [[{ type: 'content', delta: 'busy' }, { type: 'hang' }]] });
    await t.ready();
    await t.type('first');
    await t.waitFor('busy');
    await t.type('second');
    await t.waitFor('A turn is running');
    expect(t.services.session.prompts).toEqual(['first']);
    await t.press(KEY.esc);
  });
});

describe('App: slash commands', () => {
  const bgpSession = sessionRow({
    id: 'bbbb2222-0000',
    title: 'BGP peering',
    projectId: 'p2',
    projectName: 'bgp-lab',
    messageCount: 4,
    totalTokens: 100,
  });
  it('/mode switches the copilot mode and shows it in the status bar', async () => {
    const t = mount();
    await t.ready();
    expect(t.frame()).toMatch(/│ teaching │/);
    await t.type('/mode lab');
    await t.waitFor('Mode → lab (lab_automation_assistant)');
    expect(t.frame()).toMatch(/│ lab │/);
    expect(t.services.session.modeChanges).toEqual(['lab_automation_assistant']);
    await t.type('/mode');
    await t.waitFor('Tools: get_gns3_templates');
    await t.type('/mode nope');
    await t.waitFor('Unknown mode "nope"');
  });

  it('/limits sets iterations and tools and the status bar follows', async () => {
    const t = mount();
    await t.ready();
    await t.type('/limits iterations=5 tools=3');
    await t.waitFor('iter 0/5 · tools 0/3');
    expect(t.services.session.limitChanges[0]).toMatchObject({ max_iterations: 5, max_tool_calls: 3 });
    await t.type('/limits iterations=500');
    await t.waitFor('iterations must be an integer 1..100');
    await t.type('/limits');
    await t.waitFor('Limits per request: iterations 5, tools 3');
  });

  it('/limits changes every limit: time, per-tool, on-limit, parallel, retries, named caps; off clears', async () => {
    const t = mount();
    await t.ready();
    await t.type('/limits time=120 tool=execute_multiple_device_commands:3 on-limit=fail parallel=2 retries=0 config=2 diagnostic=9');
    await t.waitFor('Limits → iterations 20, tools ∞, time 120s');
    await t.waitFor('on limit: fail');
    expect(t.services.session.limits).toMatchObject({
      max_time: 120,
      tool_limits: { execute_multiple_device_commands: 3 },
      on_limit: 'fail',
      max_parallel_tools: 2,
      max_retries_per_tool: 0,
      max_device_config_calls: 2,
      max_diagnostic_calls: 9,
    });
    await t.type('/limits time=off tool=execute_multiple_device_commands:off config=off');
    await t.waitFor('Limits → iterations 20, tools ∞, time ∞, cost ∞, config ∞');
    expect(t.services.session.limits.max_time).toBeUndefined();
    expect(t.services.session.limits.max_device_config_calls).toBeUndefined();
    expect(t.services.session.limits.tool_limits).toEqual({});
    await t.type('/limits tool=nosuch:3 on-limit=maybe parallel=21');
    await t.waitFor('unknown tool "nosuch"');
    await t.waitFor('on-limit must be one of fail|warn|continue');
  });

  it('/delete removes a session by id, and /delete current starts a new one', async () => {
    const t = mount({ sessions: [bgpSession] });
    await t.ready();
    await t.type('/delete');
    await t.waitFor('Usage: /delete <id>');
    await t.type('/delete bbbb2222-0000');
    await t.waitFor('Deleted session bbbb2222');
    expect(t.services.deleted).toEqual(['bbbb2222-0000']);
    await t.type('/delete nope');
    await t.waitFor('No session "nope"');
    const before = t.services.created.length;
    const current = t.services.session.id;
    await t.type('/delete current');
    await t.waitFor(`Deleted session ${current.slice(0, 8)}`);
    await until(() => t.services.created.length === before + 1);
    expect(t.services.deleted).toContain(current);
  });

  it('/help, /context, /clear and unknown commands', async () => {
    const t = mount({
      scripts: [[{ type: 'context', tokens: 5000, tools_tokens: 1000, limit: 128_000, percent: 4.7, trimmed: 2 }, done()]],
    });
    await t.ready();
    await t.type('/help');
    await t.waitFor('/sessions [search]');
    expect(t.frame()).toContain('Ctrl-O');
    await t.type('/context');
    await t.waitFor('No context measured yet');
    await t.type('hello');
    await t.waitFor('1 iter');
    await t.type('/context');
    await t.waitFor('Context: ~5K tokens + 1K tools = 6K / 128K (5%) · 2 old messages trimmed');
    await t.type('/clear');
    await until(() => t.stdout.frames.some((f) => f.includes('\u001b[2J\u001b[3J\u001b[H')));
    await t.type('/frob');
    await t.waitFor('Unknown command /frob');
  });

  it('/sessions opens a searchable picker and Enter resumes the chosen session', async () => {
    const ospfSession = sessionRow({
      id: 'aaaa1111-0000',
      title: 'OSPF area 0 lab',
      mode: 'lab_automation_assistant',
      pinned: true,
      messageCount: 12,
      totalTokens: 900,
    });
    const t = mount({ sessions: [ospfSession, bgpSession] });
    await t.ready();
    await t.type('/sessions');
    await t.waitFor('★ OSPF area 0 lab');
    expect(t.frame()).toContain('BGP peering');
    await t.press('b', 'g', 'p');
    await until(() => !t.frame().includes('OSPF area 0 lab'));
    await t.press(KEY.enter);
    await t.waitFor('Resumed session “BGP peering” (bbbb2222, 4 messages)');
    const last = t.services.created[t.services.created.length - 1]!;
    expect(last.sessionId).toBe('bbbb2222-0000');
    expect(last.settings.project).toBe('bgp-lab');
    expect(t.frame()).toContain('bgp-lab');
  });

  it('/new, /rename, /pin, /model and /project', async () => {
    const t = mount({
      projects: [
        { id: 'p1', name: 'ospf-lab' },
        { id: 'p2', name: 'bgp-lab' },
      ],
    });
    await t.ready();
    await t.type('/rename OSPF day 1');
    await t.waitFor('Renamed to “OSPF day 1”');
    expect(t.services.sessionRows[0]!.title).toBe('OSPF day 1');
    await t.type('/pin');
    await t.waitFor('Pinned this session');
    await t.type('/pin');
    await t.waitFor('Unpinned this session');
    await t.type('/model deepseek-chat');
    await t.waitFor('Model → deepseek-chat');
    expect(t.frame()).toContain('deepseek-chat');
    const reopened = t.services.created[t.services.created.length - 1]!;
    expect(reopened.settings.model).toBe('deepseek-chat');
    expect(reopened.sessionId).toBe('sess-1');
    await t.type('/new');
    await t.waitFor(/New session sess-3/);
    await t.type('/project');
    await t.waitFor('GNS3 projects');
    await t.press(KEY.down, KEY.enter);
    await t.waitFor('Project → bgp-lab');
    expect(t.services.created[t.services.created.length - 1]!.settings.project).toBe('bgp-lab');
    await t.type('/project ospf-lab');
    await t.waitFor('Project → ospf-lab');
  });

  it('/topology shows nodes and links as a table', async () => {
    const port = (n: string, link: string | null) => ({
      name: `Ethernet${n}`,
      short_name: `e${n}`,
      adapter_number: Number(n),
      port_number: 0,
      link_id: link,
    });
    const node = (name: string, consolePort: number) =>
      topologyNode(name, { console: consolePort, template_name: 'FRR', ports: [port('0', 'l1'), port('1', null)] });
    const t = mount({
      topology: {
        project_id: 'p1',
        project_name: 'ospf-lab',
        nodes: [node('R2', 5001), node('R1', 5000)],
        links: [
          {
            link_id: 'l1',
            link_type: 'ethernet',
            suspend: false,
            capturing: false,
            filters: { packet_loss: [30] },
            ends: [
              { node_id: 'R1', node_name: 'R1', adapter_number: 0, port_number: 0, port_name: 'e0' },
              { node_id: 'R2', node_name: 'R2', adapter_number: 0, port_number: 0, port_name: 'e0' },
            ],
          },
        ],
      },
    });
    await t.ready();
    await t.type('/topology');
    await t.waitFor('Topology — ospf-lab');
    const f = t.frame();
    expect(f).toContain('2 nodes, 1 link');
    expect(f).toMatch(/ R1\s+│ FRR\s+│ started │ telnet 127\.0\.0\.1:5000 │ e1/);
    expect(f).toMatch(/R1 e0 ↔ R2 e0 │ packet_loss=30\s+│ up/);
    expect(f.indexOf(' R1 ')).toBeLessThan(f.indexOf(' R2 '));
  });
});

describe('App: start-up', () => {
  it('offers a project picker when no project is set', async () => {
    const t = mount({
      settings: testSettings({ project: undefined }),
      projects: [
        { id: 'p1', name: 'ospf-lab', status: 'opened' },
        { id: 'p2', name: 'bgp-lab', status: 'closed' },
      ],
    });
    await t.waitFor('GNS3 projects');
    expect(t.frame()).toContain('ospf-lab');
    await t.press('b', 'g');
    await until(() => !t.frame().includes('ospf-lab opened'));
    await t.press(KEY.enter);
    await until(() => t.services.created.length === 1);
    expect(t.services.created[0]!.settings.project).toBe('bgp-lab');
    await t.waitFor('bgp-lab');
  });

  it('shows a clear controller-down screen and retries instead of crashing', async () => {
    const t = mount({ controllerDownFor: 2 });
    await t.waitFor('GNS3 controller not reachable');
    expect(t.frame()).toContain('connection refused');
    expect(t.frame()).toContain('press r to retry');
    await t.press('r');
    await until(() => t.services.controllerChecks >= 2);
    await t.ready();
    expect(t.frame()).not.toContain('not reachable');
    expect(t.services.controllerChecks).toBe(3);
  });

  it('quits from the controller-down screen with exit code 3', async () => {
    const t = mount({ controllerDownFor: 99 });
    await t.waitFor('not reachable');
    await t.press('q');
    await until(() => t.exitCode() !== undefined);
    expect(t.exitCode()).toBe(3);
  });

  it('shows a first-run hint when no API key is stored', async () => {
    const t = mount({ hasApiKey: false });
    await t.ready();
    expect(t.frame()).toContain('No LLM API key found. Run `gns3-copilot auth login`');
  });

  it('--continue resumes the latest session in its own project', async () => {
    const t = mount({
      invocation: { continueLatest: true },
      settings: testSettings({ project: undefined }),
      sessions: [
        sessionRow({
          id: 'cccc3333-x',
          title: 'Yesterday',
          projectId: 'p9',
          projectName: 'campus',
          mode: 'lab_automation_assistant',
          messageCount: 6,
          totalTokens: 10,
        }),
      ],
      history: {
        'cccc3333-x': [
          { role: 'user', content: 'is R1 up?' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'x1', name: 'start_gns3_node', args: { nodes: ['R1'] } }] },
          {
            role: 'tool',
            content: '{"status":"error","error":"R1 is locked"}',
            tool_call_id: 'x1',
            name: 'start_gns3_node',
            status: 'error',
          },
          { role: 'assistant', content: 'R1 could **not** be started.' },
        ],
      },
    });
    await t.waitFor('Resumed session “Yesterday”');
    const f = t.frame();
    expect(f).toContain('› is R1 up?');
    expect(f).toContain('✗ start_gns3_node R1 error');
    expect(f).toContain('└ R1 is locked');
    expect(f).toContain('R1 could **not** be started.');
    expect(t.services.created[0]!.continueLatest).toBe(true);
    expect(t.services.created[0]!.settings.project).toBe('campus');
    expect(t.frame()).toContain('lab');
  });

  it('renders without colour codes when colour is off, keeping the Markdown markers', async () => {
    const t = mount({ color: false, scripts: [[{ type: 'content', delta: '# Title\n**bold** `code`' }, done()]] });
    await t.ready();
    await t.type('x');
    await t.waitFor('**bold** `code`');
    expect(t.frame()).toContain('# Title');
    expect(t.lastFrame()).not.toMatch(/\u001b\[[0-9;]*m/);
  });

  it('styles markdown when colour is on', async () => {
    const t = mount({ color: true, scripts: [[{ type: 'content', delta: '**bold**' }, done()]] });
    await t.ready();
    await t.type('x');
    await t.waitFor('bold');
    expect(t.lastFrame()).toContain('\u001b[1mbold');
  });
});

describe('terminal without raw mode', () => {
  it('renders and does not crash when stdin cannot do raw mode', async () => {
    const React = await import('react');
    const { render } = await import('ink');
    const { EventEmitter } = await import('node:events');
    const { App } = await import('../../src/ui/components/App.js');
    const { FakeServices, tuiInvocation } = await import('./helpers/fake-services.js');
    const frames: string[] = [];
    const stdout = Object.assign(new EventEmitter(), { columns: 80, rows: 24, write: (s: string) => frames.push(s) });
    // A pipe: no isTTY, no setRawMode — Ink's useInput would throw if it were active.
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: false,
      setEncoding() {},
      resume() {},
      pause() {},
      ref() {},
      unref() {},
      read: () => null,
    });
    const services = new FakeServices();
    const inst = render(
      React.createElement(App, { settings: testSettings(), invocation: tuiInvocation(), services, color: false, onExit: () => undefined }),
      {
        // eslint-disable-next-line no-restricted-syntax -- a test double standing in for a Node stream: only the members Ink uses exist
        stdout: stdout as unknown as NodeJS.WriteStream,
        // eslint-disable-next-line no-restricted-syntax -- a test double standing in for a Node stream: only the members Ink uses exist
        stdin: stdin as unknown as NodeJS.ReadStream,
        debug: true,
        patchConsole: false,
        exitOnCtrlC: false,
      },
    );
    await until(() => frames.some((f) => f.includes('stdin is not a terminal: input disabled')));
    inst.unmount();
  });

  it('startTui refuses a non-TTY stdin with one line and exit code 2', async () => {
    const { startTui } = await import('../../src/ui/start.js');
    const { sessionOpener } = await import('../../src/commands/agent-session.js');
    const { tuiInvocation } = await import('./helpers/fake-services.js');
    const { PassThrough } = await import('node:stream');
    const errs: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = (s: string) => (errs.push(String(s)), true);
    try {
      const code = await startTui(testSettings(), tuiInvocation(), {
        opener: sessionOpener,
        // eslint-disable-next-line no-restricted-syntax -- a test double standing in for a Node stream: only the members Ink uses exist
        stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      });
      expect(code).toBe(2);
    } finally {
      process.stderr.write = orig;
    }
    expect(errs.join('')).toBe('gns3-copilot: the interactive TUI needs a terminal on stdin; use -p "<prompt>" for one-shot mode\n');
  });
});
