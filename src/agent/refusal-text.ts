/**
 * The CLI's words for a tool call refused for want of approval (the gate gives the
 * reason as data, src/tools/gate.ts): how to allow it in the TUI or in a one-shot run.
 */
import { APPROVAL_WHAT, type ApprovalRefusal } from '../tools/gate.js';

export function cliRefusalText(r: ApprovalRefusal): string {
  const what = `${r.tool} ${APPROVAL_WHAT[r.why]}`;
  if (r.cause === 'no_asker') return `${what} and needs approval, but nobody can approve in this run: rerun with --approve ${r.allowWith}`;
  if (r.interactive) return `${what} and the approval policy is "${r.policy}": allow it with --approve ask|${r.allowWith}`;
  const how = r.allowWith === 'config' ? '--approve config (or --approve all)' : '--approve all';
  return `${what} and needs approval, which a one-shot run cannot ask for: rerun with ${how} to allow it`;
}
