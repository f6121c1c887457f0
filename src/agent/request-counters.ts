/**
 * The counts of one request, shared by the root and every sub-agent it starts (both
 * agent modes): the tool calls the limits count (in all and per tool, read by the
 * dispatch's gate), and every call's LLM calls, tool calls and tokens per agent
 * (`stats.by_agent`) and per kind (`stats.by_kind`). One object per request, in memory: the
 * tree budget (recursive) is the tree's lifetime ceiling across requests and lives in the sessions DB.
 */
import type { AgentStats, CallKind } from '../core/events.js';
import type { ToolCounter } from '../tools/dispatch.js';
import type { CostMeter } from './cost-limit.js';
import type { RequestLimits } from '../core/api.js';

export type { CallKind } from '../core/events.js';

/** Every kind, in the order `by_kind` lists them. */
export const CALL_KINDS: readonly CallKind[] = ['agent', 'title', 'summary', 'validator', 'root_validator'];

const zero = (): AgentStats => ({ llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 });

/** The key of the root agent in `by_agent` (sub-agents are keyed by their agent id). */
export const ROOT_AGENT_KEY = 'root';

/** A run's key in `by_agent`. */
export const agentKey = (run: { agent?: { id: string } }): string => run.agent?.id ?? ROOT_AGENT_KEY;

export class RequestCounters implements ToolCounter {
  count = 0;
  counts: Record<string, number> = {};
  private readonly agents = new Map<string, AgentStats>();
  private readonly kinds = new Map<CallKind, AgentStats>();

  /** limits the user declined to raise in this request (src/agent/limit-raise.ts): not asked again */
  readonly declined = new Set<string>();
  /** tool-call limits the user raised in this request: they hold for every run of it */
  readonly raised: Partial<RequestLimits> = {};

  /** `cost`: the request's --max-cost meter, shared like the counts */
  constructor(readonly cost?: CostMeter) {}

  /** `agent`'s and `kind`'s stats: a call counts in both */
  private of(agent: string, kind: CallKind): AgentStats[] {
    let a = this.agents.get(agent);
    if (!a) this.agents.set(agent, (a = zero()));
    let k = this.kinds.get(kind);
    if (!k) this.kinds.set(kind, (k = zero()));
    return [a, k];
  }

  /** one LLM call made for `agent` (src/agent/metered-call.ts books every call of a request here) */
  llmCall(agent: string, usage: { input_tokens?: number; output_tokens?: number } | undefined, kind: CallKind = 'agent'): void {
    for (const s of this.of(agent, kind)) {
      s.llm_calls++;
      s.input_tokens += usage?.input_tokens ?? 0;
      s.output_tokens += usage?.output_tokens ?? 0;
    }
  }

  toolCalls(agent: string, n: number, kind: CallKind = 'agent'): void {
    if (n > 0) for (const s of this.of(agent, kind)) s.tool_calls += n;
  }

  /** every agent that made a call, the root first */
  byAgent(): Record<string, AgentStats> {
    const out: Record<string, AgentStats> = {};
    if (this.agents.has(ROOT_AGENT_KEY)) out[ROOT_AGENT_KEY] = { ...this.agents.get(ROOT_AGENT_KEY)! };
    for (const [k, v] of this.agents) if (k !== ROOT_AGENT_KEY) out[k] = { ...v };
    return out;
  }

  /** every kind, zeros included, so a script reads `by_kind.title` without asking whether it is there */
  byKind(): Record<CallKind, AgentStats> {
    const out = {} as Record<CallKind, AgentStats>;
    for (const k of CALL_KINDS) out[k] = { ...(this.kinds.get(k) ?? zero()) };
    return out;
  }

  totals(): AgentStats {
    const t: AgentStats = { llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 };
    for (const a of this.agents.values()) {
      t.llm_calls += a.llm_calls;
      t.tool_calls += a.tool_calls;
      t.input_tokens += a.input_tokens;
      t.output_tokens += a.output_tokens;
    }
    return t;
  }
}
