/**
 * --max-cost: the USD one request may spend on LLM calls, shared by the root and every
 * sub-agent it starts. Before each call its worst case (the prepared input tokens at the
 * input price plus the call's output cap at the output price) is reserved; after it, the
 * reservation is released and the real cost booked. A call whose worst case would cross
 * the limit is not made. Parallel sub-agents reserve against the same sum, so together
 * they cannot cross it either.
 */
import { priceOf, type ModelPrice } from '../core/pricing.js';
import { UsageError } from '../errors.js';

/**
 * The output cap of a chat call when --max-cost is set and `max_tokens` is not: a call
 * without a cap has no worst case to reserve, so the request sends this one.
 */
export const COST_OUTPUT_CAP = 4096;

/** The worst case of one call: every prepared input token and the whole output cap. */
export function worstCaseUsd(price: ModelPrice, inputTokens: number, maxOutputTokens: number): number {
  return (inputTokens * price.input + maxOutputTokens * price.output) / 1_000_000;
}

/** The price --max-cost is enforced at; a model without one is refused before the request starts. */
export function priceForCostLimit(model: string, overrides: Record<string, ModelPrice>): ModelPrice {
  const p = priceOf(model, overrides);
  if (!p)
    throw new UsageError(
      `--max-cost: model "${model}" has no price; add it to model_prices (e.g. model_prices={"${model}":{"input":0.5,"output":1.5}}, USD per 1M tokens)`,
    );
  return p;
}

export interface CostReservation {
  usd: number;
}

export class CostMeter {
  spent = 0;
  private reserved = 0;

  constructor(public max: number) {}

  /** spent plus what running calls hold */
  get committed(): number {
    return this.spent + this.reserved;
  }

  /** the user raised the limit in place (the TUI's limit prompt); parallel sub-agents share the raise */
  raise(to: number): void {
    this.max = Math.max(this.max, to);
  }

  /** reserves `worst` USD, or undefined when spent + reserved + worst would cross the limit */
  reserve(worst: number): CostReservation | undefined {
    if (this.spent + this.reserved + worst > this.max) return undefined;
    this.reserved += worst;
    return { usd: worst };
  }

  /** releases a reservation and books what the call really cost (the reservation when the provider did not say) */
  book(r: CostReservation, actual: number | undefined): void {
    this.reserved = Math.max(0, this.reserved - r.usd);
    this.spent += actual ?? r.usd;
  }
}

/** The output cap of the Validators' calls (src/agent/session/models.ts). */
export const VALIDATOR_MAX_TOKENS = 1500;
