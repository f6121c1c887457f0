/**
 * What the approval prompt shows under each device: the diff its commands would
 * make to its configuration. The configuration is read first (a read-only
 * capture through the pooled console, stored nowhere: a denied call leaves no
 * checkpoint); the commands are then played on it the way the device's CLI
 * reads them — block headers enter a block, `exit` leaves it, `no x` removes x,
 * a single-valued setting replaces its old value — and the result is diffed
 * against the capture. A preview is an estimate of a device's parser, never a
 * promise: the checkpoint taken after the approval is what a rewind restores.
 */
import type { TargetDevice } from '../core/targets.js';
import { errorMessage } from '../errors.js';
import { captureDevices, type CaptureContext } from './capture.js';
import { parseConfig, settingKey, type ConfigNode } from './hier-diff.js';
import type { DevicePreview } from '../core/preview.js';
import type { Capture } from './types.js';
import { unifiedDiff } from './unified-diff.js';
import { commandLines, controlCharRefusal } from '../devices/filter.js';

export interface ApprovalPreview {
  devices: DevicePreview[];
  /** the captures the previews were made from (the dispatch's checkpoint of an approved call reuses them) */
  captures: Map<string, Capture>;
}

/** Reads the devices a call would change and previews its commands on them (src/tools/dispatch.ts, before it asks). */
export type ApprovalPreviewer = (
  devices: TargetDevice[],
  signal: AbortSignal,
  /** devices read for an earlier approval of the same batch (nothing has run since): not read again */
  known?: ReadonlyMap<string, Capture>,
  /** the call previewed; `baseline`: it is verified against a baseline, which the same read may take (ToolTargets.baseline) */
  call?: { id: string; baseline?: boolean },
) => Promise<ApprovalPreview>;

const HIER_PLATFORMS = new Set(['frr', 'cisco_ios']);

/** Blocks a top-level line opens (the Cisco-like family). */
const ROOT_BLOCK =
  /^(interface|router|line|vrf|ip vrf|route-map|key chain|policy-map|class-map|bfd|segment-routing|mpls ldp|control-plane|pbr-map|nexthop-group|l2vpn|ip(v6)? access-list (standard|extended) |ip explicit-path|track|rpki)\b/i;
/** Blocks a line opens inside another block. */
const INNER_BLOCK = /^(address-family|vni|peer|key \d+|profile|segment-list|policy)\b/i;
const IGNORED = /^(configure( terminal)?|conf t|write( memory)?|wr|copy run\S* start\S*|do\s.*)$/i;
const EXIT = /^(exit(-address-family|-vrf|-vni)?|quit)$/i;

/** The configuration as one line per setting, one space per block level (how both sides of a preview are shown). */
function render(nodes: ConfigNode[], depth = 0, out: string[] = []): string[] {
  for (const n of nodes) {
    out.push(`${' '.repeat(depth)}${n.line}`);
    render(n.children, depth + 1, out);
  }
  return out;
}

/** The configuration after `commands` (Cisco-like CLI: FRR vtysh, IOS). */
export function applyConfigCommands(config: string, commands: string[]): string {
  const root = parseConfig(config);
  const stack: ConfigNode[] = [];
  const here = () => (stack.length > 0 ? stack[stack.length - 1]!.children : root);
  for (const raw of commands) {
    const t = raw.trim().replace(/\s+/g, ' ');
    if (t === '' || t.startsWith('!') || IGNORED.test(t)) continue;
    if (/^end$/i.test(t)) {
      stack.length = 0;
      continue;
    }
    if (EXIT.test(t)) {
      stack.pop();
      continue;
    }
    // a top-level block named inside another block leaves it first, as the CLI does
    if (stack.length > 0 && ROOT_BLOCK.test(t.replace(/^no /i, ''))) stack.length = 0;
    const negated = /^no (.+)$/i.exec(t)?.[1];
    if (negated !== undefined) {
      if (!removeLines(here(), negated) && stack.length > 0) removeLines(root, negated);
      continue;
    }
    const list = here();
    const same = list.find((n) => n.line === t);
    const opensBlock = stack.length === 0 ? ROOT_BLOCK.test(t) : INNER_BLOCK.test(t);
    if (same) {
      if (same.children.length > 0 || opensBlock) stack.push(same);
      continue;
    }
    // `x` undoes a stored `no x`
    const negatedForm = list.findIndex((n) => n.line === `no ${t}`);
    if (negatedForm >= 0) list.splice(negatedForm, 1);
    const key = settingKey(t);
    const old = key === undefined ? -1 : list.findIndex((n) => n.children.length === 0 && settingKey(n.line) === key);
    const node: ConfigNode = { line: t, children: [] };
    if (old >= 0) list.splice(old, 1, node);
    else list.push(node);
    if (opensBlock) stack.push(node);
  }
  return render(root).join('\n');
}

/** Removes `line` (or, when no line is exactly it, every line it starts: `no ip address`) from a block; false when none. */
function removeLines(list: ConfigNode[], line: string): boolean {
  const exact = list.findIndex((n) => n.line === line);
  if (exact >= 0) {
    list.splice(exact, 1);
    return true;
  }
  let removed = false;
  for (let i = list.length - 1; i >= 0; i--)
    if (list[i]!.line.startsWith(`${line} `)) {
      list.splice(i, 1);
      removed = true;
    }
  return removed;
}

const maskBits = (mask: string) =>
  mask
    .split('.')
    .map((o) => Number(o).toString(2))
    .join('')
    .replace(/0/g, '').length;

/** A VPCS PC's settings (as src/checkpoints/vpcs.ts keeps them) after `commands`. */
export function applyVpcsCommands(config: string, commands: string[]): string {
  let address = config.split('\n').find((l) => /^ip \d/.test(l));
  let dns = config.split('\n').find((l) => /^ip dns /.test(l));
  for (const raw of commands) {
    const t = raw.trim().replace(/\s+/g, ' ');
    if (/^clear ip( all)?$/i.test(t)) {
      address = undefined;
      dns = undefined;
    } else if (/^ip dns \S/i.test(t)) dns = t;
    else {
      const m = /^ip (\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?(?: (\d+\.\d+\.\d+\.\d+))?(?: (\d+\.\d+\.\d+\.\d+))?/i.exec(t);
      if (!m) continue;
      // `ip ADDR MASK GW` or `ip ADDR/LEN GW` or `ip ADDR GW` (mask /24)
      const isMask = m[3] !== undefined && m[2] === undefined && /^255\./.test(m[3]);
      const len = m[2] ?? (isMask ? String(maskBits(m[3]!)) : '24');
      const gateway = isMask ? m[4] : m[3];
      address = `ip ${m[1]}/${len}${gateway ? ` ${gateway}` : ''}`;
    }
  }
  return [address, dns].filter((l): l is string => l !== undefined).join('\n');
}

/** The preview of one device's commands on its captured configuration. */
export function previewDevice(device: string, entries: string[], now: Capture): DevicePreview {
  if (now.config === undefined) return { device, error: `no preview: cannot read ${device} (${now.error ?? 'no answer'})` };
  // line by line, as the device engine sends them; a line it would refuse never reaches the device
  const commands = entries.flatMap(commandLines).filter((c) => controlCharRefusal(c) === undefined);
  const platform = now.platform ?? 'unknown';
  const labels = { from: `${device} now`, to: `${device} after these commands` };
  if (platform === 'vpcs') return { device, diff: unifiedDiff(now.config, applyVpcsCommands(now.config, commands), labels, 1) };
  if (!HIER_PLATFORMS.has(platform)) return { device, error: `no preview for ${platform} devices` };
  const base = render(parseConfig(now.config)).join('\n');
  return { device, diff: unifiedDiff(base, applyConfigCommands(now.config, commands), labels, 1) };
}

/**
 * The preview of `devices` on the configurations `read` returns; a read that fails is every
 * device's "no preview" (the approval is still asked, without a diff).
 */
export async function previewOnRead(devices: readonly TargetDevice[], read: () => Promise<Map<string, Capture>>): Promise<ApprovalPreview> {
  let captures: Map<string, Capture>;
  try {
    captures = await read();
  } catch (err) {
    const error = `no preview: ${errorMessage(err)}`;
    return { devices: devices.map((d) => ({ device: d.name, error })), captures: new Map() };
  }
  return {
    devices: devices.map((d) => previewDevice(d.name, d.commands, captures.get(d.name) ?? { error: 'not captured' })),
    captures,
  };
}

/** A previewer that captures the devices (read-only, in parallel) through `context`. */
export function capturePreviewer(context: (signal: AbortSignal) => CaptureContext): ApprovalPreviewer {
  return async (devices, signal, known) => {
    const withCommands = devices.filter((d) => d.commands.length > 0);
    if (withCommands.length === 0) return { devices: [], captures: new Map() };
    return previewOnRead(withCommands, async () => {
      const captures = await captureDevices(
        withCommands.map((d) => d.name).filter((n) => known?.get(n)?.config === undefined),
        context(signal),
      );
      for (const d of withCommands) {
        const k = known?.get(d.name);
        if (k?.config !== undefined) captures.set(d.name, k);
      }
      return captures;
    });
  };
}
