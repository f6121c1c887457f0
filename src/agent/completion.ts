/**
 * Helpers around one LLM completion: token usage, whole completions for the auxiliary
 * calls, and telling a context-window overflow from other provider refusals.
 */
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { StreamingModel } from './llm-stream.js';
import type { Usage } from './state.js';

export function addUsage(u: Usage, m: { usage_metadata?: { input_tokens?: number; output_tokens?: number } } | undefined): Usage {
  const i = m?.usage_metadata?.input_tokens ?? 0;
  const o = m?.usage_metadata?.output_tokens ?? 0;
  return { input_tokens: u.input_tokens + i, output_tokens: u.output_tokens + o, total_tokens: u.total_tokens + i + o };
}

/**
 * A whole completion via stream(): ChatOpenAICompletions.invoke() with streaming
 * enabled never resolved against an OpenAI-compatible server in our tests, while
 * stream() does; auxiliary calls (title, summary, Validators) therefore stream and concatenate.
 */
export async function completeText(model: StreamingModel, messages: BaseMessage[], signal: AbortSignal): Promise<AIMessageChunk> {
  let acc: AIMessageChunk | undefined;
  for await (const c of await model.stream(messages, { signal })) acc = acc ? acc.concat(c) : c;
  return acc ?? new AIMessageChunk({ content: '' });
}

/** Provider refusals that mean "prompt longer than the model's window". */
export function isContextOverflow(err: unknown): boolean {
  const inner = (err as { cause?: unknown }).cause ?? err;
  const e = inner as { name?: string; status?: number; code?: string; message?: string; error?: { code?: string } };
  // @langchain/openai already classifies it (ContextOverflowError); raw SDK errors carry the code
  if (e.name === 'ContextOverflowError') return true;
  if (e.code === 'context_length_exceeded' || e.error?.code === 'context_length_exceeded') return true;
  if (e.status !== 400 && e.status !== 413) return false;
  return /context.{0,20}(length|window)|maximum context|too many tokens|prompt is too long|reduce the length/i.test(e.message ?? '');
}
