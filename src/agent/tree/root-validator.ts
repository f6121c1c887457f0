/**
 * The root Validator: before a recursive root's candidate final answer completes the
 * request, one LLM call with its own prompt (prompts/root_validator.md) checks it against
 * the RootTaskAnchor, the accepted sub-agent reports with their validations and the
 * root's own trajectory of this request. No tools. A malformed answer is `uncertain`,
 * never `pass`. The call is reserved in the tree budget as the root's (so it may use the
 * reserved final calls) and booked like any other.
 */
import { HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatOpenAICompletions } from '@langchain/openai';
import { messageText } from '../../sessions/message-text.js';
import { errorMessage } from '../../errors.js';
import { VALIDATOR_MAX_TOKENS } from '../cost-limit.js';
import { byteBoundTokens, meteredCompletion, type MeteredCall } from '../metered-call.js';
import type { TaskReport } from './report.js';
import type { TrajectoryCall } from './trajectory.js';
import type { ValidationResult } from './validation-result.js';
import { parseValidation } from './validator.js';
import { DataFence } from './data-fence.js';

export interface RootValidatorHost {
  model(): Promise<ChatOpenAICompletions>;
  prompt(): string;
}

export interface AcceptedReport {
  report: TaskReport;
  validation: ValidationResult | null;
  review_note: string;
}

export interface RootValidateInput {
  anchor: string;
  /** the user's message of this request */
  request: string;
  answer: string;
  reports: AcceptedReport[];
  trajectory: readonly TrajectoryCall[];
  /** the metered call (reserved in the tree budget as the root's, so it may use the reserved final calls) */
  meter: MeteredCall;
  signal: AbortSignal;
}

const CAP = 1500;
const capped = (s: string) => (s.length > CAP ? `${s.slice(0, CAP)}…[${s.length - CAP} more characters]` : s);

/** How the root took a report it accepted, by the report's validation. */
function acceptance(v: ValidationResult | null): string {
  if (!v) return 'accepted without a validation';
  if (v.verdict === 'fail') return 'accepted despite a failed validation';
  if (v.verdict === 'uncertain') return 'accepted though its validation was uncertain';
  return 'accepted';
}

/** The prompt's own words (outside the data) on each report the root accepted although its validation failed. */
function failedButAccepted(reports: readonly AcceptedReport[]): string[] {
  return reports
    .filter((r) => r.validation?.verdict === 'fail')
    .map(
      (r) =>
        `- The root accepted the report of sub-agent ${r.report.agent_id.replace(/[^\w-]/g, '')} despite a failed validation: a claim resting on it is not ok.`,
    );
}

/**
 * The root Validator's one human message. The request, the reports, the calls and the
 * answer are data (./data-fence.ts); the headings and the notes on accepted reports whose
 * validation failed are the prompt's own words.
 */
function rootValidatorInput(i: RootValidateInput, fence: DataFence): string {
  const warnings = failedButAccepted(i.reports);
  return [
    fence.rule(),
    '',
    '## Root request (the RootTaskAnchor)',
    fence.block("the user's request", i.anchor),
    ...(i.request.trim() && i.request.trim() !== i.anchor.trim()
      ? ['', '## This request', fence.block("the user's message", i.request)]
      : []),
    '',
    "## Accepted sub-agent reports (each with its Validator verdict and the root's review)",
    ...warnings,
    ...(warnings.length ? [''] : []),
    fence.block(
      'the reports the root accepted',
      JSON.stringify(
        i.reports.map((r) => ({
          agent_id: r.report.agent_id,
          goal: r.report.goal,
          status: r.report.status,
          result: capped(r.report.result),
          open_issues: r.report.open_issues,
          validation: r.validation ? { verdict: r.validation.verdict, summary: r.validation.summary } : null,
          review: acceptance(r.validation),
          ...(r.review_note ? { review_note: r.review_note } : {}),
        })),
        null,
        1,
      ),
    ),
    '',
    "## The root's own tool calls in this request",
    fence.block(
      'the tool calls and their results',
      JSON.stringify(
        i.trajectory.map((c) => ({ id: c.id, tool: c.tool, args: c.args, status: c.status, result: capped(c.output) })),
        null,
        1,
      ),
    ),
    '',
    '## Candidate final answer',
    fence.block('the answer to check', i.answer),
  ].join('\n');
}

export async function validateRootAnswer(i: RootValidateInput, host: RootValidatorHost): Promise<ValidationResult> {
  const uncertain = (summary: string): ValidationResult => ({ verdict: 'uncertain', checks: [], summary });
  if (i.signal.aborted) return uncertain('the root Validator was stopped before it decided');
  const messages: BaseMessage[] = [new SystemMessage(host.prompt()), new HumanMessage(rootValidatorInput(i, new DataFence()))];
  try {
    const call = await meteredCompletion(i.meter, await host.model(), messages, {
      signal: i.signal,
      inputTokens: byteBoundTokens(messages),
      maxOutputTokens: VALIDATOR_MAX_TOKENS,
    });
    if (!call.made)
      return call.why === 'budget'
        ? skippedForBudget('the root Validator')
        : uncertain("the request's cost limit (--max-cost) leaves no room for the root Validator");
    return parseValidation(messageText(call.res));
  } catch (err) {
    return uncertain(`the root Validator could not decide: ${errorMessage(err).split('\n')[0]}`);
  }
}

/** No validation ran: the tree budget was gone (the reserved final call went to the answer, or none was left for the Validator). */
export function skippedForBudget(who: string): ValidationResult {
  return {
    verdict: 'skipped',
    reason: 'budget',
    checks: [],
    summary: `the tree budget ran out: no LLM call was left for ${who}, so the answer was not validated`,
  };
}

/** What the root reads when its answer failed validation and it has a round left. */
export function rootFindings(v: ValidationResult, round: number, rounds: number): string {
  const failed = v.checks.filter((c) => !c.ok);
  return [
    `[task protocol] The root Validator did not pass your answer (${v.verdict}; round ${round} of ${rounds}): ${v.summary}`,
    ...failed.map((c) => `- ${c.claim}: ${c.evidence}${c.note ? ` (${c.note})` : ''}`),
    'Fix what it found — check again with your tools or sub-agents where needed — and answer again.',
  ].join('\n');
}
