/**
 * The TUI after a configuration change whose verification regressed the lab: a ✓/✗ line under
 * the call, then the question "R2 lost OSPF neighbour 10.255.255.1: rewind R2? y/n"; y rewinds
 * the devices the call checkpointed to the checkpoint taken before that call (through the rewind the TUI's
 * /rewind uses), n keeps it; inject mode's report-only verification asks nothing. The agent
 * session is scripted; the rewind is the services' (its lab proof is test/e2e/oneshot-regression).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { AgentEvent } from '../../src/core/events.js';
import type { Verification } from '../../src/core/verification.js';
import type { RewindReport } from '../../src/undo/rewind.js';
import type { TuiRewindOptions } from '../../src/undo/tui-rewind.js';
import type { Settings } from '../../src/config/schema.js';
import { mount } from './harness.js';
import { stats, until } from './helpers/scripted-session.js';
import { stripAnsi } from '../../src/ui/style.js';

afterEach(() => cleanup());

const NAME = 'execute_multiple_device_config_commands';
const regressed: Verification = {
  status: 'regressed',
  regressions: [
    { device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1', before: 'Full', after: 'absent' },
    { device: 'R1', kind: 'ospf_neighbor', what: '10.255.255.2', before: 'Full', after: 'absent' },
  ],
  intended: [{ device: 'R2', kind: 'interface', what: 'eth0', before: 'up 10.0.1.2/24', after: 'down 10.0.1.2/24' }],
  settle_ms: 2100,
};

function script(v: Verification): AgentEvent[] {
  const args = { device_configs: [{ device_name: 'R2', config_commands: ['interface eth0', 'shutdown'] }] };
  const output = JSON.stringify({ status: 'success', devices: [], verification: v });
  return [
    { type: 'init', session_id: 'sess-1', project_id: 'p-1', mode: 'lab_automation_assistant', agent_mode: 'flat', model: 'm' },
    { type: 'tool_call', id: 'cut', name: NAME, args },
    { type: 'checkpoint', id: 'cut', name: NAME, device: 'R2', checkpoint_id: 42 },
    { type: 'tool_start', id: 'cut', name: NAME },
    { type: 'tool_end', id: 'cut', name: NAME, status: 'success', duration_ms: 900, output, display: '1 device ok' },
    { type: 'verification', id: 'cut', name: NAME, ...v },
    { type: 'content', delta: 'R2 eth0 is shut.' },
    { type: 'done', stopped_reason: 'done', stats: stats() },
  ];
}

const report = (to: number, checkpoints?: number[]): RewindReport => ({
  session_id: 'sess-1',
  to,
  ...(checkpoints ? { checkpoints } : {}),
  request_no: 2,
  devices: [
    {
      name: 'R2',
      status: 'restored',
      request_no: to,
      commands: ['interface eth0', 'no shutdown'],
      display: [],
      remaining: [],
      diff: '',
    },
  ],
  topology: { delete_links: [], delete_nodes: [], rename: [], power: [], filters: [], status: 'unchanged', errors: [] },
});

function mountRegressed(v: Verification) {
  const t = mount({ scripts: [script(v)], rows: 50, columns: 120 });
  const rewinds: TuiRewindOptions[] = [];
  t.services.sessionRequests = async () => [{ no: 1, kind: 'prompt', text: 'shut R2 eth0', created_at: '2026-01-01T00:00:00Z' }];
  t.services.rewind = async (_s: Settings, o: TuiRewindOptions) => {
    rewinds.push(o);
    return report(o.to, o.checkpoints);
  };
  const seen = (text: string) =>
    until(() => t.frames.some((f) => stripAnsi(f).includes(text)), 3000, `the screen to have shown ${text}\n${t.frame()}`);
  return { ...t, rewinds, seen };
}

describe('TUI: a change whose verification regressed', () => {
  it('shows ✗ under the call and asks; y rewinds R2 to just before the request', async () => {
    const t = mountRegressed(regressed);
    await t.ready();
    await t.type('shut R2 eth0');
    await t.seen('└ ✗ regressed: R2 ospf_neighbor 10.255.255.1 Full → absent (+1 more)');
    await t.seen('R2 lost OSPF neighbour 10.255.255.1 (+1 more): rewind R2? y/n');
    expect(t.rewinds).toEqual([]);
    await t.press('y');
    await until(() => t.rewinds.length === 1, 3000, 'the rewind');
    // the checkpoint taken before the regressed call, not the request's first
    expect(t.rewinds[0]).toMatchObject({ sessionId: 'sess-1', to: 1, devices: ['R2'], checkpoints: [42] });
    await t.seen('✓ rewind to just before the regressed call of request 1 (request 2): restored');
    // answered: a second y is typed into the input line, not another rewind
    await t.press('y');
    expect(t.rewinds).toHaveLength(1);
  });

  it('n keeps the regression and rewinds nothing', async () => {
    const t = mountRegressed(regressed);
    await t.ready();
    await t.type('shut R2 eth0');
    await t.seen('rewind R2? y/n');
    await t.press('n');
    await t.seen('regression kept: R2 not rewound');
    expect(t.rewinds).toEqual([]);
  });

  it('a passing verification shows ✓ and asks nothing; inject mode reports a regression without asking', async () => {
    const pass = mountRegressed({ status: 'pass', regressions: [], intended: [], settle_ms: 1200 });
    await pass.ready();
    await pass.type('harmless');
    await pass.seen('└ ✓ verified, settled in 1.2 s');
    await pass.waitFor('R2 eth0 is shut.');
    expect(pass.frames.some((f) => f.includes('y/n'))).toBe(false);
    cleanup();

    const fault = mountRegressed({ ...regressed, report_only: true });
    await fault.ready();
    await fault.type('break R2');
    await fault.seen('(reported only)');
    await fault.waitFor('R2 eth0 is shut.');
    expect(fault.frames.some((f) => f.includes('y/n'))).toBe(false);
  });
});
