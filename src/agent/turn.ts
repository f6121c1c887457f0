/**
 * One turn of the model: one streamed answer becomes typed events (`content` while it
 * streams, `tool_call` once per call with its complete arguments) and the answer as an
 * AIMessage with its tool calls normalised (./tool-calls.ts). Nothing else: no limits,
 * no booking, no history (after Gemini CLI's `Turn`).
 */
import { randomUUID } from 'node:crypto';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { RunControl } from './graph-deps.js';
import type { ToolCall } from './history.js';
import { streamAnswer, type StreamingModel, type StreamOptions } from './llm-stream.js';
import { normaliseToolCalls } from './tool-calls.js';
import { messageText } from '../sessions/message-text.js';

export type Turn =
  | { ok: true; chunk: AIMessageChunk; message: AIMessage; calls: ToolCall[] }
  /** the stream failed or was stopped: `partial` is what arrived before */
  | { ok: false; partial: AIMessageChunk | undefined; error: unknown };

export async function streamTurn(
  model: StreamingModel,
  input: BaseMessage[],
  run: Pick<RunControl, 'emit' | 'signal'>,
  o: StreamOptions,
): Promise<Turn> {
  const sink: { chunk?: AIMessageChunk } = {};
  try {
    await streamAnswer(model, input, run, o, sink);
  } catch (error) {
    return { ok: false, partial: sink.chunk, error };
  }
  const chunk = sink.chunk ?? new AIMessageChunk({ content: '' });
  const calls = normaliseToolCalls(chunk);
  const message = new AIMessage({
    content: typeof chunk.content === 'string' ? chunk.content : messageText(chunk),
    tool_calls: calls.map((c) => ({ ...c, type: 'tool_call' as const })),
    ...(chunk.usage_metadata ? { usage_metadata: chunk.usage_metadata } : {}),
    // Our own id, never the provider's: the messages reducer replaces messages with
    // equal ids, and some OpenAI-compatible servers repeat completion ids.
    id: randomUUID(),
  });
  for (const c of calls) run.emit({ type: 'tool_call', id: c.id, name: c.name, args: c.args });
  return { ok: true, chunk, message, calls };
}
