/**
 * `--estimate`: prints what the request's first LLM call would send (token counts) and the
 * worst case the request could cost under its limits, then exits 0. The session is opened
 * as for a run (so a resumed session's history counts) but nothing is sent to the model,
 * no tool runs and no session row is created.
 */
import type { InvocationOptions, Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { jsonText } from '../output/json-text.js';

export async function runEstimate(settings: Settings, invocation: InvocationOptions): Promise<number> {
  const prompt = invocation.prompt?.trim();
  if (!prompt) throw new UsageError('--estimate: no prompt: pass -p "<prompt>" or pipe one on stdin');
  const { openAgentSession } = await import('./agent-session.js');
  const { estimateText } = await import('../agent/session/estimate.js');
  const session = await openAgentSession({ settings, invocation });
  try {
    const e = await session.estimate(prompt);
    process.stdout.write(invocation.output === 'json' ? jsonText({ estimate: e }) + '\n' : estimateText(e));
    return 0;
  } finally {
    await session.close().catch(() => undefined);
  }
}
