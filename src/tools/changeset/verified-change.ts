/**
 * The automatic verification around a configuration tool's apply (docs/tools.md, Verification
 * after a change): the baseline of the devices it changes and their linked routers before, the
 * apply, then the settle re-reads and the comparison (./verify.ts). The result gets
 * `verification` in its data (what the model reads), on the outcome (the `verification` event)
 * and on its display line. In inject mode the verification is reported only: a regression is
 * what a fault is for.
 */
import { errorMessage } from '../../errors.js';
import type { Verification } from '../../core/verification.js';
import type { ToolContext, ToolOutcome } from '../types.js';
import { takeBaseline, verificationLine, verifyChange, type Baseline } from './verify.js';

export interface DeviceChange {
  device_name: string;
  commands: readonly string[];
}

const cannot = (reason: string): Verification => ({ status: 'error', regressions: [], intended: [], settle_ms: 0, reason });

/** Did any device take a line? A call that changed nothing has nothing to verify. */
function changedSomething(out: ToolOutcome): boolean {
  if (typeof out.data === 'string') return out.status !== 'error';
  const devices = out.data.devices;
  if (!Array.isArray(devices)) return out.status !== 'error';
  return devices.some((d: { status?: unknown }) => d.status === 'success' || d.status === 'partial');
}

export async function withVerification(
  changes: readonly DeviceChange[],
  ctx: ToolContext,
  apply: () => Promise<ToolOutcome>,
  opts: { reportOnly?: boolean } = {},
): Promise<ToolOutcome> {
  const names = [...new Set(changes.map((c) => c.device_name))];
  let base: Baseline | { error: string };
  try {
    base = await takeBaseline(names, ctx);
  } catch (err) {
    base = { error: errorMessage(err).split('\n')[0] ?? 'error' };
  }
  const out = await apply();
  if (!changedSomething(out) || ctx.signal.aborted) return out;
  const commands = new Map<string, readonly string[]>();
  for (const c of changes) commands.set(c.device_name, [...(commands.get(c.device_name) ?? []), ...c.commands]);
  let v: Verification;
  if ('error' in base) v = cannot(`no baseline: ${base.error}`);
  else
    try {
      v = await verifyChange(base, commands, ctx, {
        timeoutMs: ctx.settings.verify_timeout * 1000,
        // a fault's report informs and decides nothing: it does not hold the injection for OSPF's flooding
        quietMs: opts.reportOnly ? 0 : ctx.settings.verify_quiet * 1000,
      });
    } catch (err) {
      v = cannot(`cannot read the devices after the change: ${errorMessage(err).split('\n')[0] ?? 'error'}`);
    }
  if (opts.reportOnly) v = { ...v, report_only: true };
  const data = typeof out.data === 'string' ? { output: out.data } : out.data;
  return {
    ...out,
    data: { ...data, verification: v },
    display: [out.display, verificationLine(v)].filter(Boolean).join(' · '),
    verification: v,
  };
}
