/**
 * Shared setup for agent tests: real settings (zod-parsed), a temp data dir with a
 * real SQLite file, the fake LLM over HTTP, and test-local ToolDefs whose side
 * effects are observable (the graph is what is under test here).
 */
import { afterAll, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { settingsSchema, type Settings } from '../../src/config/schema.js';
import { settingsFromEnv } from '../../src/config/env.js';
import { validateSetting } from '../../src/config/validate.js';
import { defineTool, type ToolDef } from '../../src/tools/types.js';
import type { AgentEvent } from '../../src/core/events.js';
import { createAgentSession, type CreateAgentSessionOptions } from '../../src/agent/session.js';
import type { ProjectScope, Topology } from '../../src/gns3/types.js';
import type { startFakeLlm } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';
process.env.GNS3_COPILOT_LLM_RETRY_MS = '20';
delete process.env.AGENT_MODE;
delete process.env.AGENT_RECURSION_ENABLED;

export function tempDir(prefix = 'gc-agent-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temp dir for the file (removed after all its tests) and fake LLM servers that are
 * closed after each test: `const { tmp, startLlm } = useFakeLlm('gc-x-')`.
 */
export function useFakeLlm(prefix: string): { tmp: { dir: string; cleanup(): void }; startLlm: typeof startFakeLlm } {
  const tmp = tempDir(prefix);
  afterAll(() => tmp.cleanup());
  return { tmp, startLlm: fakeLlmServers() };
}

/** What `fn` writes to process.stdout (e.g. a `sessions` subcommand), instead of printing it. */
export async function captureStdout(fn: () => Promise<unknown>): Promise<string> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  try {
    await fn();
    return out;
  } finally {
    spy.mockRestore();
  }
}

export function testSettings(llmUrl: string, dataDir: string, extra: Record<string, unknown> = {}): Settings {
  return settingsSchema.parse({
    provider: 'custom',
    base_url: llmUrl,
    model: 'fake-model',
    context_limit: 32,
    data_dir: dataDir,
    ...extra,
  });
}

/** Records every execution so tests can prove what ran (and what did not). */
export interface ToolLog {
  calls: { name: string; args: unknown }[];
  /** when each slow show call ran, measured inside the tool (events reach a test later on a loaded machine) */
  spans?: { start: number; end: number }[];
}

export function testTools(log: ToolLog, opts: { slowMs?: number; bigOutput?: number } = {}): ToolDef[] {
  const show = defineTool({
    name: 'execute_multiple_device_commands',
    description: 'Run read-only show commands on devices',
    risk: 'read',
    schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
    async run(args, ctx) {
      log.calls.push({ name: 'execute_multiple_device_commands', args });
      if (opts.slowMs) {
        const span = { start: performance.now(), end: Infinity };
        log.spans?.push(span);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.slowMs);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        });
        span.end = performance.now();
      }
      const out = opts.bigOutput ? 'x'.repeat(opts.bigOutput) : 'ok';
      return {
        status: 'success',
        data: JSON.stringify(args.device_configs.map((d) => ({ device_name: d.device_name, status: 'success', output: out }))),
      };
    },
  });
  const config = defineTool({
    name: 'execute_multiple_device_config_commands',
    description: 'Apply configuration commands on devices',
    risk: 'config',
    // a stand-in that touches no device: nothing to checkpoint
    targets: null,
    schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), config_commands: z.array(z.string()) })) }),
    async run(args) {
      log.calls.push({ name: 'execute_multiple_device_config_commands', args });
      return { status: 'success', data: {} };
    },
  });
  const templates = defineTool({
    name: 'get_gns3_templates',
    description: 'List templates',
    risk: 'read',
    schema: z.object({}),
    async run() {
      log.calls.push({ name: 'get_gns3_templates', args: {} });
      return { status: 'success', data: JSON.stringify([{ name: 'FRR' }]) };
    },
  });
  return [show, config, templates] as ToolDef[];
}

export const showCall = (device: string, id?: string) => ({
  ...(id ? { id } : {}),
  name: 'execute_multiple_device_commands',
  args: { device_configs: [{ device_name: device, commands: ['show ip route'] }] },
});

export async function collect(it: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

export function ofType<T extends AgentEvent['type']>(events: AgentEvent[], t: T): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e) => e.type === t) as Extract<AgentEvent, { type: T }>[];
}

export function text(events: AgentEvent[]): string {
  return ofType(events, 'content')
    .map((e) => e.delta)
    .join('');
}

export function fakeProject(topology?: Partial<Topology>): ProjectScope {
  const t: Topology = { project_id: 'p-1', project_name: 'lab1', nodes: [], links: [], ...topology };
  return {
    projectId: t.project_id,
    projectName: t.project_name,
    getTopology: async () => t,
    capture: async () => new Uint8Array(),
  };
}

/**
 * The session's agent settings read from `extra.env` as the settings loader reads them
 * (AGENT_MODE, AGENT_MAX_*: env aliases of agent_mode and agent_budget, field by field over
 * the settings), so a test describes a tree the way a user does; the core reads only settings.
 */
export async function session(settings: Settings, tools: ToolDef[], extra: Partial<CreateAgentSessionOptions> = {}) {
  return createAgentSession({ settings: extra.env ? withAgentEnv(settings, extra.env) : settings, tools, ...extra });
}

function withAgentEnv(settings: Settings, env: NodeJS.ProcessEnv): Settings {
  const fromEnv = settingsFromEnv(env);
  const mode = fromEnv.get('agent_mode');
  const budget = fromEnv.get('agent_budget');
  return {
    ...settings,
    ...(mode ? { agent_mode: validateSetting('agent_mode', mode.value, mode.name) as Settings['agent_mode'] } : {}),
    ...(budget
      ? { agent_budget: { ...settings.agent_budget, ...(validateSetting('agent_budget', budget.value, budget.name) as object) } }
      : {}),
  };
}
