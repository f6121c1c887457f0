/**
 * Context-window management (docs/ARCHITECTURE.md, Limits and context). Before every LLM call the history is fitted
 * into budget = context_limit × 1000 × strategy ratio − tool-schema tokens.
 *
 * Trimming works on *units* so an AI tool call is never separated from its tool
 * results: a unit is a human message, a plain AI message, or an AI message with
 * tool calls plus the ToolMessages answering it. The system message and the latest
 * user message are always kept; units are dropped oldest first, and a trimmed history
 * starts on a user message (a whole request is dropped, never half). When enabled, the
 * dropped prefix of the history is first summarized into one paragraph that joins
 * the system message; the summary and how many messages it covers live in graph
 * state, so earlier history is summarized once, not on every call.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { TokenCounter } from './tokens.js';

export const STRATEGY_RATIO = { conservative: 0.6, balanced: 0.75, aggressive: 0.85 } as const;
export type ContextStrategy = keyof typeof STRATEGY_RATIO;
/** Used when the tool schemas cannot be serialised/counted. */
export const TOOL_SCHEMA_FALLBACK_TOKENS = 1000;
/** Room kept for the summary paragraph itself when summarizing. */
const SUMMARY_RESERVE = 400;

export interface HistorySummary {
  text: string;
  /** number of leading history messages the summary replaces */
  covered: number;
}

export interface ContextInput {
  system: string;
  history: BaseMessage[];
  summary: HistorySummary | null;
  toolsTokens: number;
}

export interface ContextPlan {
  /** system text to send (prompt + summary) */
  system: string;
  /** history messages to send after the system message */
  messages: BaseMessage[];
  tokens: number;
  toolsTokens: number;
  limit: number;
  budget: number;
  percent: number;
  /** messages not sent this call (dropped or summarized) */
  trimmed: number;
  /** set when a new summary was produced (store it in state) */
  summary: HistorySummary | null;
  warning?: string;
  /** counting or trimming failed: the original messages are sent (logged at error) */
  failure?: string;
}

export type Summarizer = (dropped: BaseMessage[], previous: string | undefined) => Promise<string>;

export interface ContextOptions {
  limitK: number;
  strategy: ContextStrategy;
  counter: TokenCounter;
  summarizer?: Summarizer;
  /** shrinks the budget (e.g. 0.5 after the provider said the prompt was too long) */
  ratioScale?: number;
  /** what is sent of the history (./history-mask.ts: old tool results as stubs), one message for one; the summarizer still gets it whole */
  mask?: (history: BaseMessage[]) => BaseMessage[];
}

interface Unit {
  start: number;
  end: number; // exclusive
  tokens: number;
  human: boolean;
}

function isToolCallMessage(m: BaseMessage): boolean {
  return m.getType() === 'ai' && ((m as { tool_calls?: unknown[] }).tool_calls?.length ?? 0) > 0;
}

/** Splits history into units; orphaned tool results (never produced by us) form their own unit. */
export function toUnits(history: BaseMessage[], count: (m: BaseMessage) => number): Unit[] {
  const units: Unit[] = [];
  let i = 0;
  while (i < history.length) {
    const m = history[i]!;
    const start = i;
    let tokens = count(m);
    i++;
    if (isToolCallMessage(m)) {
      while (i < history.length && history[i]!.getType() === 'tool') tokens += count(history[i++]!);
    } else if (m.getType() === 'tool') {
      while (i < history.length && history[i]!.getType() === 'tool') tokens += count(history[i++]!);
    }
    units.push({ start, end: i, tokens, human: m.getType() === 'human' });
  }
  return units;
}

export function systemWithSummary(system: string, summary: string | undefined): string {
  return summary ? `${system}\n\n## Summary of the earlier conversation\n${summary}` : system;
}

export function toolSchemaTokens(counter: TokenCounter, schemas: unknown[]): number {
  if (schemas.length === 0) return 0;
  try {
    return counter.text(JSON.stringify(schemas));
  } catch {
    return TOOL_SCHEMA_FALLBACK_TOKENS;
  }
}

/**
 * Which units to send, dropping from `used` tokens down to `target`; `prefixUnits` is how
 * many leading units (older requests) are dropped, the part a summary may replace.
 */
function selectUnits(units: Unit[], used: number, target: number): { keep: boolean[]; prefixUnits: number } {
  // The latest user message and everything after it is the current request.
  let latestHuman = -1;
  for (let k = units.length - 1; k >= 0; k--)
    if (units[k]!.human) {
      latestHuman = k;
      break;
    }
  const keep = new Array<boolean>(units.length).fill(true);
  // 1) the oldest units before the latest request
  let prefixUnits = 0;
  for (let k = 0; k < (latestHuman < 0 ? units.length - 1 : latestHuman) && used > target; k++) {
    keep[k] = false;
    used -= units[k]!.tokens;
    prefixUnits = k + 1;
  }
  // 1b) the kept history starts on a user message: drop up to the next one (never past the latest)
  while (prefixUnits > 0 && prefixUnits < latestHuman && !units[prefixUnits]!.human) {
    keep[prefixUnits] = false;
    used -= units[prefixUnits]!.tokens;
    prefixUnits++;
  }
  // 2) still too big: old tool rounds of the current request (never the newest unit)
  for (let k = latestHuman + 1; k < units.length - 1 && used > target; k++) {
    keep[k] = false;
    used -= units[k]!.tokens;
  }
  return { keep, prefixUnits };
}

/** The kept units' messages, their tokens, and how many history messages are not sent (those a summary covered included). */
function keptMessages(view: BaseMessage[], units: Unit[], keep: boolean[], covered: number) {
  const messages: BaseMessage[] = [];
  let msgTokens = 0;
  let dropped = covered;
  units.forEach((u, k) => {
    if (keep[k]) {
      for (let j = u.start; j < u.end; j++) messages.push(view[j]!);
      msgTokens += u.tokens;
    } else dropped += u.end - u.start;
  });
  return { messages, msgTokens, dropped };
}

/** The history as it is sent: older long tool results as stubs (./history-mask.ts). */
function maskedView(view: BaseMessage[], mask: ContextOptions['mask']): { sent: BaseMessage[]; maskWarning?: string } {
  try {
    return { sent: mask ? mask(view) : view };
  } catch (err) {
    // masking only saves tokens: when it fails (the ref store), the results go whole
    return { sent: view, maskWarning: `masking older tool results failed, sent whole: ${String(err)}` };
  }
}

export async function prepareContext(input: ContextInput, o: ContextOptions): Promise<ContextPlan> {
  const limit = o.limitK * 1000;
  const budget = Math.floor(limit * STRATEGY_RATIO[o.strategy] * (o.ratioScale ?? 1)) - input.toolsTokens;
  const count = (m: BaseMessage) => o.counter.message(m);
  const covered = Math.min(input.summary?.covered ?? 0, input.history.length);
  const view = input.history.slice(covered);
  const { sent, maskWarning } = maskedView(view, o.mask);
  const baseSystem = systemWithSummary(input.system, input.summary?.text);
  const systemTokens = o.counter.cachedText(baseSystem) + 4;
  const plan = (
    system: string,
    sysTokens: number,
    messages: BaseMessage[],
    msgTokens: number,
    trimmed: number,
    summary: HistorySummary | null,
    warning?: string,
    failure?: string,
  ): ContextPlan => {
    const tokens = sysTokens + msgTokens;
    return {
      system,
      messages,
      tokens,
      toolsTokens: input.toolsTokens,
      limit,
      budget,
      percent: Math.round(((tokens + input.toolsTokens) / limit) * 1000) / 10,
      trimmed,
      summary,
      ...(warning ? { warning } : {}),
      ...(failure ? { failure } : {}),
    };
  };

  let units: Unit[];
  try {
    units = toUnits(sent, count);
  } catch (err) {
    return plan(baseSystem, systemTokens, sent, 0, covered, null, undefined, `Context trimming failed (token counting: ${String(err)})`);
  }
  const total = units.reduce((n, u) => n + u.tokens, 0);
  if (systemTokens + total <= budget) return plan(baseSystem, systemTokens, sent, total, covered, null, maskWarning);

  try {
    const target = budget - (o.summarizer ? SUMMARY_RESERVE : 0);
    const { keep, prefixUnits } = selectUnits(units, systemTokens + total, target);

    let summary: HistorySummary | null = null;
    let system = baseSystem;
    let sysTokens = systemTokens;
    let warning = maskWarning;
    const prefixEnd = prefixUnits > 0 ? units[prefixUnits - 1]!.end : 0;
    if (o.summarizer && prefixEnd > 0) {
      try {
        const text = (await o.summarizer(view.slice(0, prefixEnd), input.summary?.text)).trim();
        if (text) {
          summary = { text, covered: covered + prefixEnd };
          system = systemWithSummary(input.system, text);
          sysTokens = o.counter.cachedText(system) + 4;
        }
      } catch (err) {
        warning = `summarizing dropped history failed, dropping it instead: ${String(err)}`;
      }
    }
    const { messages, msgTokens, dropped } = keptMessages(sent, units, keep, covered);
    if (sysTokens + msgTokens > budget)
      warning ??= `context still over budget after trimming (${sysTokens + msgTokens} > ${budget} tokens)`;
    return plan(system, sysTokens, messages, msgTokens, dropped, summary, warning);
  } catch (err) {
    return plan(baseSystem, systemTokens, sent, total, covered, null, undefined, `Context trimming failed (${String(err)})`);
  }
}
