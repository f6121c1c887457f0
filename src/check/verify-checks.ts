/**
 * The session's check file inside a change's verification (`--checks FILE`, the `checks`
 * setting; docs/tools.md, Verification): the file is run before the change, with the
 * baseline, and again once the state has settled; a check that passed before and does not
 * pass now is a regression of kind `check` named after the check. Never an intended
 * difference: a check file states what must stay true. A file that cannot be read or run is
 * the verification's `error`, never a pass.
 */
import type { Settings } from '../config/schema.js';
import type { DevicePool } from '../devices/pool.js';
import type { ProjectScope } from '../gns3/types.js';
import type { Logger } from '../log.js';
import { errorMessage } from '../errors.js';
import { loadCheckFile } from './load.js';
import { runChecks, type CheckReport } from './run.js';
import { deviceOf, type Check } from './schema.js';
import type { Regression } from './state.js';

/** The check file's run before the change: its checks and their verdicts, or why it could not run. */
export type ChecksBaseline = { file: string; checks: Check[]; report: CheckReport } | { file: string; error: string };

export interface ChecksRunContext {
  settings: Settings;
  project(): Promise<ProjectScope>;
  pool: DevicePool;
  signal: AbortSignal;
  log?: Logger;
}

/** Reads the session's check file at startup: a file that cannot be read or parsed is a UsageError (exit 2). */
export async function loadSessionChecks(settings: Pick<Settings, 'checks'>): Promise<Check[] | undefined> {
  if (settings.checks === undefined) return undefined;
  return (await loadCheckFile(settings.checks)).checks;
}

async function run(checks: Check[], c: ChecksRunContext): Promise<CheckReport> {
  return runChecks(checks, {
    project: await c.project(),
    settings: c.settings,
    pool: c.pool,
    signal: c.signal,
    ...(c.log ? { log: c.log } : {}),
  });
}

/** Runs the check file before a change; undefined when the session has none. */
export async function checksBaseline(c: ChecksRunContext): Promise<ChecksBaseline | undefined> {
  const file = c.settings.checks;
  if (file === undefined) return undefined;
  try {
    const { checks } = await loadCheckFile(file);
    return { file, checks, report: await run(checks, c) };
  } catch (err) {
    return { file, error: `check file ${file}: ${errorMessage(err).split('\n')[0]}` };
  }
}

/** Where a check looks: its device, else the node or the first end of the link it names. */
function placeOf(c: Check): string {
  if ('node' in c) return c.node.name;
  if ('link' in c) return c.link.a.split(':')[0]!;
  return deviceOf(c) ?? 'lab';
}

/** The checks that passed in `before` and do not pass in `after` (same checks, same order). */
export function checkRegressions(checks: readonly Check[], before: CheckReport, after: CheckReport): Regression[] {
  const out: Regression[] = [];
  before.checks.forEach((b, i) => {
    const a = after.checks[i];
    if (b.status !== 'pass' || a?.status === 'pass') return;
    out.push({
      device: placeOf(checks[i]!),
      kind: 'check',
      what: b.name,
      before: `pass: ${b.evidence}`,
      after: a ? `${a.status}: ${a.evidence}` : 'not run',
    });
  });
  return out;
}

/** Runs the check file again after the change: its regressions, or why it could not decide. */
export async function checksAfter(base: ChecksBaseline, c: ChecksRunContext): Promise<{ regressions: Regression[] } | { error: string }> {
  if ('error' in base) return { error: base.error };
  try {
    return { regressions: checkRegressions(base.checks, base.report, await run(base.checks, c)) };
  } catch (err) {
    return { error: `check file ${base.file} after the change: ${errorMessage(err).split('\n')[0]}` };
  }
}
