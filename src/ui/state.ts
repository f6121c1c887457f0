/**
 * The TUI's view model. Everything the screen shows is derived from agent
 * events (src/core/events.ts) and a few UI actions by this pure reducer, so
 * views stay pure and the whole flow is testable without a terminal.
 */
import type { AgentEvent, AgentMode, ErrorType, StoppedReason } from '../core/events.js';
import type { ApprovalDecision, ApprovalRequest, LimitRaiseRequest, RequestLimits } from '../core/api.js';
import type { CopilotMode } from '../core/modes.js';
import { driftText } from '../core/drift-text.js';
import { summarizeArgs } from './call-text.js';
import { FINAL, addCall, appendText, hasCall, newCall, updateCall } from './turn-edit.js';
import { applyChildToolEvent, isChildToolEvent, type ChildToolEvent } from './tree.js';
import type { ToolCallView, TurnView } from './views.js';
import { verdictWords } from '../core/verdict.js';

export type { ToolCallState, ToolCallView, TurnItem, TurnView, ChildCallView } from './views.js';

export type NoticeTone = 'info' | 'warn' | 'error';

/** Entries printed once into Ink's <Static> (finished turns and notices). */
export type StaticEntry =
  | { kind: 'turn'; key: string; turn: TurnView }
  | { kind: 'notice'; key: string; text: string; tone: NoticeTone }
  | { kind: 'block'; key: string; title: string; body: string };

export interface ContextUse {
  tokens: number;
  tools_tokens: number;
  limit: number;
  percent: number;
  trimmed: number;
}

export interface UiState {
  sessionId: string | null;
  server: string;
  projectId: string | null;
  projectName: string | null;
  mode: CopilotMode;
  agentMode: AgentMode;
  /** the sub-agent tree budget (`agents 3/50 · llm 12/150 · $0.04/15`), recursive trees */
  treeBudget?: string;
  model: string;
  limits: RequestLimits;
  /** printed history (append-only between clears) */
  entries: StaticEntry[];
  /** bumped by /clear and a resize so <Static> remounts (and prints its entries) on a cleared screen */
  epoch: number;
  live: TurnView | null;
  /** LLM calls / executed tool calls of the current (or last) request, as the core counts them
   *  (`context.llm_call`, one `tool_start` per call it let run; `done` stats at the end) */
  iterations: number;
  toolCalls: number;
  context: ContextUse | null;
  tokens: { input: number; output: number };
  /** USD this session (null while the model's price is unknown) */
  costUsd: number | null;
  approval: ApprovalRequest | null;
  /** a limit the running request reached, asking whether to raise it */
  limitPrompt: LimitRaiseRequest | null;
  /** id of the tool call whose full output is shown (toggled by a key) */
  expandedToolId: string | null;
  /** the last tool call seen, live or finished: what the toggle key expands */
  lastToolId: string | null;
  nextTurnId: number;
  nextKey: number;
}

export type UiAction =
  | { type: 'agent'; event: AgentEvent; at: number }
  | { type: 'agent_batch'; events: AgentEvent[]; at: number }
  | { type: 'user_prompt'; prompt: string; at: number }
  | { type: 'turn_failed'; message: string; errorType?: ErrorType; at: number }
  /** the request's stream ended without a `done` (aborted before the core could say): no stats to show */
  | { type: 'turn_ended'; stoppedReason: StoppedReason; at: number }
  | { type: 'notice'; text: string; tone?: NoticeTone }
  | { type: 'block'; title: string; body: string }
  | { type: 'approval_request'; request: ApprovalRequest }
  | { type: 'limit_prompt'; request: LimitRaiseRequest }
  | { type: 'limit_prompt_resolved'; id: string }
  | { type: 'approval_resolved'; id: string; decision: ApprovalDecision }
  | { type: 'set_mode'; mode: CopilotMode }
  | { type: 'set_limits'; limits: RequestLimits }
  | { type: 'set_model'; model: string }
  | { type: 'set_project'; projectId: string | null; projectName: string | null }
  | { type: 'session_changed'; sessionId: string | null; resetTotals: boolean }
  | { type: 'history'; turns: TurnView[] }
  | { type: 'toggle_output' }
  | { type: 'set_tree_budget'; text: string | undefined }
  | { type: 'clear' }
  /** a rewind ended: the calls its approvals showed were never a turn, and leave nothing behind */
  | { type: 'rewind_ended' }
  /** prints the history again (after the screen was cleared for a new terminal width) */
  | { type: 'reprint' };

export interface InitialUiState {
  server: string;
  projectName?: string | null;
  projectId?: string | null;
  mode: CopilotMode;
  model: string;
  limits: RequestLimits;
  agentMode?: AgentMode;
  sessionId?: string | null;
}

export function initialState(init: InitialUiState): UiState {
  return {
    sessionId: init.sessionId ?? null,
    server: init.server,
    projectId: init.projectId ?? null,
    projectName: init.projectName ?? null,
    mode: init.mode,
    agentMode: init.agentMode ?? 'flat',
    model: init.model,
    limits: init.limits,
    entries: [],
    epoch: 0,
    live: null,
    iterations: 0,
    toolCalls: 0,
    context: null,
    tokens: { input: 0, output: 0 },
    costUsd: null,
    approval: null,
    limitPrompt: null,
    expandedToolId: null,
    lastToolId: null,
    nextTurnId: 1,
    nextKey: 1,
  };
}

/**
 * Updates call `id` of the live turn (added as pending when its tool_call was not seen) and makes
 * it the last call; the approval prompt of a call that has started or ended goes away.
 */
function touchCall(
  s: UiState,
  call: { id: string; name: string; args?: Record<string, unknown> },
  fn: (c: ToolCallView) => ToolCallView,
  clearApproval = false,
): UiState {
  const live = hasCall(s.live!, call.id) ? s.live! : addCall(s.live!, newCall(call.id, call.name, call.args ?? {}, 'pending'));
  return {
    ...s,
    live: updateCall(live, call.id, fn),
    lastToolId: call.id,
    ...(clearApproval && s.approval?.id === call.id ? { approval: null } : {}),
  };
}

/** A turn whose events arrive without a prompt (should not happen, but never drop events). */
function ensureLive(s: UiState, at: number): UiState {
  if (s.live) return s;
  return { ...s, live: { id: s.nextTurnId, prompt: '', items: [], startedAt: at }, nextTurnId: s.nextTurnId + 1 };
}

/** Closes the live turn into the printed history; unfinished calls become aborted. */
function finishLive(s: UiState): UiState {
  if (!s.live) return s;
  const closed: TurnView = {
    ...s.live,
    items: s.live.items.map((it) =>
      it.kind === 'tool' && !FINAL.has(it.call.state) ? { kind: 'tool', call: { ...it.call, state: 'aborted' } } : it,
    ),
  };
  return {
    ...s,
    live: null,
    approval: null,
    limitPrompt: null,
    entries: [...s.entries, { kind: 'turn', key: `t${s.nextKey}`, turn: closed }],
    nextKey: s.nextKey + 1,
  };
}

/** One notice line printed into the transcript. */
function withNotice(s: UiState, text: string, tone: NoticeTone): UiState {
  return { ...s, entries: [...s.entries, { kind: 'notice', key: `n${s.nextKey}`, text, tone }], nextKey: s.nextKey + 1 };
}

function applyEvent(s0: UiState, e: AgentEvent, at: number): UiState {
  if (isChildToolEvent(e)) {
    const s = ensureLive(s0, at);
    return { ...s, live: applyChildToolEvent(s.live!, e as ChildToolEvent, at) };
  }
  switch (e.type) {
    case 'init':
      return {
        ...s0,
        sessionId: e.session_id,
        projectId: e.project_id,
        mode: e.mode,
        agentMode: e.agent_mode,
        model: e.model,
      };
    case 'content': {
      const s = ensureLive(s0, at);
      return { ...s, live: appendText(s.live!, e.delta) };
    }
    case 'tool_call': {
      const s = ensureLive(s0, at);
      const live = s.live!;
      if (hasCall(live, e.id)) {
        return { ...s, live: updateCall(live, e.id, (c) => ({ ...c, args: e.args, summary: summarizeArgs(c.name, e.args) })) };
      }
      return { ...s, live: addCall(live, newCall(e.id, e.name, e.args, 'pending')), lastToolId: e.id };
    }
    case 'approval':
      return touchCall(ensureLive(s0, at), e, (c) => (FINAL.has(c.state) || c.decision ? c : { ...c, state: 'awaiting_approval' }));
    case 'tool_start': {
      const s = touchCall(
        ensureLive(s0, at),
        { id: e.id, name: e.name },
        (c) => (FINAL.has(c.state) ? c : { ...c, state: 'running', startedAt: at }),
        true,
      );
      // The core counts a call against --max-tool-calls when it lets it run, which is when it emits tool_start.
      return { ...s, toolCalls: s.toolCalls + 1 };
    }
    case 'tool_end':
      return touchCall(
        ensureLive(s0, at),
        { id: e.id, name: e.name },
        (c) => ({ ...c, state: e.status, durationMs: e.duration_ms, output: e.output, display: e.display }),
        true,
      );
    case 'verification':
      return touchCall(ensureLive(s0, at), e, (c) => ({ ...c, verification: e }));
    case 'tool_retry': {
      const s = ensureLive(s0, at);
      if (!hasCall(s.live!, e.id)) return s;
      return { ...s, live: updateCall(s.live!, e.id, (c) => ({ ...c, retry: { attempt: e.attempt, max: e.max_retries } })) };
    }
    // a limit of the root's run (a sub-agent's shows in its report)
    case 'limit':
    case 'notice':
      if (e.type === 'limit' && e.depth) return s0;
      return withNotice(s0, `⚠ ${e.message}`, 'warn');
    // the lab changed under the session since its last request: one notice line
    case 'drift':
      return withNotice(s0, `⟳ lab changed: ${driftText(e)}`, 'info');
    // a sub-agent's verdict, its parent's review and the root answer's verdict: one line each in the transcript (✓ pass, ✗ fail, ? uncertain, – skipped)
    case 'validation':
    case 'review': {
      // a validation without agent_id is the root Validator's, on the answer
      const who = e.agent_id ? `sub-agent ${e.agent_id.slice(0, 8)}` : 'root answer';
      const text =
        e.type === 'validation' ? `${verdictWords(e, who)}: ${e.summary}` : `${who} review: ${e.decision}${e.note ? ` — ${e.note}` : ''}`;
      const tone: NoticeTone = e.type === 'validation' && e.verdict !== 'pass' ? 'warn' : 'info';
      return withNotice(s0, text, tone);
    }
    case 'checkpoint':
      // a kept one is noted on its call (a regression's rewind restores it); a missing one is said, the change runs anyway
      if (!e.error)
        return touchCall(ensureLive(s0, at), e, (c) => ({
          ...c,
          checkpointed: [...(c.checkpointed ?? []), e.device],
          ...(e.checkpoint_id !== undefined ? { checkpoints: [...(c.checkpoints ?? []), { device: e.device, id: e.checkpoint_id }] } : {}),
        }));
      return withNotice(s0, `⚠ no checkpoint for ${e.device}: ${e.error}`, 'warn');
    case 'context':
      return {
        ...s0,
        context: { tokens: e.tokens, tools_tokens: e.tools_tokens, limit: e.limit, percent: e.percent, trimmed: e.trimmed },
        // The core numbers its LLM calls; an event without the number (an older core) leaves the count alone.
        ...(e.llm_call !== undefined ? { iterations: e.llm_call } : {}),
      };
    case 'error': {
      const s = ensureLive(s0, at);
      return { ...s, live: { ...s.live!, error: e.error } };
    }
    case 'done': {
      const s = ensureLive(s0, at);
      const withStats: UiState = {
        ...s,
        live: { ...s.live!, stoppedReason: e.stopped_reason, stats: e.stats },
        iterations: e.stats.iterations,
        toolCalls: e.stats.tool_calls,
        tokens: { input: s.tokens.input + e.stats.input_tokens, output: s.tokens.output + e.stats.output_tokens },
        costUsd: e.stats.cost_usd == null ? s.costUsd : (s.costUsd ?? 0) + e.stats.cost_usd,
      };
      return finishLive(withStats);
    }
  }
}

export function reduce(s: UiState, a: UiAction): UiState {
  switch (a.type) {
    case 'agent':
      return applyEvent(s, a.event, a.at);
    case 'agent_batch':
      return a.events.reduce((acc, e) => applyEvent(acc, e, a.at), s);
    case 'user_prompt': {
      // A prompt while a turn is still open closes the old one first (it can only be stale).
      const base = s.live ? finishLive(s) : s;
      return {
        ...base,
        live: { id: base.nextTurnId, prompt: a.prompt, items: [], startedAt: a.at },
        nextTurnId: base.nextTurnId + 1,
        iterations: 0,
        toolCalls: 0,
        expandedToolId: null,
      };
    }
    case 'turn_failed': {
      const base = ensureLive(s, a.at);
      return finishLive({ ...base, live: { ...base.live!, error: { type: a.errorType ?? 'internal', message: a.message } } });
    }
    case 'turn_ended': {
      const base = ensureLive(s, a.at);
      return finishLive({ ...base, live: { ...base.live!, stoppedReason: a.stoppedReason } });
    }
    case 'notice':
      return withNotice(s, a.text, a.tone ?? 'info');
    case 'block':
      return {
        ...s,
        entries: [...s.entries, { kind: 'block', key: `b${s.nextKey}`, title: a.title, body: a.body }],
        nextKey: s.nextKey + 1,
      };
    case 'limit_prompt':
      return { ...s, limitPrompt: a.request };
    case 'limit_prompt_resolved':
      return s.limitPrompt?.id === a.id ? { ...s, limitPrompt: null } : s;
    case 'approval_request': {
      const base = touchCall(ensureLive(s, Date.now()), a.request, (c) => (FINAL.has(c.state) ? c : { ...c, state: 'awaiting_approval' }));
      return { ...base, approval: a.request };
    }
    case 'approval_resolved': {
      return {
        ...s,
        approval: s.approval?.id === a.id ? null : s.approval,
        live: s.live
          ? updateCall(s.live, a.id, (c) => ({
              ...c,
              decision: a.decision.kind,
              // Allowed calls wait for tool_start; denied ones end as `blocked` when the core reports tool_end.
              state: FINAL.has(c.state) ? c.state : 'pending',
            }))
          : s.live,
      };
    }
    case 'set_mode':
      return { ...s, mode: a.mode };
    case 'set_limits':
      return { ...s, limits: a.limits };
    case 'set_model':
      return { ...s, model: a.model };
    case 'set_project':
      return { ...s, projectId: a.projectId, projectName: a.projectName };
    case 'session_changed':
      return {
        ...s,
        sessionId: a.sessionId,
        ...(a.resetTotals ? { tokens: { input: 0, output: 0 }, costUsd: null, context: null, iterations: 0, toolCalls: 0 } : {}),
      };
    case 'history': {
      const added: StaticEntry[] = a.turns.map((turn, i) => ({ kind: 'turn', key: `h${s.nextKey + i}`, turn }));
      return { ...s, entries: [...s.entries, ...added], nextKey: s.nextKey + added.length };
    }
    case 'toggle_output': {
      if (!s.lastToolId) return s;
      return { ...s, expandedToolId: s.expandedToolId === s.lastToolId ? null : s.lastToolId };
    }
    case 'set_tree_budget': {
      const { treeBudget: _drop, ...rest } = s;
      return a.text ? { ...rest, treeBudget: a.text } : rest;
    }
    case 'clear':
      return { ...s, entries: [], epoch: s.epoch + 1, expandedToolId: null };
    case 'reprint':
      return { ...s, epoch: s.epoch + 1 };
    case 'rewind_ended':
      return { ...s, live: null, approval: null };
  }
}

/** Every tool call of the live turn and the printed turns, newest last (for the toggle key). */
export function findToolCall(s: UiState, id: string): ToolCallView | undefined {
  const scan = (t: TurnView | null | undefined) => {
    for (const it of t?.items ?? []) if (it.kind === 'tool' && it.call.id === id) return it.call;
    return undefined;
  };
  const live = scan(s.live);
  if (live) return live;
  for (let i = s.entries.length - 1; i >= 0; i--) {
    const e = s.entries[i]!;
    if (e.kind === 'turn') {
      const c = scan(e.turn);
      if (c) return c;
    }
  }
  return undefined;
}

export const isBusy = (s: UiState): boolean => s.live !== null;
