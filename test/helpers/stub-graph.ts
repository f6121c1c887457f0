/**
 * The real agent graph and checkpointer with an in-process model stub and a
 * no-op device tool, for benches and long synthetic sessions: what remains is
 * graph + checkpoint + context prep + dispatch, no LLM or tool time.
 */
import { z } from 'zod';
import { AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { buildGraph } from '../../src/agent/graph.js';
import type { RunControl } from '../../src/agent/graph-deps.js';
import { RequestCounters } from '../../src/agent/request-counters.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { AgentStateType } from '../../src/agent/state.js';
import { PromptLibrary } from '../../src/agent/prompts.js';
import type { TokenCounter } from '../../src/agent/tokens.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { SessionAllowances } from '../../src/tools/allowances.js';
import { defineTool, type ToolDef } from '../../src/tools/types.js';
import { settingsSchema } from '../../src/config/schema.js';
import { nullLogger, type Logger } from '../../src/log.js';

export const STUB_TOOL = 'execute_multiple_device_commands';
export const STUB_TOOL_ARGS = JSON.stringify({ device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] });

/** A chat model stand-in: call n answers with reply(n), instantly. */
export function stubModel(reply: (n: number) => AIMessageChunk): never {
  let calls = 0;
  const model = {
    bindTools: () => model,
    async stream() {
      const chunk = reply(calls++);
      return (async function* () {
        yield chunk;
      })();
    },
  };
  return model as never;
}

export const stubToolCall = (id: string, content = '') =>
  new AIMessageChunk({ content, tool_call_chunks: [{ id, name: STUB_TOOL, args: STUB_TOOL_ARGS, index: 0, type: 'tool_call_chunk' }] });

export function stubGraph(
  saver: BaseCheckpointSaver,
  o: { model: never; counter: TokenCounter; limitK: number; toolOutput?: string; log?: Logger },
) {
  const settings = settingsSchema.parse({ provider: 'custom', base_url: 'http://127.0.0.1:9/v1', model: 'stub', context_limit: o.limitK });
  const noop = defineTool({
    name: STUB_TOOL,
    description: 'no-op',
    risk: 'read',
    schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
    run: async () => ({ status: 'success', data: o.toolOutput ?? '{"status":"success"}' }),
  }) as ToolDef;
  const graph = buildGraph(
    {
      registry: new ToolRegistry([noop]),
      prompts: new PromptLibrary(),
      counter: o.counter,
      context: { limitK: o.limitK, strategy: 'balanced', summarize: false },
      models: { chat: o.model, title: o.model, summary: o.model, validator: o.model, rootValidator: o.model },
      endpoint: { baseURL: 'stub', model: 'stub', provider: 'stub' },
      cost: { maxOutputTokens: 4096 },
      log: o.log ?? nullLogger,
      approval: { policy: 'never', approvalTools: [], allowances: new SessionAllowances(), interactive: false, canAsk: false },
      maxOutputChars: 16_000,
      topology: async () => undefined,
      toolContext: (signal) => ({
        settings,
        signal,
        log: nullLogger,
        project: () => Promise.reject(new Error('none')),
        services: new Map(),
      }),
      needsTitle: () => false,
      saveTitle: () => undefined,
    },
    saver,
  );
  /** One request on thread `threadId`; resolves with the final state. */
  async function send(
    threadId: string,
    prompt: string,
    opts: { maxIterations?: number; emit?: (e: AgentEvent) => void } = {},
  ): Promise<AgentStateType> {
    const max = opts.maxIterations ?? 20;
    const run: RunControl = {
      emit: opts.emit ?? (() => undefined),
      signal: new AbortController().signal,
      approvalBlocked: 0,
      counters: new RequestCounters(),
    };
    let final: AgentStateType | undefined;
    const stream = await graph.stream(
      {
        messages: [new HumanMessage(prompt)],
        llm_calls: 0,
        limits: { max_iterations: max, tool_limits: {}, on_limit: 'warn' },
        reached: null,
        tools_offered: true,
        exceeded: [],
      },
      { configurable: { thread_id: threadId, run }, recursionLimit: max * 3 + 10, streamMode: 'values' },
    );
    for await (const v of stream) final = v;
    return final!;
  }
  return { graph, send, tool: noop };
}
