/**
 * What the tool schemas cost on every LLM call: the tools of a real session as the fake
 * LLM receives them over HTTP (the exact bytes sent, names included), counted exactly
 * with the session's o200k encoder. The table pins each tool's tokens per mode, so a tool
 * that grows shows as a diff here; the totals hold the goals per mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { collect, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import type { FakeLlm } from '../fakes/llm/server.js';
import { allTools } from '../../src/tools/index.js';
import { getEncoder } from '../../src/agent/tokens.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { MCP_CLIENT } from '../../src/core/caller.js';
import { executeMultipleDeviceConfigCommands } from '../../src/tools/devices/config.js';

const { tmp, startLlm } = useFakeLlm('gc-tool-tokens-');
let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

type Sent = { type: string; function: { name: string; description?: string; parameters?: unknown } }[];

/** The tools the model is sent on the first call of a request in `mode`. */
async function sentTools(mode: string, agentMode: 'flat' | 'recursive'): Promise<Sent> {
  llm = await startLlm([{ text: 'ok' }]);
  const s = await session(testSettings(llm.url, tmp.dir, { mode, agent_mode: agentMode }), allTools());
  try {
    await collect(s.send('hi'));
    return llm.requests[0]!.body.tools ?? [];
  } finally {
    await s.close();
  }
}

/** o200k tokens per tool (each tool's JSON as sent) and of the whole list: exact counts (the encoder, not the bounded counter). */
async function tokens(tools: Sent): Promise<{ total: number; each: Record<string, number> }> {
  const enc = await getEncoder('o200k_base');
  const each = Object.fromEntries(tools.map((t) => [t.function.name, enc.count(JSON.stringify(t))]));
  return { total: enc.count(JSON.stringify(tools)), each };
}

const SHARED = {
  // its `nodes` filter (names/globs) is how the model reads a lab above topology_inline_max
  gns3_topology_reader: 80,
  get_gns3_node_console: 47,
  verify_lab: 66,
  execute_multiple_device_commands: 74,
  // every session pages its cut tool results (tool_result_tokens) with it
  read_context_ref: 78,
};
const TEACHING = {
  get_gns3_templates: 46,
  create_gns3_node: 97,
  create_gns3_link: 92,
  start_gns3_node: 57,
  update_gns3_node_name: 67,
  packet_analysis: 119,
  packet_analysis_skills: 45,
  device_skills: 51,
  ...SHARED,
};

/** Pinned per tool: a change here is a visible diff of what every call costs. */
const TABLE = {
  teaching: { ...TEACHING, agent: 55 },
  lab: {
    ...TEACHING,
    stop_gns3_node: 57,
    suspend_gns3_node: 58,
    execute_multiple_device_config_commands: 93,
    execute_vpcs_commands: 80,
    apply_config_template: 142,
    agent: 55,
  },
  inject: {
    ...SHARED,
    execute_multiple_device_config_commands: 160,
    manage_gns3_packet_filter: 169,
    injection_skills: 69,
    agent: 55,
  },
};

/** All of the mode's tools as one list (flat agent mode, the default; read_context_ref included), and the goals they meet. */
const TOTAL = { teaching: 968, lab: 1393, inject: 794 };
const GOAL = { teaching: 1300, lab: 1725, inject: 1000 };

describe('tool schema tokens per call', () => {
  for (const mode of ['teaching', 'lab', 'inject'] as const) {
    it(`${mode} mode: each tool's tokens are pinned and all of them stay within ${GOAL[mode]}`, async () => {
      const { total, each } = await tokens(await sentTools(mode, 'flat'));
      expect(each).toEqual(TABLE[mode]);
      expect(total).toBe(TOTAL[mode]);
      expect(total).toBeLessThanOrEqual(GOAL[mode]);
    });
  }

  it('recursive sessions have their own agent tool, and read_context_ref as every session has it, both pinned', async () => {
    const { each } = await tokens(await sentTools('lab', 'recursive'));
    expect({ agent: each.agent, read_context_ref: each.read_context_ref }).toEqual({ agent: 196, read_context_ref: 78 });
  });
});

describe('what the model is shown against what is validated', () => {
  const config = (tools: Sent) => tools.find((t) => t.function.name === 'execute_multiple_device_config_commands')!.function;
  const props = (f: { parameters?: unknown }) => (f.parameters as { properties: Record<string, Record<string, unknown>> }).properties;

  it('the fault argument is shown in inject mode only, and zod validates it in every mode', async () => {
    expect(props(config(await sentTools('inject', 'flat')))).toHaveProperty('fault');
    expect(props(config(await sentTools('lab', 'flat')))).not.toHaveProperty('fault');
    const schema = executeMultipleDeviceConfigCommands.schema;
    const bad = schema.safeParse({ device_configs: [{ device_name: 'R1', config_commands: ['x'] }], fault: { difficulty: 'extreme' } });
    expect(bad.success).toBe(false);
  });

  it('bounds stay with zod: an empty device list is refused though the model is not shown minItems', async () => {
    const tools = await sentTools('lab', 'flat');
    expect(JSON.stringify(tools)).not.toMatch(/minItems|maxItems|minLength|maxLength|"minimum"|"maximum"/);
    expect(executeMultipleDeviceConfigCommands.schema.safeParse({ device_configs: [] }).success).toBe(false);
  });

  it('MCP clients are listed the whole descriptions and bounds of the mode', () => {
    const registry = new ToolRegistry(allTools());
    const full = registry.fullSchemas('troubleshooting_injection', MCP_CLIENT);
    const f = full.find((t) => t.function.name === 'execute_multiple_device_config_commands')!.function;
    expect(f.description).toBe(executeMultipleDeviceConfigCommands.description);
    expect(JSON.stringify(f.parameters)).toContain('"maxItems":256');
    expect(props(f).fault!.description).toContain('inject mode (required there)');
    expect(JSON.stringify(full)).not.toContain('"brief"');
    const lab = registry.fullSchemas('lab_automation_assistant', MCP_CLIENT);
    expect(props(lab.find((t) => t.function.name === 'execute_multiple_device_config_commands')!.function)).not.toHaveProperty('fault');
  });
});
