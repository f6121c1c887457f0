/**
 * An approval preview as plain text, for front ends without the TUI's coloured box (the
 * MCP server's elicitation message): per device the commands, then the diff they would
 * make or why there is none. The text is bounded — a client shows it in one dialog — so a
 * long command list or diff is cut with a line saying how much was left out, long lines
 * are shortened, and past a total budget the remaining devices are only counted.
 */
import type { TargetDevice } from '../core/targets.js';
import type { DevicePreview } from '../core/preview.js';

export interface PreviewTextLimits {
  /** command lines shown per device */
  commandLines: number;
  /** diff lines shown per device (the `---`/`+++` header is not counted: it is dropped) */
  diffLines: number;
  /** characters of one line */
  lineChars: number;
  /** lines of the whole text; devices past it are only counted */
  totalLines: number;
}

export const PREVIEW_TEXT_LIMITS: PreviewTextLimits = { commandLines: 40, diffLines: 60, lineChars: 200, totalLines: 300 };

const INDENT = '  ';

/** The labels every front end puts over a preview (the TUI's box, this text). */
export const PREVIEW_HEADING = 'preview, configuration now → after:';
export const PREVIEW_NO_CHANGE = 'preview: no change to the configuration';

/** A preview's diff without its `---`/`+++` header lines: what a person reads under the commands. */
export function previewDiffBody(diff: string): string[] {
  return diff.split('\n').filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '));
}

/** The lines of `lines` that fit in `max`, and a note of the rest. */
function capped(lines: string[], max: number, what: string): string[] {
  if (lines.length <= max) return lines;
  const left = lines.length - max;
  return [...lines.slice(0, max), `… ${left} more ${what} line${left === 1 ? '' : 's'} not shown`];
}

/** Why a device has no preview, as `no preview for R3: <why>` (from the previewer's wording, src/checkpoints/preview.ts). */
export function noPreviewLine(p: DevicePreview): string {
  const error = p.error ?? 'no preview was made';
  const platform = /^no preview for (.+) devices$/.exec(error)?.[1];
  const why = platform !== undefined ? `${platform} devices are not previewed` : error.replace(/^no preview:\s*/, '');
  return `no preview for ${p.device}: ${why}`;
}

/** One device's block: heading, commands, then the diff (headers dropped) or why there is none. */
function deviceLines(d: TargetDevice, p: DevicePreview | undefined, limits: PreviewTextLimits): string[] {
  const out = [`${d.name}:`, ...capped(d.commands, limits.commandLines, 'command').map((l) => INDENT + l)];
  if (!p) return out;
  if (p.error !== undefined) return [...out, INDENT + noPreviewLine(p)];
  if (!p.diff) return [...out, INDENT + PREVIEW_NO_CHANGE];
  return [...out, INDENT + PREVIEW_HEADING, ...capped(previewDiffBody(p.diff), limits.diffLines, 'diff').map((l) => INDENT + l)];
}

/**
 * The devices a call changes with their commands and previews, as plain text. A device
 * that is previewed but not among `devices` (its commands unknown) still gets its preview.
 */
export function previewText(devices: TargetDevice[], preview: DevicePreview[] | undefined, limits = PREVIEW_TEXT_LIMITS): string {
  const shown = [...devices];
  for (const p of preview ?? []) if (!shown.some((d) => d.name === p.device)) shown.push({ name: p.device, commands: [] });
  const out: string[] = [];
  for (const [i, d] of shown.entries()) {
    const block = deviceLines(
      d,
      preview?.find((p) => p.device === d.name),
      limits,
    ).map((l) => (l.length > limits.lineChars ? `${l.slice(0, limits.lineChars - 1)}…` : l));
    // the first device is always shown (cut by its own caps); a later one only when it fits whole
    if (i > 0 && out.length + block.length > limits.totalLines) {
      const left = shown.length - i;
      out.push(`… ${left} more device${left === 1 ? '' : 's'} not shown`);
      break;
    }
    out.push(...block);
  }
  return out.join('\n');
}
