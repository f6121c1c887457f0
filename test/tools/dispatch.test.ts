/**
 * The one dispatch (src/tools/dispatch.ts) on the real registry and gate: every call of a
 * batch gets exactly one result, in order, whatever happens to it between the gate and
 * its execution.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool, failure, type ToolDef } from '../../src/tools/types.js';
import { executeTool, prepareTool } from '../../src/tools/registry.js';
import { settingsSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { dispatchCalls, type DispatchCall, type DispatchRequest } from '../../src/tools/dispatch.js';
import { cliRefusalText } from '../../src/agent/refusal-text.js';
import { CLI_CALLER, ROOT_AGENT } from '../../src/core/caller.js';
import { COPILOT_MODES, RESTORE_TOOLS } from '../../src/core/modes.js';
import { allTools } from '../../src/tools/index.js';
import type { ApprovalContext } from '../../src/tools/approval.js';
import { SessionAllowances } from '../../src/tools/allowances.js';

const tool = (name: ToolDef['name'], risk: ToolDef['risk']): ToolDef =>
  defineTool({ name, description: name, risk, targets: null, schema: z.object({}), run: async () => ({ status: 'success', data: {} }) });

function request(
  registry: ToolRegistry,
  over: Partial<Omit<DispatchRequest, 'approval'>> & { approval?: Partial<ApprovalContext> } = {},
): DispatchRequest {
  const { approval, ...rest } = over;
  return {
    tools: registry,
    approval: { policy: 'ask', approvalTools: [], allowances: new SessionAllowances(), interactive: true, canAsk: false, ...approval },
    mode: 'lab_automation_assistant',
    caller: ROOT_AGENT,
    limits: { max_iterations: 5, tool_limits: {}, on_limit: 'warn' },
    counter: { count: 0, counts: {} },
    signal: new AbortController().signal,
    stopped: () => undefined,
    wordRefusal: cliRefusalText,
    execute: async (def) => ({ status: 'success', output: `ran ${def.name}` }),
    maxParallel: 4,
    ...rest,
  };
}

const call = (id: string, name: string): DispatchCall => ({ id, name, args: {} });

describe('dispatchCalls', () => {
  it('answers every call in order: run, refused, unknown, thrown, and a tool gone while the approver was asked', async () => {
    const registry = new ToolRegistry([tool('gns3_topology_reader', 'read'), tool('execute_multiple_device_config_commands', 'config')]);
    registry.addExternal([tool('inv__set', 'config')]);
    const asked: string[] = [];
    const out = await dispatchCalls(
      [call('a', 'gns3_topology_reader'), call('b', 'inv__set'), call('c', 'nope'), call('d', 'execute_multiple_device_config_commands')],
      request(registry, {
        approval: {
          canAsk: true,
          approver: async (req) => {
            asked.push(req.name);
            // the server of inv__set dies while its user decides
            if (req.name === 'inv__set') registry.removeExternal('inv__');
            return { kind: 'allow_once' };
          },
        },
        execute: async (def) => {
          if (def.name === 'execute_multiple_device_config_commands') throw new Error('console dropped');
          return { status: 'success', output: `ran ${def.name}` };
        },
      }),
    );
    expect(asked).toEqual(['inv__set', 'execute_multiple_device_config_commands']);
    expect(out.results.map((r) => r.status)).toEqual(['success', 'error', 'blocked', 'error']);
    // programs read the code, never the message
    expect(out.results.map((r) => r.code)).toEqual([undefined, 'not_available', 'not_available', 'failed']);
    expect(out.results[3]!.output).toContain('console dropped');
    expect(out).toMatchObject({ admitted: 3, approvalBlocked: 0 });
  });

  it('words an approval refusal with the front end’s words and counts it', async () => {
    const registry = new ToolRegistry([tool('execute_multiple_device_config_commands', 'config')]);
    const out = await dispatchCalls(
      [call('a', 'execute_multiple_device_config_commands')],
      request(registry, { approval: { policy: 'never', canAsk: true }, wordRefusal: (r) => `front end: ${r.why}/${r.allowWith}` }),
    );
    expect(out.results[0]).toEqual({
      status: 'blocked',
      output: JSON.stringify({ status: 'blocked', error: 'front end: config/config' }),
      code: 'approval_required',
    });
    expect(out).toMatchObject({ admitted: 0, approvalBlocked: 1 });
  });

  it('every call that did not succeed says why in a code: denied, refused by the policy, over a limit, after the stop', async () => {
    const registry = new ToolRegistry([tool('execute_multiple_device_config_commands', 'config'), tool('gns3_topology_reader', 'read')]);
    const denied = await dispatchCalls(
      [call('a', 'execute_multiple_device_config_commands')],
      request(registry, { approval: { canAsk: true, approver: async () => ({ kind: 'deny' }) } }),
    );
    const refused = await dispatchCalls(
      [call('a', 'execute_multiple_device_config_commands')],
      request(registry, { approval: { policy: 'never' } }),
    );
    const limited = await dispatchCalls(
      [call('a', 'gns3_topology_reader'), call('b', 'gns3_topology_reader')],
      request(registry, { limits: { max_iterations: 5, max_tool_calls: 1, tool_limits: {}, on_limit: 'fail' } }),
    );
    const stopped = await dispatchCalls([call('a', 'gns3_topology_reader')], request(registry, { stopped: () => 'aborted' }));
    expect([denied, refused, stopped].map((o) => [o.results[0]!.status, o.results[0]!.code])).toEqual([
      ['blocked', 'approval_denied'],
      ['blocked', 'approval_required'],
      ['aborted', 'stopped'],
    ]);
    expect(limited.results.map((r) => [r.status, r.code])).toEqual([
      ['success', undefined],
      ['limit', 'limit'],
    ]);
  });

  it('a tool run says why it failed: arguments the schema refuses, a failure() without a code, a throw', async () => {
    const ctx = {
      settings: settingsSchema.parse({}),
      signal: new AbortController().signal,
      log: createLogger('error'),
      services: new Map(),
    };
    const project = async () => Promise.reject(new Error('no project'));
    const strict = defineTool({
      name: 'gns3_topology_reader',
      description: 'x',
      risk: 'read',
      schema: z.object({ n: z.number() }),
      run: async ({ n }) => (n > 0 ? failure('too many') : Promise.reject(new Error('boom'))),
    });
    const run = (args: Record<string, unknown>) => executeTool(strict, args, { ...ctx, project }, 1000);
    expect([await run({ n: 'x' }), await run({ n: 1 }), await run({ n: 0 })].map((r) => [r.status, r.code])).toEqual([
      ['error', 'invalid_arguments'],
      ['error', 'failed'],
      ['error', 'failed'],
    ]);
    // a tool with a prepare step (a template's) meets the schema there first: the same code
    const withPrepare = { ...strict, prepare: async (a: { n: number }) => ({ args: a }) };
    const refused = await prepareTool(withPrepare, { n: 'x' }, { ...ctx, project }, 1000);
    expect('result' in refused && [refused.result.status, refused.result.code]).toEqual(['error', 'invalid_arguments']);
  });

  it('a sub-agent caller sees only its frozen set', async () => {
    const registry = new ToolRegistry([tool('gns3_topology_reader', 'read'), tool('get_gns3_templates', 'read')]);
    const caller = { kind: 'agent' as const, agentId: 'c1', depth: 1, tools: new Set(['gns3_topology_reader']) };
    expect(registry.visible('lab_automation_assistant', caller).map((t) => t.name)).toEqual(['gns3_topology_reader']);
    expect(registry.schemas('lab_automation_assistant', caller).map((s) => s.function.name)).toEqual(['gns3_topology_reader']);
    const out = await dispatchCalls([call('a', 'get_gns3_templates'), call('b', 'gns3_topology_reader')], request(registry, { caller }));
    expect(out.results.map((r) => [r.status, r.code])).toEqual([
      ['blocked', 'not_available'],
      ['success', undefined],
    ]);
  });

  it("the CLI's restores may send what a restore needs in every mode, the mode's model may not; the approval policy still judges them", async () => {
    const registry = new ToolRegistry(allTools());
    for (const mode of COPILOT_MODES) {
      const cli = registry.visible(mode, CLI_CALLER).map((t) => t.name);
      expect(cli, mode).toEqual(expect.arrayContaining([...RESTORE_TOOLS, ...registry.forMode(mode).map((t) => t.name)]));
      expect(new Set(cli).size, mode).toBe(cli.length);
    }
    expect(registry.visible('troubleshooting_injection', ROOT_AGENT).map((t) => t.name)).not.toContain('execute_vpcs_commands');
    const vpcs: DispatchCall = {
      id: 'r',
      name: 'execute_vpcs_commands',
      args: { device_configs: [{ device_name: 'PC1', commands: ['ip dhcp'] }] },
    };
    const ran: string[] = [];
    const execute: DispatchRequest['execute'] = async (def) => (ran.push(def.name), { status: 'success', output: 'ok' });
    const refused = await dispatchCalls(
      [vpcs],
      request(registry, { mode: 'troubleshooting_injection', caller: CLI_CALLER, execute, approval: { policy: 'never' } }),
    );
    expect(refused).toMatchObject({ admitted: 0, approvalBlocked: 1 });
    const allowed = await dispatchCalls(
      [vpcs],
      request(registry, {
        mode: 'troubleshooting_injection',
        caller: CLI_CALLER,
        execute,
        approval: { policy: 'ask', canAsk: true, approver: async () => ({ kind: 'allow_once' }) },
      }),
    );
    expect(allowed.results.map((r) => r.status)).toEqual(['success']);
    expect(ran).toEqual(['execute_vpcs_commands']);
  });
});

describe('a tool with a prepare step (a change set)', () => {
  const prepared = (seen: string[]) =>
    defineTool({
      name: 'apply_config_template',
      description: 'set',
      risk: 'config',
      schema: z.object({ template: z.string(), rendered: z.unknown().optional() }),
      targets: (args) => ({
        devices: typeof args.rendered === 'string' ? [{ name: 'R1', commands: [args.rendered] }] : [],
        changesConfig: true,
      }),
      prepare: async (args) =>
        args.template === 'bad'
          ? { error: { status: 'error', data: { error: 'R1: undefined variable "x"' } } }
          : { args: { ...args, rendered: `ran ${args.template}` } },
      run: async (args) => {
        seen.push(String(args.rendered));
        return { status: 'success', data: {} };
      },
    });

  it('is asked about and run with what it prepared; a failed prepare ends the call before the approver; no prepare hook, no run', async () => {
    const seen: string[] = [];
    const registry = new ToolRegistry([prepared(seen)]);
    const asked: unknown[] = [];
    const req = request(registry, {
      approval: { canAsk: true, approver: async (r) => (asked.push(r.args.rendered), { kind: 'allow_once' }) },
      prepare: async (def, c) => {
        const r = await def.prepare!(c.args, {} as never);
        return 'error' in r ? { status: 'error', output: JSON.stringify(r.error.data) } : { ...c, args: r.args };
      },
      execute: async (def, c) => (await def.run(c.args, {} as never), { status: 'success', output: 'ok' }),
    });
    const out = await dispatchCalls(
      [
        { id: 'a', name: 'apply_config_template', args: { template: 'ok', rendered: 'forged by the model' } },
        { id: 'b', name: 'apply_config_template', args: { template: 'bad' } },
      ],
      req,
    );
    expect(out.results.map((r) => r.status)).toEqual(['success', 'error']);
    expect(out.results[1]!.output).toContain('undefined variable');
    // the approver saw, and the tool ran, what the prepare step made — never the model's own `rendered`
    expect(asked).toEqual(['ran ok']);
    expect(seen).toEqual(['ran ok']);
    expect(out.admitted).toBe(1);

    const bare = await dispatchCalls([{ id: 'c', name: 'apply_config_template', args: { template: 'ok' } }], {
      ...req,
      prepare: undefined,
    });
    expect(bare.results[0]).toMatchObject({ status: 'error', code: 'not_available' });
    expect(seen).toEqual(['ran ok']);
  });
});
