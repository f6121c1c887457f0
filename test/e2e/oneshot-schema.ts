/**
 * The JSON schema of the one-shot formats (docs/ARCHITECTURE.md), as zod: `--json` (one result
 * object) and `--stream-json` (one event per line, each with an ISO timestamp).
 * Strict objects: an extra or missing field fails validation.
 */
import { z } from 'zod';

const mode = z.enum(['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection']);
const toolStatus = z.enum(['success', 'partial', 'error', 'blocked', 'limit', 'aborted']);
const toolErrorCode = z.enum([
  'not_available',
  'invalid_arguments',
  'approval_denied',
  'approval_required',
  'limit',
  'stopped',
  'unreachable',
  'failed',
]);
const stopped = z.enum(['done', 'max_iterations', 'max_tool_calls', 'max_time', 'tool_limit', 'max_cost', 'aborted', 'error', 'budget']);
const errorType = z.enum(['controller', 'provider', 'limit', 'approval', 'aborted', 'usage', 'internal']);
const nonNegInt = z.number().int().nonnegative();
const share = z.strictObject({ llm_calls: nonNegInt, tool_calls: nonNegInt, input_tokens: nonNegInt, output_tokens: nonNegInt });
const stats = z.strictObject({
  iterations: nonNegInt,
  llm_calls: nonNegInt,
  tool_calls: nonNegInt,
  input_tokens: nonNegInt,
  output_tokens: nonNegInt,
  duration_ms: nonNegInt,
  cost_usd: z.number().nonnegative().nullable(),
  by_agent: z.record(z.string(), share).optional(),
  by_kind: z.strictObject({ agent: share, title: share, summary: share, validator: share, root_validator: share }).optional(),
});
const error = z.strictObject({ type: errorType, message: z.string().min(1) });
const verdict = z.enum(['pass', 'fail', 'uncertain']);
const decision = z.enum(['accept', 'revise', 'replan', 'split']);
const check = z.strictObject({ claim: z.string(), ok: z.boolean(), evidence: z.string(), note: z.string().optional() });
const validation = z.strictObject({ verdict, checks: z.array(check), summary: z.string(), deterministic: z.boolean().optional() });
/** the root answer's: also `skipped` when no validation could run, with the reason */
const rootVerdict = z.enum(['pass', 'fail', 'uncertain', 'skipped']);
const rootValidation = validation.extend({ verdict: rootVerdict, reason: z.literal('budget').optional() });
const finding = z.strictObject({
  device: z.string().min(1),
  kind: z.enum(['interface', 'address', 'ospf_neighbor', 'bgp_peer', 'route', 'check']),
  what: z.string().min(1),
  before: z.string(),
  after: z.string(),
});
/** a configuration change's automatic verification (docs/tools.md, Verification after a change) */
const verificationShape = {
  status: z.enum(['pass', 'regressed', 'error']),
  regressions: z.array(finding),
  intended: z.array(finding),
  settle_ms: nonNegInt,
  reason: z.string().min(1).optional(),
  report_only: z.literal(true).optional(),
};

export const jsonResultSchema = z.strictObject({
  session_id: z.string().min(1).nullable(),
  project_id: z.string().nullable(),
  mode,
  response: z.string(),
  tool_calls: z.array(
    z.strictObject({
      id: z.string().min(1),
      name: z.string().min(1),
      args: z.record(z.string(), z.unknown()),
      status: toolStatus,
      duration_ms: nonNegInt,
      output: z.string(),
      display: z.string().min(1).optional(),
      code: toolErrorCode.optional(),
      retries: z.number().int().positive().optional(),
      checkpoints: z.array(z.strictObject({ device: z.string().min(1), error: z.string().min(1).optional() })).optional(),
      verification: z.strictObject(verificationShape).optional(),
    }),
  ),
  stats,
  stopped_reason: stopped,
  error: error.nullable(),
  limits_exceeded: z.array(stopped),
  agents: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        parent_id: z.string().min(1),
        depth: z.number().int().min(1).max(5),
        goal: z.string(),
        status: z.enum(['queued', 'running', 'completed', 'stopped', 'failed', 'refused']),
        report: z.record(z.string(), z.unknown()).nullable(),
        usage: z.strictObject({ llm_calls: nonNegInt, input_tokens: nonNegInt, output_tokens: nonNegInt }),
        validation: validation.nullable(),
        review: z.strictObject({ decision: z.union([decision, z.literal('pending')]), note: z.string() }).nullable(),
      }),
    )
    .optional(),
  resource_usage: z
    .strictObject({
      agents: nonNegInt,
      llm_calls: nonNegInt,
      tokens: nonNegInt,
      cost_usd: z.number().nonnegative(),
      elapsed_s: nonNegInt,
      exhausted: z.string().nullable(),
      limits: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable()
    .optional(),
  validation: rootValidation.optional(),
  regression: z
    .strictObject({
      action: z.enum(['keep', 'rewind']),
      status: z.enum(['kept', 'rewound', 'not_rewound']),
      calls: z.array(z.string().min(1)).min(1),
      devices: z.array(z.string().min(1)),
      checkpoints: z.array(z.number().int().positive()),
      rewind: z.string().min(1).optional(),
    })
    .optional(),
});

const ts = {
  timestamp: z.iso.datetime(),
  agent_id: z.string().min(1).nullable(),
  depth: z.number().int().min(0).max(5),
  root_call_id: z.string().min(1).optional(),
};
export const streamEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('init'),
    session_id: z.string().min(1),
    project_id: z.string().nullable(),
    mode,
    agent_mode: z.enum(['flat', 'recursive']),
    model: z.string(),
    ...ts,
  }),
  z.strictObject({ type: z.literal('content'), delta: z.string(), ...ts }),
  z.strictObject({ type: z.literal('tool_call'), id: z.string().min(1), name: z.string(), args: z.record(z.string(), z.unknown()), ...ts }),
  z.strictObject({ type: z.literal('tool_start'), id: z.string().min(1), name: z.string(), ...ts }),
  z.strictObject({
    type: z.literal('tool_end'),
    id: z.string().min(1),
    name: z.string(),
    status: toolStatus,
    duration_ms: nonNegInt,
    output: z.string(),
    display: z.string().min(1).optional(),
    code: toolErrorCode.optional(),
    ...ts,
  }),
  z.strictObject({ type: z.literal('verification'), id: z.string().min(1), name: z.string(), ...verificationShape, ...ts }),
  z.strictObject({
    type: z.literal('tool_retry'),
    id: z.string().min(1),
    name: z.string(),
    attempt: z.number().int().positive(),
    max_retries: z.number().int().positive(),
    delay_ms: nonNegInt,
    error: z.string(),
    ...ts,
  }),
  z.strictObject({
    type: z.literal('approval'),
    id: z.string(),
    name: z.string(),
    args: z.record(z.string(), z.unknown()),
    why: z.enum(['config', 'approval_list', 'untrusted_mcp']),
    preview: z
      .array(
        z.union([
          z.strictObject({ device: z.string().min(1), diff: z.string() }),
          z.strictObject({ device: z.string().min(1), error: z.string().min(1) }),
        ]),
      )
      .optional(),
    ...ts,
  }),
  z.strictObject({
    type: z.literal('checkpoint'),
    id: z.string().min(1),
    name: z.string(),
    device: z.string().min(1),
    error: z.string().min(1).optional(),
    checkpoint_id: z.number().int().positive().optional(),
    ...ts,
  }),
  z.strictObject({
    type: z.literal('context'),
    tokens: nonNegInt,
    tools_tokens: nonNegInt,
    limit: z.number().int().positive(),
    percent: z.number().nonnegative(),
    trimmed: nonNegInt,
    llm_call: z.number().int().positive(),
    ...ts,
  }),
  z.strictObject({ type: z.literal('error'), error, ...ts }),
  z.strictObject({ type: z.literal('notice'), message: z.string().min(1), ...ts }),
  z.strictObject({
    type: z.literal('drift'),
    changes: z.array(z.string().min(1)).min(1).max(20),
    total: z.number().int().positive(),
    ...ts,
  }),
  z.strictObject({
    type: z.literal('validation'),
    verdict: rootVerdict,
    reason: z.literal('budget').optional(),
    summary: z.string(),
    checks: z.array(check),
    ...ts,
  }),
  z.strictObject({ type: z.literal('review'), decision, note: z.string(), ...ts }),
  z.strictObject({
    type: z.literal('limit'),
    reason: stopped,
    action: z.enum(['stop', 'wrap_up', 'continue']),
    message: z.string().min(1),
    ...ts,
  }),
  z.strictObject({ type: z.literal('done'), stopped_reason: stopped, stats, ...ts }),
]);

export type JsonResult = z.infer<typeof jsonResultSchema>;
export type StreamEvent = z.infer<typeof streamEventSchema>;

/** Parses stdout of --stream-json: every line one valid event, `done` last. */
export function parseStreamJson(stdout: string): StreamEvent[] {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const events = lines.map((l, i) => {
    const r = streamEventSchema.safeParse(JSON.parse(l));
    if (!r.success) throw new Error(`stream-json line ${i + 1} invalid: ${r.error.message}\n${l}`);
    return r.data;
  });
  if (events.at(-1)?.type !== 'done') throw new Error('stream-json must end with a done event');
  return events;
}

export function parseJsonResult(stdout: string): JsonResult {
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`--json must print exactly one line, got ${lines.length}`);
  return jsonResultSchema.parse(JSON.parse(lines[0]!));
}
