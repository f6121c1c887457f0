/**
 * One streamed LLM answer: the text deltas go out as `content` events while the chunks
 * are gathered, a silent stream is aborted by the idle watchdog, and transient failures
 * are retried — unless text was already shown, which cannot be taken back.
 */
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { Logger } from '../log.js';
import type { RunControl } from './graph-deps.js';
import { isAbortErrorStrict, withProviderRetry, type ProviderEndpoint } from './providers.js';
import { IdleWatchdog } from './stream-guard.js';
import { messageText } from '../sessions/message-text.js';
import { errorMessage } from '../errors.js';

export type StreamingModel = Pick<Runnable<BaseLanguageModelInput, AIMessageChunk>, 'stream'>;

export interface StreamOptions {
  endpoint: ProviderEndpoint;
  idleTimeoutMs?: number;
  log: Logger;
}

/**
 * Streams `input` through `model`. `sink.chunk` holds what arrived so far, also when
 * this throws (an aborted answer keeps its partial text).
 */
export async function streamAnswer(
  model: StreamingModel,
  input: BaseMessage[],
  run: Pick<RunControl, 'emit' | 'signal'>,
  o: StreamOptions,
  sink: { chunk?: AIMessageChunk },
): Promise<void> {
  await withProviderRetry(
    async () => {
      sink.chunk = undefined;
      let shown = false;
      const idle = new IdleWatchdog(o.idleTimeoutMs, run.signal);
      try {
        const stream = await model.stream(input, { signal: idle.signal });
        for await (const chunk of stream) {
          idle.kick();
          sink.chunk = sink.chunk ? sink.chunk.concat(chunk) : chunk;
          const delta = typeof chunk.content === 'string' ? chunk.content : messageText(chunk);
          if (delta) {
            shown = true;
            run.emit({ type: 'content', delta });
          }
        }
        // end of this answer's text: an empty delta lets the redacting queue release held words
        if (shown) run.emit({ type: 'content', delta: '' });
      } catch (raw) {
        const err = idle.translate(raw, run.signal);
        if (shown && !isAbortErrorStrict(err)) throw Object.assign(new Error('stream failed'), { committed: true, inner: err });
        throw err;
      } finally {
        idle.stop();
      }
    },
    {
      endpoint: o.endpoint,
      signal: run.signal,
      onRetry: (attempt, err, delay) =>
        o.log.warn('LLM call failed, retrying', { attempt, delay_ms: Math.round(delay), error: errorMessage(err) }),
    },
  );
}
