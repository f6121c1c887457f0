/**
 * The Validator's deterministic pre-checks (no LLM call): they compare what a child's
 * report says with what its stored trajectory shows. Any failed check makes the verdict
 * `fail` at once; only a report that passes them all goes on to the Validator's LLM
 * call (./validator.ts).
 */
import type { TaskBrief } from './brief.js';
import type { TaskReport } from './report.js';
import type { TrajectoryCall } from './trajectory.js';
import type { ValidationCheck, ValidationResult } from './validation-result.js';

export type { ValidationCheck, ValidationResult, Verdict } from './validation-result.js';

const BAD_STATUS = new Set(['error', 'blocked', 'limit', 'aborted', 'not_run']);
/** Words with which a report owns up to a failure (it then does not claim success). */
const ADMITS =
  /\b(fail(ed|s|ure)?|error|could ?n[o']t|cannot|can't|unable|blocked|denied|refused|limit|not (be )?(created|applied|done|run|reach(ed)?|configured)|did ?n[o']t|partial(ly)?|open issue)/i;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mentions = (text: string, name: string) => new RegExp(`(^|[^A-Za-z0-9_-])${escape(name)}(?![A-Za-z0-9_-])`).test(text);

const STOP = new Set([
  'with',
  'that',
  'this',
  'from',
  'which',
  'what',
  'when',
  'where',
  'each',
  'every',
  'their',
  'there',
  'about',
  'must',
  'should',
  'have',
  'into',
  'your',
  'them',
  'they',
  'were',
  'been',
  'also',
  'list',
  'include',
  'including',
  'report',
]);

/** The parts of an expected report (split on commas, semicolons, "and"), each with its words worth finding. */
function expectedParts(expected: string): { part: string; words: string[] }[] {
  return expected
    .split(/[,;\n]|\band\b/i)
    .map((p) => p.replace(/\(.*?\)/g, ' ').trim())
    .filter(Boolean)
    .map((part) => ({ part, words: (part.toLowerCase().match(/[a-z0-9][a-z0-9_-]{3,}/g) ?? []).filter((w) => !STOP.has(w)) }))
    .filter((p) => p.words.length > 0);
}

export interface PrecheckInput {
  brief: TaskBrief;
  report: TaskReport;
  trajectory: readonly TrajectoryCall[];
  /** the root's request: names it gives are known, not invented */
  anchor?: string;
  /** the brief's expected_report is the default one (nothing specific to check) */
  defaultExpected?: boolean;
  /**
   * The names of the session project's nodes: only these are devices a report can talk
   * about ("T1", "SNMPv3" are not). Undefined (no project, topology unreadable): nothing is
   * checked here, the Validator's LLM call judges.
   */
  projectNodes?: readonly string[];
}

export function precheck(i: PrecheckInput): ValidationCheck[] {
  const checks: ValidationCheck[] = [];
  const result = i.report.result;
  const bad = i.trajectory.filter((c) => BAD_STATUS.has(c.status) && c.tool !== 'agent');
  if (i.report.status === 'completed' && bad.length > 0 && !ADMITS.test(result))
    checks.push({
      claim: 'the report claims success',
      ok: false,
      evidence: bad.map((c) => `${c.tool} (${c.id}) ${c.status}`).join('; '),
      note: 'tool calls failed, were blocked or hit a limit, and the result does not say so',
    });

  const renamed = i.trajectory.flatMap((c) => c.renamed.map((r) => ({ ...r, call: c })));
  for (const r of renamed)
    if (mentions(result, r.requested) && !mentions(result, r.name))
      checks.push({
        claim: `the result names ${r.requested}`,
        ok: false,
        evidence: `${r.call.tool} (${r.call.id}): requested_name ${r.requested}, the controller named it ${r.name}`,
        note: `the node is ${r.name}; the report must use the name the controller gave`,
      });
  const renames = i.trajectory.filter((c) => c.tool === 'update_gns3_node_name');
  for (const c of renames)
    for (const item of (c.args.nodes as { new_name?: unknown }[] | undefined) ?? []) {
      const wanted = typeof item.new_name === 'string' ? item.new_name : undefined;
      if (wanted && mentions(result, wanted) && !c.returned.includes(wanted) && !c.renamed.some((r) => r.name === wanted))
        checks.push({
          claim: `the result names ${wanted}`,
          ok: false,
          evidence: `${c.tool} (${c.id}) ${c.status}: the rename to ${wanted} did not happen`,
        });
    }

  // a call may name a node in another case: the controller resolves names case-insensitively
  const known = new Set<string>();
  for (const c of i.trajectory)
    for (const n of [...c.targets, ...c.returned, ...c.renamed.map((r) => r.requested)]) known.add(n.toLowerCase());
  const briefText = [i.brief.goal, ...i.brief.constraints, i.brief.expected_report, i.anchor ?? ''].join('\n');
  if (i.trajectory.length > 0 && i.projectNodes) {
    const untouched = i.projectNodes.filter((n) => mentions(result, n) && !known.has(n.toLowerCase()) && !mentions(briefText, n));
    if (untouched.length)
      checks.push({
        claim: `the result reports on ${untouched.join(', ')}`,
        ok: false,
        evidence: `no tool call touched ${untouched.join(', ')} (touched: ${[...new Set(i.trajectory.flatMap((c) => c.targets))].join(', ') || 'none'})`,
      });
  }

  if (!i.defaultExpected) {
    const lower = result.toLowerCase();
    const missing = expectedParts(i.brief.expected_report).filter((p) => !p.words.some((w) => lower.includes(w)));
    if (missing.length)
      checks.push({
        claim: 'the report has every part the brief expected',
        ok: false,
        evidence: `missing: ${missing.map((m) => m.part).join('; ')}`,
      });
  }
  return checks;
}

/** The verdict of the pre-checks alone: a failure, or undefined when the Validator must look. */
export function precheckVerdict(checks: ValidationCheck[]): ValidationResult | undefined {
  const failed = checks.filter((c) => !c.ok);
  if (!failed.length) return undefined;
  return {
    verdict: 'fail',
    checks,
    summary: `deterministic pre-check failed: ${failed.map((c) => `${c.claim} — ${c.evidence}`).join('; ')}`,
    deterministic: true,
  };
}
