/**
 * The tool gate by table: one row per call/state/policy and the verdict it must get.
 * The registry is the real one with the product's tools, so mode sets and risks are
 * the shipped ones.
 */
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { assessCall, INVALID_ARGS_KEY, type ApprovalRules, type GateState, type GateVerdict } from '../../src/tools/gate.js';
import { OVERSIZED_ARGS_KEY } from '../../src/agent/input-limits.js';
import type { RequestLimits } from '../../src/core/api.js';

const registry = new ToolRegistry(allTools());

const SHOW = 'execute_multiple_device_commands'; // read
const CONFIG = 'execute_multiple_device_config_commands'; // config
const CREATE = 'create_gns3_node'; // lab
const TOPO = 'gns3_topology_reader'; // read

interface Row {
  name: string;
  call: { name: string; args?: Record<string, unknown> };
  state?: Partial<Omit<GateState, 'limits'>> & { limits?: Partial<RequestLimits> };
  approval?: Partial<ApprovalRules>;
  frozen?: string[];
  /** the verdict's kind and, for refusals, its status/stop and a part of the reason */
  want: { kind: GateVerdict['kind']; status?: string; stop?: string; reason?: RegExp; needsApproval?: boolean };
}

const rows: Row[] = [
  // a read tool in its mode runs under every policy
  { name: 'read tool, policy never', call: { name: SHOW }, want: { kind: 'run' } },
  { name: 'read tool, policy ask, nobody to ask', call: { name: SHOW }, approval: { policy: 'ask' }, want: { kind: 'run' } },
  { name: 'lab tool in teaching mode', call: { name: CREATE }, want: { kind: 'run' } },
  // mode and tool-set freeze
  {
    name: 'config tool forged in teaching mode',
    call: { name: CONFIG },
    approval: { policy: 'all' },
    want: { kind: 'blocked', status: 'blocked', reason: /not available in teaching_assistant mode.*Available: get_gns3_templates/ },
  },
  { name: 'unknown tool', call: { name: 'rm_rf' }, want: { kind: 'blocked', status: 'blocked', reason: /"rm_rf" is not available/ } },
  {
    name: 'get_gns3_templates forged in inject mode',
    call: { name: 'get_gns3_templates' },
    state: { mode: 'troubleshooting_injection' },
    want: { kind: 'blocked', status: 'blocked', reason: /not available in troubleshooting_injection mode/ },
  },
  {
    name: 'outside a sub-agent frozen set (even when the mode has it)',
    call: { name: CREATE },
    frozen: [SHOW, TOPO],
    want: {
      kind: 'blocked',
      status: 'blocked',
      reason: /not in this sub-agent's tool set.*Available: execute_multiple_device_commands, gns3_topology_reader/,
    },
  },
  { name: 'inside a sub-agent frozen set', call: { name: TOPO }, frozen: [SHOW, TOPO], want: { kind: 'run' } },
  {
    name: 'frozen set checked before the mode',
    call: { name: CONFIG },
    frozen: [SHOW],
    want: { kind: 'blocked', status: 'blocked', reason: /sub-agent's tool set/ },
  },
  // a stopped run starts nothing, whatever else holds
  {
    name: 'aborted run',
    call: { name: SHOW },
    state: { stopped: 'aborted' },
    want: { kind: 'blocked', status: 'aborted', reason: /user stopped the run/ },
  },
  {
    name: '--max-time ran out',
    call: { name: 'rm_rf' },
    state: { stopped: 'max_time' },
    want: { kind: 'blocked', status: 'aborted', reason: /time budget/ },
  },
  // arguments
  {
    name: 'oversized arguments',
    call: { name: SHOW, args: { [OVERSIZED_ARGS_KEY]: 100_000 } },
    want: { kind: 'blocked', status: 'error', reason: /98 KB, over the 64 KB limit/ },
  },
  {
    name: 'arguments that were not JSON',
    call: { name: SHOW, args: { [INVALID_ARGS_KEY]: '{"dev' } },
    want: { kind: 'blocked', status: 'error', reason: /not valid JSON/ },
  },
  {
    name: 'mode checked before arguments',
    call: { name: CONFIG, args: { [INVALID_ARGS_KEY]: '' } },
    want: { kind: 'blocked', status: 'blocked', reason: /not available/ },
  },
  // count limits
  {
    name: 'max_tool_calls reached',
    call: { name: SHOW },
    state: { count: 3, limits: { max_tool_calls: 3 } },
    want: { kind: 'limit', stop: 'max_tool_calls', reason: /\(3\/3\)/ },
  },
  {
    name: 'max_tool_calls not yet reached',
    call: { name: SHOW },
    state: { count: 2, limits: { max_tool_calls: 3 } },
    want: { kind: 'run' },
  },
  {
    name: 'per-tool limit reached',
    call: { name: SHOW },
    state: { count: 2, counts: { [SHOW]: 2 }, limits: { tool_limits: { [SHOW]: 2 } } },
    want: { kind: 'limit', stop: 'tool_limit', reason: /--tool-limit execute_multiple_device_commands=2/ },
  },
  {
    name: 'per-tool limit of another tool',
    call: { name: TOPO },
    state: { count: 2, counts: { [SHOW]: 2 }, limits: { tool_limits: { [SHOW]: 2 } } },
    want: { kind: 'run' },
  },
  {
    name: 'diagnostic cap counts every read tool',
    call: { name: TOPO },
    state: { count: 2, counts: { [SHOW]: 1, device_skills: 1 }, limits: { max_diagnostic_calls: 2 } },
    want: { kind: 'limit', stop: 'tool_limit', reason: /Diagnostic call limit reached \(2\/2/ },
  },
  {
    name: 'diagnostic cap does not count lab tools',
    call: { name: CREATE },
    state: { count: 2, counts: { [SHOW]: 2 }, limits: { max_diagnostic_calls: 2 } },
    want: { kind: 'run' },
  },
  {
    name: 'device config cap',
    call: { name: CONFIG },
    state: { mode: 'lab_automation_assistant', count: 1, counts: { [CONFIG]: 1 }, limits: { max_device_config_calls: 1 } },
    approval: { policy: 'all' },
    want: { kind: 'limit', stop: 'tool_limit', reason: /Device config call limit reached \(1\/1/ },
  },
  {
    name: 'limits checked before approval',
    call: { name: CONFIG },
    state: { mode: 'lab_automation_assistant', count: 5, limits: { max_tool_calls: 5 } },
    want: { kind: 'limit', stop: 'max_tool_calls' },
  },
  // approval policy (config tool in lab mode)
  ...(
    [
      ['never', false, false, 'blocked', /one-shot run cannot ask for: rerun with --approve config \(or --approve all\)/],
      ['never', true, false, 'blocked', /approval policy is "never": allow it with --approve ask\|config/],
      ['ask', false, false, 'blocked', /nobody can approve in this run: rerun with --approve config/],
      ['ask', true, true, 'ask', undefined],
      ['config', false, false, 'run', undefined],
      ['config', true, true, 'run', undefined],
      ['all', false, false, 'run', undefined],
    ] as const
  ).map(([policy, interactive, approver, kind, reason]): Row => ({
    name: `config tool, policy ${policy}${interactive ? ', interactive' : ''}${approver ? ', approver' : ''}`,
    call: { name: CONFIG },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy, interactive, ...(approver ? { approver: true } : {}) },
    want: { kind, ...(kind === 'blocked' ? { status: 'blocked', needsApproval: true } : {}), ...(reason ? { reason } : {}) },
  })),
  {
    name: 'config tool allowed for the session',
    call: { name: CONFIG },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'never', sessionAllowed: new Set([CONFIG]) },
    want: { kind: 'run' },
  },
  // approval_tools adds read/lab tools
  {
    name: 'approval_tools read tool, policy config, nobody to ask',
    call: { name: SHOW },
    approval: { policy: 'config', approvalTools: [SHOW] },
    want: {
      kind: 'blocked',
      status: 'blocked',
      needsApproval: true,
      reason: /is on the approval list \(approval_tools\).*--approve all to allow it/,
    },
  },
  {
    name: 'approval_tools read tool, policy config, approver',
    call: { name: SHOW },
    approval: { policy: 'config', approvalTools: [SHOW], approver: true },
    want: { kind: 'ask' },
  },
  {
    name: 'approval_tools read tool, policy all',
    call: { name: SHOW },
    approval: { policy: 'all', approvalTools: [SHOW] },
    want: { kind: 'run' },
  },
  {
    name: 'approval_tools lists another tool',
    call: { name: SHOW },
    approval: { policy: 'never', approvalTools: [CREATE] },
    want: { kind: 'run' },
  },
];

describe('assessCall', () => {
  it.each(rows)('$name', (row) => {
    const limits: RequestLimits = { max_iterations: 20, tool_limits: {}, on_limit: 'warn', ...row.state?.limits };
    const state: GateState = { mode: 'teaching_assistant', count: 0, counts: {}, ...row.state, limits };
    const approval: ApprovalRules = { policy: 'never', approvalTools: [], sessionAllowed: new Set(), interactive: false, ...row.approval };
    const v = assessCall({ name: row.call.name, args: row.call.args ?? {} }, state, {
      tools: registry,
      approval,
      ...(row.frozen ? { frozen: new Set(row.frozen) } : {}),
    });
    const { reason, ...exact } = row.want;
    expect(v).toMatchObject(exact);
    if (v.kind === 'blocked' && !row.want.needsApproval) expect(v.needsApproval).toBeUndefined();
    if (reason) expect(v.kind === 'blocked' || v.kind === 'limit' ? v.reason : '').toMatch(reason);
  });

  it('does not change the counts or the session allowances it is given', () => {
    const counts = Object.freeze({ [SHOW]: 1 });
    const sessionAllowed = new Set<string>();
    const state: GateState = {
      mode: 'lab_automation_assistant',
      count: 1,
      counts,
      limits: { max_iterations: 5, tool_limits: {}, on_limit: 'warn' },
    };
    const approval: ApprovalRules = { policy: 'ask', approvalTools: [], sessionAllowed, interactive: true, approver: true };
    expect(assessCall({ name: CONFIG, args: {} }, state, { tools: registry, approval })).toEqual({ kind: 'ask' });
    expect(counts).toEqual({ [SHOW]: 1 });
    expect(sessionAllowed.size).toBe(0);
  });
});
