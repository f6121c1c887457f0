/**
 * The counts of one request, shared by the root and every sub-agent it starts (both
 * agent modes): the tool calls the limits count (in all and per tool, read by the
 * dispatch's gate), and each agent's LLM calls, tool calls and tokens for
 * `stats.by_agent`. One object per request, in memory: the tree budget (recursive)
 * is the tree's lifetime ceiling across requests and lives in the sessions DB.
 */
import type { AgentStats } from '../core/events.js';
import type { ToolCounter } from '../tools/dispatch.js';
import type { CostMeter } from './cost-limit.js';
import type { RequestLimits } from '../core/api.js';

/** What an LLM call is for (`stats.by_kind`): the agent's own loop or one of the calls around it. */
export type CallKind = 'agent' | 'title' | 'summary' | 'validator' | 'root_validator';

/** The key of the root agent in `by_agent` (sub-agents are keyed by their agent id). */
export const ROOT_AGENT_KEY = 'root';

/** A run's key in `by_agent`. */
export const agentKey = (run: { agent?: { id: string } }): string => run.agent?.id ?? ROOT_AGENT_KEY;

export class RequestCounters implements ToolCounter {
  count = 0;
  counts: Record<string, number> = {};
  private readonly agents = new Map<string, AgentStats>();

  /** limits the user declined to raise in this request (src/agent/limit-raise.ts): not asked again */
  readonly declined = new Set<string>();
  /** tool-call limits the user raised in this request: they hold for every run of it */
  readonly raised: Partial<RequestLimits> = {};

  /** `cost`: the request's --max-cost meter, shared like the counts */
  constructor(readonly cost?: CostMeter) {}

  private of(agent: string): AgentStats {
    let a = this.agents.get(agent);
    if (!a) this.agents.set(agent, (a = { llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 }));
    return a;
  }

  /** one LLM call made for `agent` (src/agent/metered-call.ts books every call here) */
  llmCall(agent: string, usage: { input_tokens?: number; output_tokens?: number } | undefined, kind: CallKind = 'agent'): void {
    // the Validators' calls are booked in the tree budget and --max-cost only; a title or summary adds its tokens
    if (kind === 'validator' || kind === 'root_validator') return;
    const a = this.of(agent);
    if (kind === 'agent') a.llm_calls++;
    a.input_tokens += usage?.input_tokens ?? 0;
    a.output_tokens += usage?.output_tokens ?? 0;
  }

  toolCalls(agent: string, n: number): void {
    if (n > 0) this.of(agent).tool_calls += n;
  }

  /** every agent that made a call, the root first */
  byAgent(): Record<string, AgentStats> {
    const out: Record<string, AgentStats> = {};
    if (this.agents.has(ROOT_AGENT_KEY)) out[ROOT_AGENT_KEY] = { ...this.agents.get(ROOT_AGENT_KEY)! };
    for (const [k, v] of this.agents) if (k !== ROOT_AGENT_KEY) out[k] = { ...v };
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
