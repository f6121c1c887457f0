/** The log lines of the runtime-limits and context designs, at the default level, through the real graph. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, fakeProject, session, showCall, useFakeLlm, testSettings, testTools } from './helpers.js';
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
    const s = await session(settings, tools, { log: createLogger(settings.log_level, file), projectScope: async () => fakeProject() });
    await collect(s.send(`one ${filler(200)}`));
    await collect(s.send('two'));
    await s.close();
    const lines = readLines(file);
    const msgs = lines.map((l) => l.msg);
    const req = lines.filter((l) => l.msg === 'request');
    expect(req).toHaveLength(2);
    expect(req[0]!.level).toBe('info');
    expect(req[0]!.limits).toMatchObject({ max_tool_calls: 2, on_limit: 'warn', max_parallel_tools: 5 });
    expect(lines.find((l) => l.msg === 'topology injected')).toMatchObject({ level: 'info' });
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
    expect(msgs.some((m) => /^messages trimmed \d+→\d+$/.test(m))).toBe(true);
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
    expect(readLines(file).find((l) => l.msg === 'no topology injected')).toMatchObject({ level: 'info' });
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
});
