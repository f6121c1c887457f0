/**
 * The approval preview of a call verified against a baseline (ToolTargets.baseline): its
 * devices' configurations and the baseline states are read in the same console round
 * (./pre-change-read.ts) and kept for the call's run, so the verification does not read the
 * devices a second time. A call read already (a change set whose template used facts: its
 * prepare step read them, with or without a baseline) is previewed from that read. Other
 * calls are previewed as before (src/checkpoints/preview.ts).
 */
import { capturePreviewer, previewOnRead, type ApprovalPreviewer } from '../../checkpoints/preview.js';
import type { CaptureContext } from '../../checkpoints/capture.js';
import { keepRead, keptRead, readBeforeChange } from './pre-change-read.js';

export function baselinePreviewer(context: (signal: AbortSignal) => CaptureContext): ApprovalPreviewer {
  const plain = capturePreviewer(context);
  return async (devices, signal, known, call) => {
    const ctx = context(signal);
    const withCommands = devices.filter((d) => d.commands.length > 0);
    const names = withCommands.map((d) => d.name);
    const kept = keptRead(ctx.services, call?.id);
    const covered = kept !== undefined && (kept.baseline || !call?.baseline) && names.every((n) => kept.captures.has(n));
    if (!covered && !call?.baseline) return plain(devices, signal, known);
    if (withCommands.length === 0) return { devices: [], captures: new Map() };
    return previewOnRead(withCommands, async () => {
      let read = covered ? kept : undefined;
      if (!read) {
        read = await readBeforeChange(names, await (await ctx.project()).getTopology(signal), { config: true, baseline: true }, ctx);
        keepRead(ctx.services, call!.id, read);
      }
      return new Map(read.captures);
    });
  };
}
