/**
 * One agent run of an eval: a fresh session (no history, no resumed row) given the trouble
 * ticket, with the run's limits — lab mode approves every change (`approve all`), teaching
 * mode has no tool that changes the lab — folded with the one-shot's result builder, so the
 * answer, the tool and LLM calls, tokens and cost are what `--json` would report. The session
 * opener comes from the command (src/commands/eval.ts), which adds the user's MCP servers.
 */
import type { CopilotSession, CreateAgentSessionOptions } from '../agent/session.js';
import type { Settings } from '../config/schema.js';
import type { ErrorType, RunStats } from '../core/events.js';
import { errorMessage, errorTypeOf } from '../errors.js';
import { ResultBuilder } from '../output/summary.js';
import type { EvalMode } from './types.js';

export type SessionOpener = (o: CreateAgentSessionOptions) => Promise<CopilotSession>;

export interface AgentOutcome {
  answer: string;
  stats: RunStats;
  stopped_reason: string;
  error: { type: ErrorType; message: string } | null;
}

/** What the agent is told: the ticket in a user's words, the job, and to name what it found. */
export function ticketPrompt(ticket: string, mode: EvalMode): string {
  const job =
    mode === 'lab'
      ? 'Find the cause and fix it.'
      : 'Find the cause; do not change the configuration, explain what is wrong and how to fix it.';
  return `Trouble ticket: ${ticket}\n\n${job} End with the device at fault and what was wrong with it.`;
}

export function runSettings(base: Settings, model: string, mode: EvalMode, maxCostUsd: number | undefined): Settings {
  const { max_cost: _wholeEval, ...rest } = base;
  return {
    ...rest,
    model,
    mode: mode === 'lab' ? 'lab_automation_assistant' : 'teaching_assistant',
    approve: mode === 'lab' ? 'all' : 'never',
    ...(maxCostUsd !== undefined ? { max_cost: maxCostUsd } : {}),
  };
}

export async function runAgent(open: SessionOpener, settings: Settings, prompt: string, signal: AbortSignal): Promise<AgentOutcome> {
  const builder = new ResultBuilder(settings.mode);
  let session: CopilotSession | undefined;
  try {
    session = await open({ settings, projectExplicit: true, fork: false });
    for await (const e of session.send(prompt, { signal })) builder.add(e);
  } catch (err) {
    builder.fail(errorTypeOf(err), errorMessage(err).split('\n')[0] ?? 'error');
  } finally {
    await session?.close().catch(() => undefined);
  }
  const r = builder.result();
  return { answer: r.response, stats: r.stats, stopped_reason: r.stopped_reason, error: r.error };
}
