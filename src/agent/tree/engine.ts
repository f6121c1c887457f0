/**
 * The sub-agent engine. A child is another run of the session's compiled
 * graph on its own thread, with its own frozen tool set and its own context budget;
 * what differs between flat and recursive lives in the TreePolicy. The session
 * supplies `runChild` (how to run the graph for a child) and the root's RunControl; a
 * tree tool's call finds the run it belongs to by its caller (the root's, or a running
 * child's, which the engine holds while the child runs).
 */
import { randomUUID } from 'node:crypto';
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentEvent, StoppedReason } from '../../core/events.js';
import type { CopilotMode } from '../../core/modes.js';
import type { ToolContext } from '../../tools/types.js';
import type { RunControl } from '../graph-deps.js';
import type { AgentNodeInfo } from './node-info.js';
import { errorMessage } from '../../errors.js';
import type { TreeStore } from '../../sessions/tree-store.js';
import { childToolSet, type TreePolicy } from './policy.js';
import {
  normaliseBrief,
  parseBrief,
  renderBrief,
  renderContinuation,
  renderFlatTask,
  taskBriefsMatch,
  type TaskBrief,
  type Lineage,
  type TaskBriefInput,
} from './brief.js';
import { buildReport, notStartedReport, type TaskReport } from './report.js';
import { readGrantedRef, resolveRefs, type RefSlice } from './context-refs.js';
import { DelegationRefused } from './refused.js';
import { runBatch } from './scheduler.js';
import { CancelTree } from './cancel.js';
import type { CallBudget } from './call-budget.js';
import type { ValidationResult } from './validation.js';

export type { AgentNodeInfo } from './node-info.js';
export { DelegationRefused } from './refused.js';

/** Where a tree tool's call comes from: its id (the root's `agent` call names the subtree in events) and its caller. */
export type CallOrigin = Pick<ToolContext, 'callId' | 'caller'>;

export interface ChildRun {
  threadId: string;
  prompt: string;
  mode: CopilotMode;
  run: RunControl;
}

export interface ChildOutcome {
  messages: BaseMessage[];
  stop: StoppedReason;
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
}

export interface EngineDeps {
  policy: TreePolicy;
  trees: TreeStore;
  rootId: string;
  /** the session as it is now: its copilot mode and the root's run while a request runs */
  session: { readonly mode: CopilotMode; readonly current: RunControl | undefined };
  /** the session's registry (built-in, protocol and MCP servers' tools): a child's tools are drawn from it */
  registry: { get(name: string): unknown; forMode(mode: CopilotMode): { name: string }[] };
  schedule: { child_execution_mode: 'sequential' | 'parallel'; max_parallel_children: number };
  runChild(c: ChildRun): Promise<ChildOutcome>;
  /** recursive trees: the ledger's agent reservation and a child's call budget */
  reserveAgents?(n: number): boolean;
  childBudget?(): CallBudget;
  threadMessages(threadId: string): Promise<BaseMessage[]>;
  /** recursive trees: validates an ended child's report (the trajectory is read back from SQLite) */
  validate?(v: ValidateRequest): Promise<ValidationResult>;
}

export interface ValidateRequest {
  /** the run the child was started from: its request's counts and limits hold for the Validator too */
  run: RunControl;
  agentId: string;
  depth: number;
  brief: TaskBrief;
  report: TaskReport;
  /** the child's frozen tool set */
  childTools: readonly string[];
  signal: AbortSignal;
  emit(e: AgentEvent): void;
}

export type ReviewDecision = 'accept' | 'revise' | 'replan' | 'split';

export type DelegateItem = { kind: 'task'; task: string } | { kind: 'brief'; brief: TaskBriefInput };

export class TreeEngine {
  readonly cancel = new CancelTree();
  /** the runs of the children running now, by agent id */
  private readonly running = new Map<string, RunControl>();

  constructor(private readonly d: EngineDeps) {}

  /** The run a tree tool's call belongs to: a running child's, else the root's request. */
  private runOf(from: CallOrigin): RunControl {
    const id = from.caller?.agentId;
    const run = id ? this.running.get(id) : this.d.session.current;
    if (!run) throw new Error('agent tool used outside a request');
    return run;
  }

  /** the root's RootTaskAnchor (recursive) */
  private anchor(): string {
    return this.d.trees.get(this.d.rootId)?.anchor ?? '';
  }

  get policy(): TreePolicy {
    return this.d.policy;
  }

  /** Stops a node and its subtree (siblings and the parent go on). */
  stop(agentId: string): boolean {
    return this.cancel.stop(agentId);
  }

  /** Refs and briefs are resolved before anything is registered: a bad batch starts nothing. */
  private async prepareChildren(items: DelegateItem[], parent: AgentNodeInfo | undefined, at: Omit<Lineage, 'id'>, tools: string[]) {
    const prepared: { id: string; goal: string; brief?: TaskBrief; prompt: (id: string) => string }[] = [];
    for (const it of items) {
      const id = randomUUID();
      if (it.kind === 'task') {
        prepared.push({ id, goal: it.task.trim().slice(0, 200), prompt: () => renderFlatTask(it.task) });
        continue;
      }
      const refs = await this.refsOf(it.brief.context_refs ?? [], parent);
      const brief = normaliseBrief(it.brief, parent?.brief?.constraints ?? [], refs);
      prepared.push({ id, goal: brief.goal, brief, prompt: (cid) => renderBrief(brief, this.anchor(), { id: cid, ...at }, tools) });
    }
    return prepared;
  }

  /** `from`: the `agent` tool call asking (the root's one names the subtree in events) */
  async delegate(items: DelegateItem[], from: CallOrigin): Promise<{ reports: TaskReport[] }> {
    const p = this.d.policy;
    const parentRun = this.runOf(from);
    const rootCallId = parentRun.rootCallId ?? from.callId;
    const parent = parentRun.agent;
    const rootId = this.d.rootId;
    const parentId = parent?.id ?? rootId;
    const depth = (parent?.depth ?? 0) + 1;
    const mode = this.d.session.mode;
    if (items.length === 0) throw new DelegationRefused('no task given');
    if (depth > p.maxDepth) throw new DelegationRefused(`depth ${depth} is beyond the deepest sub-agent level (${p.maxDepth})`, 'limit');
    const parentTools = parentRun.tools ? [...parentRun.tools] : this.d.registry.forMode(mode).map((t) => t.name);
    const tools = childToolSet(p, { parentTools, registered: (t) => this.d.registry.get(t) !== undefined, mode, depth });

    const prepared = await this.prepareChildren(items, parent, { parent_id: parentId, root_id: rootId, depth }, tools);
    const added = this.d.trees.addChildren(
      parentId,
      p.quotaPerParent,
      prepared.map((c) => ({
        id: c.id,
        root_id: rootId,
        parent_id: parentId,
        depth,
        goal: c.goal,
        brief: JSON.stringify(c.brief ?? { task: c.goal }),
        tools: JSON.stringify(tools),
        status: 'queued' as const,
      })),
      this.d.reserveAgents ? () => this.d.reserveAgents!(prepared.length) : undefined,
    );
    if (added === 'reserve')
      throw new DelegationRefused(
        `tree budget reached (agents: AGENT_MAX_TOTAL_AGENTS): no sub-agent of this batch was started; the task tree is stopping, answer with what you have`,
        'limit',
      );
    if (added === 'quota') {
      const had = this.d.trees.childCount(parentId);
      throw new DelegationRefused(
        `sub-agent quota: a parent may start at most ${p.quotaPerParent} sub-agents over its lifetime (${had} started, ${prepared.length} requested); no sub-agent of this batch was started`,
        'limit',
      );
    }
    for (const c of prepared) for (const r of c.brief?.refs ?? []) this.d.trees.grantRef(rootId, c.id, r.id);
    // Every child is registered before any starts, so stopping one still queued means it never calls the model.
    const signals = new Map(prepared.map((c) => [c.id, this.cancel.register(c.id, parentRun.signal)]));
    const sched = p.schedule(this.d.schedule, prepared.length);
    const frozen = new Set(tools);
    try {
      const reports = await runBatch(
        prepared,
        sched.max,
        (c) => !signals.get(c.id)!.aborted,
        (c) =>
          this.runNode(
            { id: c.id, goal: c.goal, prompt: c.prompt(c.id), from: 0, ...(c.brief ? { brief: c.brief } : {}) },
            { parentRun, parentId, rootId, depth, rootCallId, tools, frozen, signal: signals.get(c.id)!, mode },
          ),
        (c) => {
          const report = notStartedReport(c.id, depth, c.goal);
          this.d.trees.finish(c.id, { status: 'stopped', report: JSON.stringify(report), llm_calls: 0, input_tokens: 0, output_tokens: 0 });
          return report;
        },
      );
      return { reports };
    } finally {
      for (const c of prepared) this.cancel.release(c.id);
    }
  }

  /**
   * `continue_from`: an ended child of the calling parent runs again on its own thread
   * (its history kept) with the brief again and the parent's note. It takes no new
   * quota slot and no agent from the budget. Refused: another parent's child, a child
   * still running, a brief that is not the original task (`task_briefs_match`).
   */
  async continueChild(agentId: string, input: TaskBriefInput | undefined, note: string | undefined, from: CallOrigin): Promise<TaskReport> {
    const parentRun = this.runOf(from);
    const rootCallId = parentRun.rootCallId ?? from.callId;
    const parent = parentRun.agent;
    const rootId = this.d.rootId;
    const parentId = parent?.id ?? rootId;
    const node = this.d.trees.node(agentId);
    if (!node || node.root_id !== rootId) throw new DelegationRefused(`continue_from: no sub-agent "${agentId}" in this task tree`);
    if (node.parent_id !== parentId)
      throw new DelegationRefused(`continue_from: sub-agent ${agentId} is not one of yours; you may continue only your own sub-agents`);
    if (node.status === 'queued' || node.status === 'running' || this.cancel.has(agentId))
      throw new DelegationRefused(`continue_from: sub-agent ${agentId} is still running; wait for its report`);
    const original = parseBrief(node.brief);
    if (!original) throw new DelegationRefused(`continue_from: sub-agent ${agentId} has no task brief to continue`);
    // claimed before anything is awaited: a second continuation of the same child finds it running
    const signal = this.cancel.register(agentId, parentRun.signal);
    try {
      let brief = original;
      if (input) {
        const refs = await this.refsOf(input.context_refs ?? [], parent);
        const next = normaliseBrief(input, parent?.brief?.constraints ?? [], refs);
        if (!taskBriefsMatch(original, next))
          throw new DelegationRefused(
            `continue_from ${agentId}: this brief is not the original task (goal "${original.goal}"${original.constraints.length ? ' with its hard constraints' : ''}); use a new child for a different task`,
          );
        const ids = new Set(original.refs.map((r) => r.id));
        brief = { ...next, refs: [...original.refs, ...next.refs.filter((r) => !ids.has(r.id))] };
        for (const r of next.refs) this.d.trees.grantRef(rootId, agentId, r.id);
      }
      const tools = JSON.parse(node.tools) as string[];
      const from = (await this.d.threadMessages(agentId)).length;
      this.d.trees.restart(agentId, JSON.stringify(brief));
      return await this.runNode(
        { id: agentId, goal: brief.goal, brief, prompt: renderContinuation(brief, note, tools), from },
        { parentRun, parentId, rootId, depth: node.depth, rootCallId, tools, frozen: new Set(tools), signal, mode: this.d.session.mode },
      );
    } finally {
      this.cancel.release(agentId);
    }
  }

  /**
   * `review_task`: the calling parent's decision on a validated report. `revise`
   * continues that child with the note (its new report awaits review again);
   * `accept` closes the review, `replan`/`split` release it so the parent delegates anew.
   */
  async review(
    agentId: string,
    decision: ReviewDecision,
    note: string,
    from: CallOrigin,
  ): Promise<{ report?: TaskReport; pending: string[] }> {
    const run = this.runOf(from);
    const rootId = this.d.rootId;
    const parentId = run.agent?.id ?? rootId;
    if (!this.d.trees.review(rootId, parentId, agentId, decision, note)) {
      const pending = this.pendingReviews(parentId);
      throw new DelegationRefused(
        `no report of sub-agent "${agentId}" awaits your review; ${pending.length ? `awaiting review: ${pending.join(', ')}` : 'none awaits review'}`,
      );
    }
    const node = this.d.trees.node(agentId)!;
    run.emit({ agent_id: agentId, depth: node.depth, type: 'review', decision, note });
    if (decision !== 'revise') return { pending: this.pendingReviews(parentId) };
    const report = await this.continueChild(agentId, undefined, note, from);
    return { report, pending: this.pendingReviews(parentId) };
  }

  /** Children of `parentId` whose validated report awaits its review. */
  pendingReviews(parentId: string): string[] {
    return this.d.trees.pendingReviews(parentId).map((n) => n.id);
  }

  /** One child's run from start (or continuation) to its validated report. */
  private async runNode(
    c: { id: string; goal: string; brief?: TaskBrief; prompt: string; from: number },
    x: {
      parentRun: RunControl;
      parentId: string;
      rootId: string;
      depth: number;
      rootCallId: string | undefined;
      tools: readonly string[];
      frozen: ReadonlySet<string>;
      signal: AbortSignal;
      mode: CopilotMode;
    },
  ): Promise<TaskReport> {
    const { parentRun, depth, rootCallId } = x;
    const agent: AgentNodeInfo = { id: c.id, parent_id: x.parentId, root_id: x.rootId, depth, ...(c.brief ? { brief: c.brief } : {}) };
    const tag = { agent_id: c.id, depth, ...(rootCallId ? { root_call_id: rootCallId } : {}) };
    const run: RunControl = {
      emit: (e: AgentEvent) => {
        if (e.type === 'content' || e.type === 'context' || e.type === 'init' || e.type === 'done') return;
        parentRun.emit({ ...tag, ...e }); // a grandchild's own tag wins
      },
      signal: x.signal,
      approvalBlocked: 0,
      // one request, one set of counts: a child counts against the same limits as the root
      counters: parentRun.counters,
      ...(parentRun.deadline !== undefined ? { deadline: parentRun.deadline } : {}),
      tools: x.frozen,
      agent,
      ...(rootCallId ? { rootCallId } : {}),
      ...(this.d.childBudget ? { budget: this.d.childBudget() } : {}),
      ...(c.brief ? { pendingReviews: () => this.pendingReviews(c.id) } : {}),
    };
    this.d.trees.setStatus(c.id, 'running');
    let outcome: ChildOutcome | undefined;
    let error: string | undefined;
    this.running.set(c.id, run);
    try {
      outcome = await this.d.runChild({ threadId: c.id, prompt: c.prompt, mode: x.mode, run });
    } catch (err) {
      error = errorMessage(err).split('\n')[0];
    } finally {
      this.running.delete(c.id);
    }
    parentRun.approvalBlocked += run.approvalBlocked;
    const report = buildReport({
      agent_id: c.id,
      depth,
      goal: c.goal,
      messages: outcome?.messages ?? [],
      from: c.from,
      stop: outcome?.stop ?? 'error',
      ...(error ? { error } : {}),
    });
    const before = c.from > 0 ? this.d.trees.node(c.id) : undefined;
    this.d.trees.finish(c.id, {
      status: report.status,
      report: JSON.stringify(report),
      // a continuation adds to what the child used before
      llm_calls: (before?.llm_calls ?? 0) + (outcome?.llm_calls ?? 0),
      input_tokens: (before?.input_tokens ?? 0) + (outcome?.input_tokens ?? 0),
      output_tokens: (before?.output_tokens ?? 0) + (outcome?.output_tokens ?? 0),
    });
    return this.validated(c.id, c.brief, report, x.tools, parentRun, tag);
  }

  /**
   * An ended child's report, validated before its parent sees anything (recursive):
   * the validation is stored (the report then awaits the parent's review) and the
   * parent reads the report with it.
   */
  private async validated(
    id: string,
    brief: TaskBrief | undefined,
    report: TaskReport,
    childTools: readonly string[],
    parentRun: RunControl,
    tag: { agent_id: string; depth: number; root_call_id?: string },
  ): Promise<TaskReport> {
    if (!this.d.validate || !brief) return report;
    const validation = await this.d.validate({
      run: parentRun,
      agentId: id,
      depth: tag.depth,
      brief,
      report,
      childTools,
      signal: parentRun.signal,
      emit: (e) => parentRun.emit({ ...tag, ...e }),
    });
    this.d.trees.setValidation(id, JSON.stringify(validation));
    parentRun.emit({ ...tag, type: 'validation', verdict: validation.verdict, summary: validation.summary, checks: validation.checks });
    return { ...report, validation };
  }

  /** The context refs a parent grants in a brief (./context-refs.ts). */
  private async refsOf(ids: string[], parent: AgentNodeInfo | undefined) {
    const own = () => this.d.threadMessages(parent?.id ?? this.d.rootId);
    return resolveRefs({ trees: this.d.trees, rootId: this.d.rootId, maxRefs: this.d.policy.maxRefs, own }, ids, parent);
  }

  /**
   * `read_context_ref`: a slice of a ref the calling agent holds (granted to it, or its own cut
   * result). A Validator reads as the sub-agent it judges (which has ended, so is not running):
   * the results that sub-agent's calls stored whole, and nothing else.
   */
  readRef(q: { refId: string; offset: number; line?: number; limit: number; fit?: (s: string) => string }, from: CallOrigin): RefSlice {
    const holder = from.caller?.kind === 'validator' ? from.caller.agentId : this.runOf(from).agent?.id;
    return readGrantedRef(this.d.trees, this.d.rootId, holder, q);
  }
}
