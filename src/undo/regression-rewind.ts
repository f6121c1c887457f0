/**
 * `--on-regression rewind` (one-shot): once the request has ended, the devices of the calls
 * whose verification regressed go back to the checkpoint taken just before the regressed call
 * (an earlier call's change in the request stays) — the rewind of the command line and the TUI,
 * through the gate. `--approve config` or `all` approves it; `never` refuses it and the
 * regression is kept.
 */
import type { Settings } from '../config/schema.js';
import { SessionStore } from '../sessions/store.js';
import { CheckpointStore } from '../checkpoints/store.js';
import { rewindFromTui } from './tui-rewind.js';
import { rewindSummary } from './rewind-report.js';

export interface RegressionRewind {
  /** the request the regressed calls ran in */
  to: number;
  devices: string[];
  /** every device back at its checkpoint */
  restored: boolean;
  /** the summary lines (`✓ rewind to just before request 1: restored` …) */
  text: string;
}

export async function rewindRegressed(
  settings: Settings,
  sessionId: string,
  devices: string[],
  /** per device, the checkpoint taken before the regressed call (RegressionWatch.checkpoints) */
  checkpoints: number[],
  signal: AbortSignal,
): Promise<RegressionRewind> {
  const store = await SessionStore.open(settings.data_dir);
  try {
    const to = new CheckpointStore(store.db).currentRequestNo(sessionId);
    const approves = settings.approve === 'config' || settings.approve === 'all';
    const report = await rewindFromTui({ ...settings, approve: approves ? settings.approve : 'never' }, store, {
      sessionId,
      to,
      devices,
      checkpoints,
      approver: () => Promise.resolve(approves ? { kind: 'allow_once' as const } : { kind: 'deny' as const }),
      signal,
      onPlan: () => undefined,
      notice: () => undefined,
    });
    const { text, complete } = rewindSummary(report);
    return { to, devices, restored: complete && !report.blocked, text };
  } finally {
    store.close();
  }
}
