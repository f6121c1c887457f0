/**
 * Hooks the sub-agent tree into a session: the engine, the `agent` tool,
 * how a child runs the session's compiled graph (own thread, its own RunControl in the
 * graph's `config.configurable.run`), the Validators, and the tree row written with the root.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { AgentMode } from '../../core/events.js';
import type { CopilotMode } from '../../core/modes.js';
import type { RequestLimits } from '../../core/api.js';
import type { AgentGraph } from '../graph.js';
import { runConfig, type RootAnswer, type RunControl } from '../graph-deps.js';
import { requestInput, type AgentStateType } from '../state.js';
import type { ToolDef } from '../../tools/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { recursionLimitFor } from '../limits.js';
import type { TreeStore } from '../../sessions/tree-store.js';
import type { BudgetSnapshot } from './budget.js';
import { anchorHash, normaliseAnchor } from './fixation.js';
import { policyFor } from './policy.js';
import { TreeEngine, type ValidateRequest } from './engine.js';
import { agentTool } from './agent-tool.js';
import { validateReport, type ValidatorHost } from './validator.js';
import { skippedForBudget, validateRootAnswer, type AcceptedReport, type RootValidatorHost } from './root-validator.js';
import { isProtocolNote } from './protocol-notes.js';
import type { TaskReport } from './report.js';
import type { ValidationResult } from './validation-result.js';
import { messageText } from '../../sessions/message-text.js';
import { trajectoryOf } from './trajectory.js';
import { DEFAULT_REPORT } from './brief.js';
import { MessageLog } from '../../sessions/message-log.js';
import { readContextRefTool, reviewTaskTool } from './protocol-tools.js';
import { BudgetLedger, type TreeUsage } from './ledger.js';
import { callBudget, type CallBudget } from './call-budget.js';
import { costUsd, priceOf, type ModelPrice } from '../../core/pricing.js';
import { MeteredCall, runScope } from '../metered-call.js';

export interface SessionTreeDeps {
  mode: AgentMode;
  budget?: BudgetSnapshot;
  trees: TreeStore;
  /** the session's registry (the tree's own tools join it): a child's tools are drawn from it */
  registry: Pick<ToolRegistry, 'get' | 'forMode'>;
  /** the session's compiled graph: a child is another run of it */
  graph: AgentGraph;
  /** what the Validator of a recursive child's report runs with */
  validator: ValidatorHost;
  /** what the root Validator of a recursive root's candidate answer runs with */
  rootValidator: RootValidatorHost;
  rootId: string;
  /** the session as it is now: its copilot mode and limits (a child starts under them), the root's run while a request runs */
  session: { readonly mode: CopilotMode; readonly limits: RequestLimits; readonly current: RunControl | undefined };
  schedule: { child_execution_mode: 'sequential' | 'parallel'; max_parallel_children: number };
  model: string;
  modelPrices: Record<string, ModelPrice>;
  /** bounds a `read_context_ref` page to the session's `tool_result_tokens` */
  readPage?: (s: string) => string;
}

export class SessionTree {
  /** an async context outside any graph run: a child's graph starts from here, not nested in its parent's LangGraph run */
  private readonly outside = AsyncLocalStorage.snapshot();
  readonly engine: TreeEngine;
  /** `agent`, and in recursive sessions the protocol's own tools */
  readonly tools: ToolDef[];
  /** said once per session: a cost budget that cannot be enforced */
  readonly notices: string[] = [];
  private ledgerCache: BudgetLedger | undefined;

  constructor(private readonly d: SessionTreeDeps) {
    const budgeted = policyFor(d.mode).budgeted && d.budget !== undefined;
    if (budgeted && d.budget!.enabled && !priceOf(d.model, d.modelPrices))
      this.notices.push(
        `no price known for model ${d.model}: the tree's cost budget (AGENT_MAX_TOTAL_COST_USD) is not enforced; set model_prices to enforce it`,
      );
    this.engine = new TreeEngine({
      policy: policyFor(d.mode),
      trees: d.trees,
      rootId: d.rootId,
      session: d.session,
      registry: d.registry,
      schedule: d.schedule,
      runChild: (c) => this.outside(() => this.runChild(c.threadId, c.prompt, c.mode, c.run)),
      ...(budgeted
        ? {
            reserveAgents: (n: number) => this.ledger()!.reserveAgents(n),
            childBudget: () => this.callBudget(false),
          }
        : {}),
      ...(d.mode === 'recursive' ? { validate: (v: ValidateRequest) => this.validateChild(v, budgeted) } : {}),
      threadMessages: async (threadId) =>
        ((await d.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType | undefined)?.messages ?? [],
    });
    // read_context_ref in every session: any agent pages its own cut tool results
    this.tools = [
      agentTool(this.engine),
      readContextRefTool(this.engine, d.readPage),
      ...(d.mode === 'recursive' ? [reviewTaskTool(this.engine)] : []),
    ];
  }

  /** The Validator of an ended child's report, against its trajectory read back from SQLite; its calls are the request's. */
  private async validateChild(v: ValidateRequest, budgeted: boolean): Promise<ValidationResult> {
    const price = priceOf(this.d.model, this.d.modelPrices);
    return validateReport(
      {
        ...v,
        trajectory: trajectoryOf(new MessageLog(this.d.trees.db).read(v.agentId).messages),
        // unreadable topology: no deterministic device check, the Validator's LLM call still judges
        projectNodes: await this.d.validator.projectNodes(v.signal).catch(() => undefined),
        anchor: this.d.trees.get(this.d.rootId)?.anchor ?? '',
        defaultExpected: v.brief.expected_report === DEFAULT_REPORT,
        // booked to the sub-agent whose report it validates, reserved in the tree budget as a child's call
        meter: () => {
          const { budget: _own, ...scope } = runScope(v.run, price);
          return new MeteredCall({ ...scope, agent: v.agentId, ...(budgeted ? { budget: this.callBudget(false) } : {}) }, 'validator');
        },
      },
      this.d.validator,
    );
  }

  /** The recursive tree's budget ledger (undefined for flat trees). */
  ledger(): BudgetLedger | undefined {
    if (!policyFor(this.d.mode).budgeted || !this.d.budget) return undefined;
    return (this.ledgerCache ??= new BudgetLedger(
      this.d.trees.db,
      this.d.rootId,
      this.d.budget,
      priceOf(this.d.model, this.d.modelPrices) !== undefined,
    ));
  }

  usage(): TreeUsage | undefined {
    return this.ledger()?.usage();
  }

  /** For display: undefined instead of an error when the row is missing or corrupt. */
  usageOrNone(): TreeUsage | undefined {
    try {
      return this.usage();
    } catch {
      return undefined;
    }
  }

  private callBudget(root: boolean): CallBudget {
    return callBudget(this.ledger()!, { root, cost: (u) => costUsd(this.d.model, u, this.d.modelPrices) ?? 0 });
  }

  /**
   * What the root's RunControl adds: the tree budget of a recursive root, its review gate and its
   * root Validator. Called once as each request's root run starts, so the request's running time
   * starts counting here (the duration budget); `requestEnded` stops it.
   */
  rootRunExtras(): Pick<RunControl, 'budget' | 'pendingReviews' | 'validateAnswer'> {
    this.ledger()?.beginRequest();
    return {
      ...(this.ledger() ? { budget: this.callBudget(true) } : {}),
      ...(this.d.mode === 'recursive'
        ? {
            pendingReviews: () => this.engine.pendingReviews(this.d.rootId),
            validateAnswer: (a: RootAnswer) => this.validateRootAnswer(a),
          }
        : {}),
    };
  }

  /**
   * The root Validator on a candidate final answer of the root (recursive trees): the
   * RootTaskAnchor, the root's accepted reports with their validations and the root's own
   * calls of this request. Undefined when there is nothing to validate: a flat tree, or a
   * request in which the root delegated nothing. The verdict is stored with the tree; a
   * validation that cannot run (`skipped`) is stored and said as such.
   */
  async validateRootAnswer(a: RootAnswer): Promise<ValidationResult | undefined> {
    if (this.d.mode !== 'recursive') return undefined;
    // this request: from the user's message (not a protocol note) on
    let start = a.messages.length - 1;
    while (start >= 0 && !(a.messages[start]!.getType() === 'human' && !isProtocolNote(a.messages[start]))) start--;
    const mine = a.messages.slice(Math.max(0, start));
    const trajectory = trajectoryOf(mine);
    if (!trajectory.some((c) => c.tool === 'agent')) return undefined;
    const rootId = this.d.rootId;
    if (a.skipped) {
      const skipped = skippedForBudget('the root Validator');
      this.d.trees.setRootValidation(rootId, JSON.stringify(skipped));
      return skipped;
    }
    const notes = this.d.trees.reviewNotes(rootId);
    const reports: AcceptedReport[] = this.d.trees
      .nodes(rootId)
      .filter((n) => n.parent_id === rootId && n.review === 'accept' && n.report)
      .map((n) => ({
        report: JSON.parse(n.report!) as TaskReport,
        validation: n.validation ? (JSON.parse(n.validation) as ValidationResult) : null,
        review_note: notes.get(n.id) ?? '',
      }));
    const v = await validateRootAnswer(
      {
        anchor: this.d.trees.get(rootId)?.anchor ?? '',
        request: start >= 0 ? messageText(a.messages[start]!) : '',
        answer: a.answer,
        reports,
        trajectory,
        meter: new MeteredCall(runScope(a.run, priceOf(this.d.model, this.d.modelPrices)), 'root_validator'),
        signal: a.run.signal,
      },
      this.d.rootValidator,
    );
    this.d.trees.setRootValidation(rootId, JSON.stringify(v));
    return v;
  }

  /** The request ended: the time it ran is stored, the time until the next one never counts. */
  requestEnded(): void {
    this.ledgerCache?.endRequest();
  }

  /** Written with the session row on the first request: the mode is fixed from then on. */
  recordRoot(sessionId: string, firstRequest: string): void {
    const anchor = this.d.mode === 'recursive' ? normaliseAnchor(firstRequest) : null;
    this.d.trees.create({
      root_id: sessionId,
      agent_mode: this.d.mode,
      anchor,
      anchor_hash: anchor ? anchorHash(anchor) : null,
      budget: this.d.budget ? JSON.stringify(this.d.budget) : null,
    });
    if (this.d.mode === 'recursive') BudgetLedger.init(this.d.trees.db, sessionId);
  }

  private async runChild(threadId: string, prompt: string, mode: CopilotMode, run: RunControl) {
    const limits = this.d.session.limits;
    const input = requestInput(new HumanMessage(prompt), limits, mode);
    let final: AgentStateType | undefined;
    const stream = await this.d.graph.stream(input, { ...runConfig(threadId, run, recursionLimitFor(limits)), streamMode: 'values' });
    for await (const v of stream) final = v;
    const messages: BaseMessage[] = final?.messages ?? [];
    return {
      messages,
      stop: final?.reached ?? (run.signal.aborted ? 'aborted' : 'done'),
      llm_calls: final?.llm_calls ?? 0,
      input_tokens: final?.usage.input_tokens ?? 0,
      output_tokens: final?.usage.output_tokens ?? 0,
    } as const;
  }
}
