/**
 * One batch of tool calls from gate to result, for every front end (the agent's tools
 * node, the MCP server): each call is judged by the pure gate (./gate.ts), the approver
 * is asked where the gate says so, then the allowed calls run in parallel. Every call
 * gets exactly one result, whatever happens to it. docs/ARCHITECTURE.md, Tools.
 */
import type { Caller } from '../core/caller.js';
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason, ToolErrorCode } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import { errorMessage } from '../errors.js';
import { runLimited } from '../core/run-limited.js';
import { assessCall, type ApprovalNeed, type ApprovalRefusal, type GateTools, type GateVerdict, type LimitStop } from './gate.js';
import { askApproval, type ApprovalContext } from './approval.js';
import { resultJson } from './registry.js';
import { limitGroupOf, type ToolDef, type ToolResult } from './types.js';
import type { Checkpointer, DeviceCheckpointReport } from '../checkpoints/batch.js';
import type { ApprovalPreviewer } from '../checkpoints/preview.js';
import type { DevicePreview } from '../core/preview.js';
import type { Capture } from '../checkpoints/types.js';

export interface DispatchCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the front end hears while a batch goes through (the agent turns these into events). */
export interface DispatchEvents {
  /** the approver is about to be asked about this call, with the preview it will be shown (absent: none was made) */
  approval?(call: DispatchCall, need: ApprovalNeed, preview?: DevicePreview[]): void;
  /** a call that will not run got its result (refused, blocked, limited, gone) */
  settled?(call: DispatchCall, result: ToolResult): void;
  start?(call: DispatchCall): void;
  end?(call: DispatchCall, result: ToolResult, durationMs: number): void;
  /** a call runs although it crosses one of `softLimits` (said once per limit and batch) */
  crossed?(call: DispatchCall, limit: LimitStop): void;
  /** a device this call changes was checkpointed before the batch ran, or could not be (`error`) */
  checkpoint?(call: DispatchCall, report: DeviceCheckpointReport): void;
}

export interface DispatchRequest {
  tools: GateTools;
  approval: ApprovalContext;
  mode: CopilotMode;
  caller: Caller;
  limits: RequestLimits;
  /**
   * A call the limits refuse: the user may raise the limit it hit (the TUI). The raised
   * limits (the call is judged again under them, and asked about again if they do not
   * cover it), or undefined to refuse it; the rest of the batch is judged by what it returns.
   */
  raise?(call: DispatchCall, stop: LimitStop, limits: RequestLimits): Promise<RequestLimits | undefined>;
  /** on_limit continue: the user's limits, whose crossing is reported (crossed) while `limits` holds the hard ceilings */
  softLimits?: RequestLimits;
  /** the request's tool calls let through so far (in all and per tool); each call let through counts here at once */
  counter: ToolCounter;
  signal: AbortSignal;
  /** the run was stopped (user abort, --max-time): asked before each call, nothing more starts */
  stopped(): StoppedReason | undefined;
  /** the front end's words for a refusal for want of approval (how its user allows it) */
  wordRefusal(r: ApprovalRefusal): string;
  /** runs one approved call with the definition the gate judged (retries and progress are the front end's) */
  execute(def: ToolDef, call: DispatchCall): Promise<ToolResult>;
  /**
   * Runs a tool's prepare step (ToolDef.prepare: a change set rendered) with the front end's
   * tool context: the prepared call, or the result that ends it (nothing sent). A tool with a
   * prepare step does not run without it.
   */
  prepare?(def: ToolDef, call: DispatchCall): Promise<DispatchCall | ToolResult>;
  maxParallel: number;
  events?: DispatchEvents;
  /** takes the checkpoints of the approved calls that change devices or topology (absent: none are kept) */
  checkpoints?: Checkpointer;
  /** reads the devices a config call changes before its approval is asked, to show the diff it would make (absent: no preview) */
  previewer?: ApprovalPreviewer;
}

/** Shared by every run of one request (src/agent/request-counters.ts), so sub-agents count against the same limits. */
export interface ToolCounter {
  count: number;
  counts: Record<string, number>;
}

export interface DispatchOutcome {
  /** one per call, in the calls' order */
  results: ToolResult[];
  /** calls of this batch let through (and counted) */
  admitted: number;
  /** the first count limit that refused a call */
  limitHit?: LimitStop;
  /** the limits after the user raised one (raise) */
  limits?: RequestLimits;
  /** calls refused because approval was needed and not available or not given */
  approvalBlocked: number;
  /** softLimits crossed by calls that ran, each once */
  crossed: LimitStop[];
}

const settle = (status: ToolResult['status'], reason: string, code: ToolErrorCode): ToolResult => ({
  status,
  output: resultJson(status, reason),
  code,
});

export async function dispatchCalls(calls: readonly DispatchCall[], req: DispatchRequest): Promise<DispatchOutcome> {
  const results = new Array<ToolResult | undefined>(calls.length);
  const { counter } = req;
  let admitted = 0;
  let limitHit: LimitStop | undefined;
  let approvalBlocked = 0;
  const crossed: LimitStop[] = [];
  const toRun: { i: number; call: DispatchCall; def: ToolDef }[] = [];
  // what the previews read; the checkpoint of an approved call reuses it (a denied call's is dropped with this map)
  const previewed = new Map<string, Capture>();
  const previewedIds = new Set<string>();

  // Sequential: each verdict counts the calls let through before it, and approvals are asked one at a time.
  let limits = req.limits;
  for (const [i, asked] of calls.entries()) {
    let call = asked;
    const stopped = req.stopped();
    const assess = (): GateVerdict =>
      assessCall(
        call,
        { mode: req.mode, caller: req.caller, limits, count: counter.count, counts: counter.counts, ...(stopped ? { stopped } : {}) },
        { tools: req.tools, approval: req.approval },
      );
    let verdict = assess();
    // judged again under each raise: one another run got meanwhile may not cover this call, then the user is asked
    while (verdict.kind === 'limit' && req.raise) {
      const raised = await req.raise(call, verdict.stop, limits);
      if (!raised) break;
      limits = raised;
      verdict = assess();
    }
    if ((verdict.kind === 'ask' || verdict.kind === 'run') && verdict.def.prepare) {
      const prepared = await prepareCall(verdict.def, call, req);
      if (!('id' in prepared)) {
        results[i] = prepared;
        continue;
      }
      // judged again on what it will send (an allowance covers targets, which the prepare step named)
      call = prepared;
      verdict = assess();
    }
    if (verdict.kind === 'ask') {
      // read first, so the approval event carries the same preview the approver is shown
      const preview = await previewCall(verdict.def, call, req, previewed);
      previewedIds.add(call.id);
      req.events?.approval?.(call, verdict.need, preview);
      const answer = await askApproval(
        { ...call, why: verdict.need.why, ...(preview ? { preview } : {}) },
        req.approval,
        req.signal,
        verdict.def.targets?.(call.args),
      );
      if (answer.kind === 'denied') {
        approvalBlocked++;
        results[i] = settle('blocked', answer.reason, 'approval_denied');
        continue;
      }
      verdict = { kind: 'run', def: verdict.def };
    }
    if (verdict.kind === 'refused') {
      approvalBlocked++;
      results[i] = settle('blocked', req.wordRefusal(verdict.refusal), 'approval_required');
    } else if (verdict.kind === 'blocked') {
      results[i] = settle(verdict.status, verdict.reason, verdict.code);
    } else if (verdict.kind === 'limit') {
      results[i] = settle('limit', verdict.reason, 'limit');
      limitHit ??= verdict.stop;
    } else {
      noteCrossing(call, req, crossed);
      // protocol tools (the task tree's own bookkeeping) do not count against the request's limits
      if (limitGroupOf(verdict.def) !== 'protocol') {
        counter.count++;
        counter.counts[call.name] = (counter.counts[call.name] ?? 0) + 1;
      }
      admitted++;
      toRun.push({ i, call, def: verdict.def });
    }
  }

  // Calls that will not run report at once; the allowed ones run in parallel, maxParallel at a time.
  calls.forEach((c, i) => {
    const r = results[i];
    if (r) req.events?.settled?.(c, r);
  });
  // After every approval (nothing denied is captured), before any call runs (none can race the capture).
  const after = await readAndCheckpoint(toRun, req, previewed, previewedIds);
  await runLimited(toRun, req.maxParallel, async ({ i, call, def }) => {
    // A user MCP server may have died while the approver was asked: its tools are gone.
    if (req.tools.get(call.name) !== def) {
      const r = settle(
        'error',
        `tool "${call.name}" is no longer available (its MCP server stopped); it was not executed`,
        'not_available',
      );
      results[i] = r;
      req.events?.settled?.(call, r);
      return;
    }
    const t0 = performance.now();
    req.events?.start?.(call);
    let r: ToolResult;
    try {
      r = await req.execute(def, call);
    } catch (err) {
      r = settle('error', `${call.name} failed: ${errorMessage(err).split('\n')[0] ?? 'error'}`, 'failed');
    }
    results[i] = r;
    req.events?.end?.(call, r, Math.round(performance.now() - t0));
  });
  await after?.().catch(() => undefined);
  return {
    results: results.map((r) => r ?? settle('error', 'internal: the call got no result', 'failed')),
    admitted,
    ...(limitHit ? { limitHit } : {}),
    ...(limits !== req.limits ? { limits } : {}),
    approvalBlocked,
    crossed,
  };
}

/** on_limit continue: a call that runs although it crosses one of the user's limits is said once per limit. */
function noteCrossing(call: DispatchCall, req: DispatchRequest, crossed: LimitStop[]): void {
  if (!req.softLimits) return;
  const { counter } = req;
  const strict = assessCall(
    call,
    { mode: req.mode, caller: req.caller, limits: req.softLimits, count: counter.count, counts: counter.counts },
    { tools: req.tools, approval: req.approval },
  );
  if (strict.kind === 'limit' && !crossed.includes(strict.stop)) {
    crossed.push(strict.stop);
    req.events?.crossed?.(call, strict.stop);
  }
}

/** A call's prepare step through the front end; without one a tool that needs it does not run. */
async function prepareCall(def: ToolDef, call: DispatchCall, req: DispatchRequest): Promise<DispatchCall | ToolResult> {
  if (!req.prepare)
    return settle(
      'error',
      `${call.name} cannot run here (its arguments are prepared before approval); it was not executed`,
      'not_available',
    );
  try {
    return await req.prepare(def, call);
  } catch (err) {
    return settle('error', `${call.name} failed before anything was sent: ${errorMessage(err).split('\n')[0] ?? 'error'}`, 'failed');
  }
}

/** Checkpoints the approved calls that declare a change (ToolDef.targets); returns the step to run after the batch. */
async function checkpointBatch(
  toRun: { call: DispatchCall; def: ToolDef }[],
  req: DispatchRequest,
  previewed: ReadonlyMap<string, Capture>,
): Promise<(() => Promise<void>) | undefined> {
  if (!req.checkpoints) return undefined;
  const batch = toRun.flatMap(({ call, def }) => {
    const targets = def.targets?.(call.args);
    return targets && (targets.changesConfig || targets.changesTopology) ? [{ id: call.id, name: call.name, targets, call }] : [];
  });
  if (batch.length === 0) return undefined;
  const byId = new Map(batch.map((b) => [b.id, b.call]));
  try {
    const taken = await req.checkpoints(batch, req.signal, previewed);
    for (const d of taken.devices) req.events?.checkpoint?.(byId.get(d.callId) ?? batch[0]!.call, d);
    return taken.after;
  } catch (err) {
    // never blocks the change: each call hears why it has no checkpoint
    for (const b of batch) req.events?.checkpoint?.(b.call, { device: 'all', callId: b.id, error: errorMessage(err) });
    return undefined;
  }
}

/** The diff a config call would make on each device, for its approval prompt; undefined when there is nothing to preview. */
async function previewCall(
  def: ToolDef,
  call: DispatchCall,
  req: DispatchRequest,
  previewed: Map<string, Capture>,
): Promise<DevicePreview[] | undefined> {
  const targets = def.targets?.(call.args);
  if (!req.previewer || !req.approval.approver || !targets?.changesConfig || !targets.devices?.length) return undefined;
  try {
    const p = await req.previewer(targets.devices, req.signal, previewed, { id: call.id, ...(targets.baseline ? { baseline: true } : {}) });
    for (const [device, c] of p.captures) if (c.config !== undefined && !previewed.has(device)) previewed.set(device, c);
    return p.devices.length > 0 ? p.devices : undefined;
  } catch (err) {
    // a preview is a courtesy: the question is asked without it
    return targets.devices.map((d) => ({ device: d.name, error: `no preview: ${errorMessage(err)}` }));
  }
}

/**
 * A call verified against a baseline that was not previewed (no approval asked) reads its devices first,
 * configuration and state in one round, which its checkpoint and its baseline then share.
 */
async function readAndCheckpoint(
  toRun: { i: number; call: DispatchCall; def: ToolDef }[],
  req: DispatchRequest,
  previewed: Map<string, Capture>,
  previewedIds: ReadonlySet<string>,
): ReturnType<typeof checkpointBatch> {
  const unread = toRun.filter(({ call }) => !previewedIds.has(call.id));
  await Promise.all(unread.map(({ call, def }) => readAhead(def, call, req, previewed)));
  return checkpointBatch(toRun, req, previewed);
}

/** The previewer's read for a call that runs unasked and is verified against a baseline (its preview is not shown). */
async function readAhead(def: ToolDef, call: DispatchCall, req: DispatchRequest, previewed: Map<string, Capture>): Promise<void> {
  const targets = def.targets?.(call.args);
  if (!req.previewer || !targets?.baseline || !targets.changesConfig || !targets.devices?.length) return;
  try {
    const p = await req.previewer(targets.devices, req.signal, previewed, { id: call.id, baseline: true });
    for (const [device, c] of p.captures) if (c.config !== undefined && !previewed.has(device)) previewed.set(device, c);
  } catch {
    // the checkpoint and the baseline read the devices themselves
  }
}
