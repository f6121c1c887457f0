/** The log lines of the runtime-limits and context designs, at the default level, through the real graph. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, fakeProject, session, showCall, useFakeLlm, testSettings, testTools } from './helpers.js';
import { topologyNode } from '../helpers/topology.js';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { stubGraph } from '../helpers/stub-graph.js';
import { SessionStore } from '../../src/sessions/store.js';
import { TokenCounter } from '../../src/agent/tokens.js';
import { messageText } from '../../src/sessions/message-text.js';
import { createLogger } from '../../src/log.js';
import { settingsSchema } from '../../src/config/schema.js';
import { defineTool, type ToolDef } from '../../src/tools/types.js';

const { tmp, startLlm } = useFakeLlm('gc-logs-');
let llm: FakeLlm | undefined;

type Line = { level: string; msg: string } & Record<string, unknown>;
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 50}`).join(' ');

describe('log lines at the default level', () => {
  it('the default log level is info', () => {
    expect(settingsSchema.parse({}).log_level).toBe('info');
  });

  it('request limits, context lines, LLM calls, the limit warning and tool failures reach the log file', async () => {
    const file = join(tmp.dir, 'a.log');
    const failing = defineTool({
      name: 'get_gns3_templates',
      description: 'List templates',
      risk: 'read',
      schema: z.object({}),
      async run() {
        throw new Error('controller exploded');
      },
    });
    const tools = [...testTools({ calls: [] }).filter((t) => t.name !== 'get_gns3_templates'), failing] as ToolDef[];
    llm = await startLlm([
      { text: `first ${filler(400)}` },
      {
        tool_calls: [{ id: 'g', name: 'get_gns3_templates', args: {} }, showCall('R1', 'a'), showCall('R2', 'b')],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      },
      { text: 'answer' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, { max_tool_calls: 2, context_limit: 1, context_summarize: false });
    const project = fakeProject({ nodes: [topologyNode('R1'), topologyNode('PC1')] });
    const s = await session(settings, tools, { log: createLogger(settings.log_level, file), projectScope: async () => project });
    await collect(s.send(`one ${filler(200)}`));
    await collect(s.send('two'));
    await s.close();
    const lines = readLines(file);
    const req = lines.filter((l) => l.msg === 'request');
    expect(req).toHaveLength(2);
    expect(req[0]!.level).toBe('info');
    expect(req[0]!.limits).toMatchObject({ max_tool_calls: 2, on_limit: 'warn', max_parallel_tools: 5 });
    // before the first call: the user's message; before the second: the answer and the new message too
    const preparing = lines.filter((l) => l.msg.startsWith('Calling pre_hook'));
    expect(preparing.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'Calling pre_hook to prepare 1 messages'],
      ['info', 'Calling pre_hook to prepare 3 messages'],
      ['info', 'Calling pre_hook to prepare 7 messages'],
    ]);
    expect(lines.find((l) => l.msg.startsWith('Topology injected'))).toMatchObject({
      level: 'info',
      msg: 'Topology injected: R1, PC1',
      nodes: ['R1', 'PC1'],
    });
    expect(lines.find((l) => l.msg === 'context ready')).toMatchObject({
      level: 'info',
      strategy: 'balanced',
      limit: 1000,
      budget: expect.any(Number),
    });
    expect(lines.find((l) => l.msg === 'context prepared')).toMatchObject({
      level: 'info',
      tokens: expect.any(Number),
      percent: expect.any(Number),
    });
    const prepared = lines.filter((l) => l.msg.startsWith('Messages prepared: '));
    expect(prepared).toHaveLength(3);
    expect(prepared[0]).toMatchObject({ level: 'info', msg: 'Messages prepared: 1 → 1', from: 1, to: 1 });
    // the long first turn no longer fits --context-limit 1: the second request's call is trimmed
    expect(prepared[2]!.msg).toMatch(/^Messages prepared: 7 → [1-6]$/);
    expect(prepared[2]!.trimmed).toBeGreaterThan(0);
    expect(lines.find((l) => l.msg === 'LLM call completed' && l.input_tokens === 11)).toMatchObject({
      level: 'info',
      output_tokens: 7,
      tool_calls: 3,
    });
    expect(lines.find((l) => l.msg === 'Tool call limit exceeded')).toMatchObject({ level: 'warn', reason: 'max_tool_calls', refused: 1 });
    expect(lines.find((l) => l.msg === 'tool call failed')).toMatchObject({ level: 'error', tool: 'get_gns3_templates' });
    expect(String(lines.find((l) => l.msg === 'tool call failed')!.output)).toContain('controller exploded');
  });

  it('without a project the log says no topology was injected', async () => {
    const file = join(tmp.dir, 'b.log');
    llm = await startLlm([{ text: 'hi' }]);
    const s = await session(testSettings(llm.url, tmp.dir), [], { log: createLogger('info', file) });
    await collect(s.send('hello'));
    await s.close();
    expect(readLines(file).find((l) => l.msg.startsWith('No topology injected'))).toMatchObject({ level: 'warn' });
  });

  it('tools alone exceeding the budget is an error naming --context-limit and the numbers', async () => {
    const file = join(tmp.dir, 'c.log');
    const huge = defineTool({
      name: 'device_skills',
      description: filler(2000),
      risk: 'read',
      schema: z.object({}),
      run: async () => ({ status: 'success', data: '{}' }),
    });
    llm = await startLlm([{ text: 'hi' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 1 }), [huge] as ToolDef[], { log: createLogger('info', file) });
    await collect(s.send('hello'));
    await s.close();
    const err = readLines(file).find((l) => l.msg.startsWith('Tools alone exceed the budget'))!;
    expect(err.level).toBe('error');
    expect(err.msg).toMatch(
      /tool schemas take \d+ tokens of the 750 the balanced strategy allows from --context-limit 1 \(1000 tokens\); raise --context-limit/,
    );
  });

  it('a trimming failure is an error line, logged before the original messages are sent', async () => {
    const file = join(tmp.dir, 'd.log');
    const store = await SessionStore.open(join(tmp.dir, 'trim-fail'));
    const real = await TokenCounter.create('cl100k_base');
    // a counter that cannot count one message: preparing the context fails on it
    const counter = Object.assign(Object.create(real) as TokenCounter, {
      message: (m: BaseMessage) => {
        if (messageText(m).includes('UNCOUNTABLE')) throw new Error('counter broke');
        return real.message(m);
      },
    });
    const lines: string[] = [];
    const log = createLogger('info', file);
    const sent: BaseMessage[][] = [];
    const model = {
      bindTools: () => model,
      async stream(messages: BaseMessage[]) {
        sent.push(messages);
        lines.push(...readLines(file).map((l) => l.msg));
        return (async function* () {
          yield new AIMessageChunk({ content: 'answered' });
        })();
      },
    };
    const { send } = stubGraph(store.saver, { model: model as never, counter, limitK: 32, log });
    const final = await send('t1', 'UNCOUNTABLE question');
    store.close();
    expect(messageText(final.messages[final.messages.length - 1]!)).toBe('answered');
    // the original history went out: the system message and the user's message
    expect(sent).toHaveLength(1);
    expect(sent[0]!.map((m) => m.getType())).toEqual(['system', 'human']);
    const err = readLines(file).find((l) => l.msg.startsWith('Context trimming failed'))!;
    expect(err).toMatchObject({ level: 'error' });
    expect(err.msg).toBe('Context trimming failed (token counting: Error: counter broke); sending the original 1 messages');
    // already in the log when the model was called
    expect(lines).toContain(err.msg);
  });
});
