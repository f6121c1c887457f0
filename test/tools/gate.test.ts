/**
 * The tool gate by table: one row per call/state/policy and the verdict it must get.
 * The registry is the real one with the product's tools, so mode sets and risks are
 * the shipped ones.
 */
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import {
  assessCall,
  INVALID_ARGS_KEY,
  type ApprovalRefusal,
  type ApprovalRules,
  type GateState,
  type GateVerdict,
} from '../../src/tools/gate.js';
import { cliRefusalText } from '../../src/agent/refusal-text.js';
import { mcpRefusalText } from '../../src/mcp/server/refusal-text.js';
import { ROOT_AGENT } from '../../src/core/caller.js';
import { defineTool } from '../../src/tools/types.js';
import { z } from 'zod';
import { OVERSIZED_ARGS_KEY } from '../../src/tools/input-limits.js';
import type { RequestLimits } from '../../src/core/api.js';
import { SessionAllowances } from '../../src/tools/allowances.js';
import { targetsOf } from '../../src/tools/targets.js';

const registry = new ToolRegistry(allTools());
// a tool of a user's MCP server that is not marked trusted (src/mcp/client gives those the config risk)
const UNTRUSTED = 'lab__wipe';
registry.addExternal([
  defineTool({
    name: UNTRUSTED,
    description: 'x',
    risk: 'config',
    targets: null,
    schema: z.object({}),
    run: async () => ({ status: 'success', data: {} }),
  }),
]);

const SHOW = 'execute_multiple_device_commands'; // read
const CONFIG = 'execute_multiple_device_config_commands'; // config
const CREATE = 'create_gns3_node'; // lab
const TOPO = 'gns3_topology_reader'; // read, knowledge group

const onDevices = (...names: string[]) => ({
  device_configs: names.map((device_name) => ({ device_name, config_commands: ['hostname x'] })),
});
/** "allow for this session" given to `tool` on a call on these devices (none: a tool without targets) */
function allowedOn(tool: string, ...devices: string[]): SessionAllowances {
  const a = new SessionAllowances();
  a.allow(tool, devices.length ? targetsOf(CONFIG, onDevices(...devices)) : undefined);
  return a;
}

interface Row {
  name: string;
  call: { name: string; args?: Record<string, unknown> };
  state?: Partial<Omit<GateState, 'limits'>> & { limits?: Partial<RequestLimits> };
  approval?: Partial<ApprovalRules>;
  frozen?: string[];
  /**
   * the verdict's kind and, for refusals, its status/stop and a part of the reason; for
   * approval refusals the data (`refusal`) and the CLI's and the MCP server's words for it
   */
  want: {
    kind: GateVerdict['kind'];
    status?: string;
    stop?: string;
    reason?: RegExp;
    refusal?: Partial<ApprovalRefusal>;
    cli?: RegExp;
    mcp?: RegExp;
    notCli?: RegExp;
    notMcp?: RegExp;
  };
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
    name: 'diagnostic cap counts the diagnostic group',
    call: { name: SHOW },
    state: { count: 2, counts: { [SHOW]: 1, get_gns3_node_console: 1 }, limits: { max_diagnostic_calls: 2 } },
    want: { kind: 'limit', stop: 'tool_limit', reason: /Diagnostic call limit reached \(2\/2/ },
  },
  {
    name: 'diagnostic cap does not count knowledge tools (skills, the topology reader) or delegation',
    call: { name: SHOW },
    state: { count: 5, counts: { [SHOW]: 1, device_skills: 1, [TOPO]: 2, agent: 1 }, limits: { max_diagnostic_calls: 2 } },
    want: { kind: 'run' },
  },
  {
    name: 'a knowledge tool is not capped by max_diagnostic_calls',
    call: { name: TOPO },
    state: { count: 2, counts: { [SHOW]: 2 }, limits: { max_diagnostic_calls: 2 } },
    want: { kind: 'run' },
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
  // approval policy (config tool in lab mode): [policy, interactive, canAsk, verdict, refusal data, CLI words, MCP words]
  ...(
    [
      [
        'never',
        false,
        false,
        'refused',
        { cause: 'policy', why: 'config', allowWith: 'config' },
        /changes device configuration or traffic and needs approval, which a one-shot run cannot ask for: rerun with --approve config \(or --approve all\)/,
        /runs with --approve never: restart `gns3-copilot mcp` with --approve config to allow it, or --approve ask for a client that supports elicitation/,
      ],
      [
        'never',
        true,
        false,
        'refused',
        { cause: 'policy' },
        /approval policy is "never": allow it with --approve ask\|config/,
        /restart `gns3-copilot mcp` with --approve config/,
      ],
      // somebody could answer (the TUI, an MCP client with elicitation), yet never refuses without asking
      ['never', true, true, 'refused', { cause: 'policy', policy: 'never' }, /approval policy is "never"/, /--approve never/],
      [
        'ask',
        false,
        false,
        'refused',
        { cause: 'no_asker', allowWith: 'config' },
        /nobody can approve in this run: rerun with --approve config$/,
        /this MCP client does not support elicitation, so nobody can approve it here: restart `gns3-copilot mcp` with --approve config$/,
      ],
      ['ask', true, true, 'ask', undefined, undefined, undefined],
      ['config', false, false, 'run', undefined, undefined, undefined],
      ['config', true, true, 'run', undefined, undefined, undefined],
      ['all', false, false, 'run', undefined, undefined, undefined],
    ] as const
  ).map(([policy, interactive, canAsk, kind, refusal, cli, mcp]): Row => ({
    name: `config tool, policy ${policy}${interactive ? ', interactive' : ''}${canAsk ? ', can ask' : ''}`,
    call: { name: CONFIG },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy, interactive, canAsk },
    want: {
      kind,
      ...(refusal ? { refusal: { tool: CONFIG, ...refusal } } : {}),
      ...(cli ? { cli, notCli: /approval_tools|untrusted/ } : {}),
      ...(mcp ? { mcp, notMcp: /one-shot|rerun/ } : {}),
    },
  })),
  // "allow for this session" holds for the tool on the targets it was given, never on others
  {
    name: 'config tool allowed for the session on R1: a call on R1',
    call: { name: CONFIG, args: onDevices('R1') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'never', allowances: allowedOn(CONFIG, 'R1') },
    want: { kind: 'run' },
  },
  {
    name: 'config tool allowed for the session on R1 and R2: a call on R2',
    call: { name: CONFIG, args: onDevices('R2') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'never', allowances: allowedOn(CONFIG, 'R1', 'R2') },
    want: { kind: 'run' },
  },
  {
    name: 'config tool allowed for the session on R1: a call on R2 asks',
    call: { name: CONFIG, args: onDevices('R2') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'ask', canAsk: true, allowances: allowedOn(CONFIG, 'R1') },
    want: { kind: 'ask' },
  },
  {
    name: 'config tool allowed for the session on R1: a call on R1 and R2 asks',
    call: { name: CONFIG, args: onDevices('R1', 'R2') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'ask', canAsk: true, allowances: allowedOn(CONFIG, 'R1') },
    want: { kind: 'ask' },
  },
  {
    name: 'config tool allowed for the session on R1: a call on R2 with policy never is refused',
    call: { name: CONFIG, args: onDevices('R2') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'never', allowances: allowedOn(CONFIG, 'R1') },
    want: { kind: 'refused', refusal: { tool: CONFIG, cause: 'policy' } },
  },
  {
    name: 'another tool allowed on R1 does not cover the config tool on R1',
    call: { name: CONFIG, args: onDevices('R1') },
    state: { mode: 'lab_automation_assistant' },
    approval: { policy: 'ask', canAsk: true, allowances: allowedOn('execute_vpcs_commands', 'R1') },
    want: { kind: 'ask' },
  },
  {
    name: 'a tool that names no targets (an MCP server tool) is allowed as a whole',
    call: { name: UNTRUSTED, args: { anything: 1 } },
    approval: { policy: 'never', allowances: allowedOn(UNTRUSTED) },
    want: { kind: 'run' },
  },
  // approval_tools adds read/lab tools; only --approve all (not config) lets them run unasked
  {
    name: 'approval_tools read tool, policy config, nobody to ask',
    call: { name: SHOW },
    approval: { policy: 'config', approvalTools: [SHOW] },
    want: {
      kind: 'refused',
      refusal: { why: 'approval_list', allowWith: 'all', cause: 'no_asker' },
      cli: /is on the approval list \(approval_tools\) and needs approval, but nobody can approve in this run: rerun with --approve all$/,
      mcp: /does not support elicitation.*with --approve all$/,
      notCli: /--approve config|changes device/,
      notMcp: /--approve config|changes device/,
    },
  },
  {
    name: 'approval_tools read tool, policy never, one-shot',
    call: { name: SHOW },
    approval: { policy: 'never', approvalTools: [SHOW] },
    want: {
      kind: 'refused',
      refusal: { why: 'approval_list', allowWith: 'all', cause: 'policy' },
      cli: /approval_tools\) and needs approval, which a one-shot run cannot ask for: rerun with --approve all to allow it$/,
      mcp: /runs with --approve never: restart `gns3-copilot mcp` with --approve all to allow it/,
      notCli: /--approve config/,
    },
  },
  {
    name: 'approval_tools read tool, policy config, can ask',
    call: { name: SHOW },
    approval: { policy: 'config', approvalTools: [SHOW], canAsk: true },
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
  // a user MCP server's untrusted tool is named for what it is, in every mode
  {
    name: 'untrusted MCP tool, policy never',
    call: { name: UNTRUSTED },
    approval: { policy: 'never' },
    want: {
      kind: 'refused',
      refusal: { why: 'untrusted_mcp', allowWith: 'config' },
      cli: /lab__wipe is an untrusted MCP tool .*rerun with --approve config/,
      mcp: /lab__wipe is an untrusted MCP tool .*restart `gns3-copilot mcp` with --approve config/,
      notCli: /changes device configuration/,
      notMcp: /changes device configuration/,
    },
  },
  {
    name: 'untrusted MCP tool, policy ask, can ask',
    call: { name: UNTRUSTED },
    approval: { policy: 'ask', canAsk: true },
    want: { kind: 'ask' },
  },
];

describe('assessCall', () => {
  it.each(rows)('$name', (row) => {
    const limits: RequestLimits = { max_iterations: 20, tool_limits: {}, on_limit: 'warn', ...row.state?.limits };
    const caller = row.frozen ? { ...ROOT_AGENT, depth: 1, tools: new Set(row.frozen) } : ROOT_AGENT;
    const state: GateState = { mode: 'teaching_assistant', caller, count: 0, counts: {}, ...row.state, limits };
    const approval: ApprovalRules = {
      policy: 'never',
      approvalTools: [],
      allowances: new SessionAllowances(),
      interactive: false,
      canAsk: false,
      ...row.approval,
    };
    const v = assessCall({ name: row.call.name, args: row.call.args ?? {} }, state, { tools: registry, approval });
    const { reason, refusal, cli, mcp, notCli, notMcp, ...exact } = row.want;
    expect(v).toMatchObject(exact);
    if (v.kind === 'run' || v.kind === 'ask') expect(v.def).toBe(registry.get(row.call.name));
    if (reason) expect(v.kind === 'blocked' || v.kind === 'limit' ? v.reason : '').toMatch(reason);
    if (v.kind !== 'refused') return;
    if (refusal) expect(v.refusal).toMatchObject(refusal);
    if (cli) expect(cliRefusalText(v.refusal)).toMatch(cli);
    if (mcp) expect(mcpRefusalText(v.refusal)).toMatch(mcp);
    if (notCli) expect(cliRefusalText(v.refusal)).not.toMatch(notCli);
    if (notMcp) expect(mcpRefusalText(v.refusal)).not.toMatch(notMcp);
  });

  it('does not change the counts or the session allowances it is given', () => {
    const counts = Object.freeze({ [SHOW]: 1 });
    const allowances = new SessionAllowances();
    const state: GateState = {
      mode: 'lab_automation_assistant',
      caller: ROOT_AGENT,
      count: 1,
      counts,
      limits: { max_iterations: 5, tool_limits: {}, on_limit: 'warn' },
    };
    const approval: ApprovalRules = { policy: 'ask', approvalTools: [], allowances, interactive: true, canAsk: true };
    expect(assessCall({ name: CONFIG, args: {} }, state, { tools: registry, approval })).toMatchObject({ kind: 'ask' });
    expect(counts).toEqual({ [SHOW]: 1 });
    expect(allowances.size).toBe(0);
  });
});
