/**
 * One LLM call, metered: reserve → call → book. Every call of a request goes through here
 * (the agent's answer, the history summary, the session title, a sub-agent's Validator and
 * the root Validator), so each counts in the same three places with the same rules:
 *
 * - the tree budget (recursive trees): one call reserved before it is made, its tokens and
 *   cost booked after; a title or summary never takes the root's reserved final calls;
 * - the request's --max-cost: the call's worst case reserved (input tokens at the input
 *   price plus the output cap at the output price), the real cost booked after;
 * - the request's counters: `stats` (calls, tokens, cost), `by_agent` and `by_kind`.
 *
 * The budget is asked first, then the cost. A call that is not made gives back what it
 * reserved. A call that failed books what it may have cost (its reservation when the
 * provider said nothing) and keeps its tree-budget call; it is not one of the request's
 * calls. A call stopped mid-stream counts with what it used so far.
 */
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import type { StreamingModel } from './llm-stream.js';
import type { ModelPrice } from '../core/pricing.js';
import type { CallBudget } from './tree/call-budget.js';
import type { Gate } from './tree/ledger.js';
import { worstCaseUsd, type CostMeter, type CostReservation } from './cost-limit.js';
import type { CallKind } from '../core/events.js';
import { agentKey, type RequestCounters } from './request-counters.js';
import { completeText } from './completion.js';
import { messageText } from '../sessions/message-text.js';

export type { CallKind } from '../core/events.js';

export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
}

/** Where a call is booked: the request it belongs to, the tree budget it is reserved in, who made it. */
export interface MeterScope {
  /** the request's counters (with its --max-cost meter) */
  counters: RequestCounters;
  /** the tree budget (absent: not a recursive tree) */
  budget?: CallBudget;
  /** the agent the call is booked to in `by_agent` (`root` or a sub-agent's id) */
  agent: string;
  /** the model's price; absent: unknown, so --max-cost (refused for such a model at start) reserves nothing */
  price?: ModelPrice;
}

/** The scope of a run's own calls: its request's counters, its tree budget, its agent. */
export function runScope(
  run: { counters: RequestCounters; budget?: CallBudget; agent?: { id: string } },
  price: ModelPrice | undefined,
): MeterScope {
  return { counters: run.counters, agent: agentKey(run), ...(run.budget ? { budget: run.budget } : {}), ...(price ? { price } : {}) };
}

/** Title and summary: they help the conversation, never take the reserved final calls and are skipped without a call left. */
const AUX: ReadonlySet<CallKind> = new Set(['title', 'summary']);

/**
 * A byte-level BPE never makes more tokens than the text has UTF-8 bytes, so the bytes
 * (plus each message's overhead) bound the input tokens of a call whose input is not
 * counted with the BPE (summary, Validators) from above.
 */
export function byteBoundTokens(messages: readonly BaseMessage[]): number {
  return messages.reduce((n, m) => n + Buffer.byteLength(messageText(m), 'utf8') + 8, 0);
}

export class MeteredCall {
  private gate: Exclude<Gate, 'denied'> | undefined;
  private held: CostReservation | undefined;
  private settled = false;

  constructor(
    private readonly scope: MeterScope,
    readonly kind: CallKind,
  ) {}

  /** --max-cost's meter, when the request has one and the price is known (else cost is not reserved) */
  get meter(): CostMeter | undefined {
    return this.scope.price ? this.scope.counters.cost : undefined;
  }

  /** The worst case (USD) of a call with this many input tokens and this output cap. */
  worstUsd(inputTokens: number, maxOutputTokens: number): number {
    return this.scope.price ? worstCaseUsd(this.scope.price, inputTokens, maxOutputTokens) : 0;
  }

  /**
   * The tree budget: 'ok', 'final' (the budget is gone and this is the root's reserved
   * final call) or 'denied'. A title or summary is 'ok' or 'denied', never 'final'.
   * Without a tree budget, 'ok'.
   */
  reserveCall(): Gate {
    const b = this.scope.budget;
    let g: Gate = 'ok';
    if (b) g = AUX.has(this.kind) ? (b.reserveAux() ? 'ok' : 'denied') : b.reserve();
    if (g !== 'denied') this.gate = g;
    return g;
  }

  /** --max-cost: holds `usd`; false when it would cross the limit (nothing held then). True without a meter. */
  reserveCost(usd: number): boolean {
    const meter = this.meter;
    if (!meter) return true;
    const r = meter.reserve(usd);
    if (r) this.held = r;
    return r !== undefined;
  }

  /** The call is not made: the budget's call and the cost reservation go back. */
  cancel(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.gate) this.scope.budget?.cancel();
    if (this.held) this.scope.counters.cost?.book(this.held, 0);
  }

  /** The call answered: books its usage everywhere; false when it crossed the tree budget. */
  book(usage: TokenUsage | undefined): boolean {
    this.settled = true;
    this.bookCost(usage);
    const within = this.scope.budget?.book(usage ?? {}) ?? true;
    this.scope.counters.llmCall(this.scope.agent, usage, this.kind);
    return within;
  }

  /** The call was stopped mid-stream: what it used so far counts in the request (the budget keeps the call). */
  stopped(usage: TokenUsage | undefined): void {
    this.settled = true;
    this.bookCost(usage);
    this.scope.counters.llmCall(this.scope.agent, usage, this.kind);
  }

  /** The call failed: its cost as far as known (else its reservation) is spent; it is not one of the request's calls. */
  failed(usage?: TokenUsage): void {
    this.settled = true;
    this.bookCost(usage);
  }

  private bookCost(usage: TokenUsage | undefined): void {
    if (!this.held) return;
    const known = usage && (usage.input_tokens !== undefined || usage.output_tokens !== undefined);
    this.scope.counters.cost?.book(this.held, known ? this.worstUsd(usage.input_tokens ?? 0, usage.output_tokens ?? 0) : undefined);
    this.held = undefined;
  }
}

/** Why a metered completion was not made. */
export type NotMade = 'budget' | 'max_cost';

/**
 * One whole completion of an auxiliary call (title, summary, Validators), metered: the
 * budget, then the worst case of `inputTokens` plus `maxOutputTokens`, then the call and
 * its booking. `{ made: false }` when a reservation failed (nothing is spent then); a
 * failed call throws after booking what it may have cost.
 */
export async function meteredCompletion(
  call: MeteredCall,
  model: StreamingModel,
  messages: BaseMessage[],
  o: { signal: AbortSignal; inputTokens: number; maxOutputTokens: number },
): Promise<{ made: true; res: AIMessageChunk; within: boolean; gate: Exclude<Gate, 'denied'> } | { made: false; why: NotMade }> {
  const gate = call.reserveCall();
  if (gate === 'denied') return { made: false, why: 'budget' };
  if (!call.reserveCost(call.worstUsd(o.inputTokens, o.maxOutputTokens))) {
    call.cancel();
    return { made: false, why: 'max_cost' };
  }
  let res: AIMessageChunk;
  try {
    res = await completeText(model, messages, o.signal);
  } catch (err) {
    call.failed();
    throw err;
  }
  return { made: true, res, within: call.book(res.usage_metadata), gate };
}
