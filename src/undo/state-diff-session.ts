/**
 * `diff --state`: the lab's operational state now against the baselines a session's change
 * verifications stored (src/sessions/state-baselines.ts): for each device a verification
 * read since just before request `to`, its first baseline from then against one fresh read
 * (src/check/state.ts, the readers `check --init` uses), as src/check/state-diff.ts compares.
 */
import { poolFor } from '../devices/engine.js';
import { readStates, type DeviceState } from '../check/state.js';
import { diffState, stateDiffEmpty, type StateChange } from '../check/state-diff.js';
import type { StateBaselineStore } from '../sessions/state-baselines.js';
import type { ToolContext } from '../tools/types.js';
import { sanitizeLine } from '../security/sanitize.js';

export interface DeviceStateReport {
  device: string;
  /** the request whose verification read the baseline */
  baseline_request: number;
  status: 'unchanged' | 'changed' | 'error';
  added: StateChange[];
  lost: StateChange[];
  changed: StateChange[];
  /** why the device could not be read now (status error) */
  error?: string;
}

export interface StateDiffReport {
  to: number;
  devices: DeviceStateReport[];
}

export async function diffSessionState(
  ctx: ToolContext,
  baselines: StateBaselineStore,
  o: { sessionId: string; to: number; devices?: string[] },
): Promise<StateDiffReport> {
  const only = o.devices?.map((d) => d.toLowerCase());
  const stored = baselines.firstSince<DeviceState>(o.sessionId, o.to).filter((b) => !only || only.includes(b.device.toLowerCase()));
  if (stored.length === 0) return { to: o.to, devices: [] };
  const topology = await (await ctx.project()).getTopology(ctx.signal, { fresh: true });
  const now = await readStates(
    stored.map((b) => b.device),
    { topology, settings: ctx.settings, pool: poolFor(ctx.services, ctx.settings, ctx.log), signal: ctx.signal, log: ctx.log },
  );
  return {
    to: o.to,
    devices: stored.map((b, i) => {
      const after = now[i]!;
      const base = { device: b.device, baseline_request: b.request_no };
      if (after.error !== undefined) return { ...base, status: 'error', added: [], lost: [], changed: [], error: after.error };
      const d = diffState(b.state, after);
      return { ...base, status: stateDiffEmpty(d) ? 'unchanged' : 'changed', added: d.added, lost: d.lost, changed: d.changed };
    }),
  };
}

const line = (sign: string, c: StateChange) =>
  `    ${sign} ${c.kind} ${c.what}: ${c.before !== undefined && c.after !== undefined ? `${c.before} → ${c.after}` : (c.after ?? c.before)}`;

/** The report for a person: a heading, then per device its differences (+ added, - lost, ~ changed). */
export function stateDiffText(r: StateDiffReport): string {
  const out = [
    `Operational state since before request ${r.to} (the baselines of the session's change verifications, against a fresh read):`,
  ];
  if (r.devices.length === 0) out.push('  no baselines stored: no configuration change of this session was verified since then');
  for (const d of r.devices) {
    const head = `  ${d.device} (baseline of request ${d.baseline_request})`;
    if (d.status === 'error') out.push(`${head}: cannot read it now: ${d.error ?? 'unknown'}`);
    else if (d.status === 'unchanged') out.push(`${head}: unchanged`);
    else {
      out.push(`${head}: ${d.added.length} added, ${d.lost.length} lost, ${d.changed.length} changed`);
      out.push(...d.lost.map((c) => line('-', c)), ...d.changed.map((c) => line('~', c)), ...d.added.map((c) => line('+', c)));
    }
  }
  return out.map(sanitizeLine).join('\n') + '\n';
}
