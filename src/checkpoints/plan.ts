/**
 * What a rewind would do: per device, the diff from the checkpoint to the
 * device's fresh capture and the commands that undo it; for the topology, the
 * nodes and links to delete and the names, statuses and filters to set back.
 * Pure: the checkpoints and the current state come in, a plan goes out.
 */
import type { Capture, DeviceCheckpoint, TopologyBefore, TopologyCheckpoint } from './types.js';
import { parseConfig, planCommands, planText, restorePlan, type ConfigNode } from './hier-diff.js';
import { unifiedDiff } from './unified-diff.js';
import { vpcsRestore } from './vpcs.js';

/**
 * unchanged  – the device matches its checkpoint
 * restore    – commands that undo the difference can be applied
 * review     – a platform without the hierarchical diff: the diff and commands to check by hand, never applied
 * no_checkpoint – the capture before the change failed; why is in `error`
 * error      – the device cannot be captured now
 */
export type DevicePlanStatus = 'unchanged' | 'restore' | 'review' | 'no_checkpoint' | 'error';

export interface DevicePlan {
  name: string;
  platform?: string;
  status: DevicePlanStatus;
  /** the request whose checkpoint this is */
  request_no: number;
  /** unified diff checkpoint → now */
  diff: string;
  /** the lines to send, in order */
  commands: string[];
  /** the same lines indented by block, for a person */
  display: string[];
  /** changed lines that remain (`-` in the checkpoint only, `+` now only) */
  remaining: string[];
  error?: string;
  /** the fresh capture the plan was made from (the state a rewind checkpoints before it changes anything) */
  current?: string;
}

const HIER_PLATFORMS = new Set(['frr', 'cisco_ios']);

/** Configuration lines without the dump's noise, block structure kept (`interface eth0 > ip address …`). */
function significant(text: string): string[] {
  const out: string[] = [];
  const walk = (nodes: ConfigNode[], path: string) => {
    for (const n of nodes) {
      const p = path ? `${path} > ${n.line}` : n.line;
      out.push(p);
      walk(n.children, p);
    }
  };
  walk(parseConfig(text), '');
  return out;
}

/** The lines that differ between two configurations (ignoring banners, comments and block closers). */
export function remainingLines(target: string, current: string): string[] {
  const want = significant(target);
  const have = significant(current);
  const haveSet = new Set(have);
  const wantSet = new Set(want);
  return [...want.filter((l) => !haveSet.has(l)).map((l) => `-${l}`), ...have.filter((l) => !wantSet.has(l)).map((l) => `+${l}`)];
}

/** What a device plan starts from: a session checkpoint, or a device of a named lab checkpoint (no request). */
export type PlanSource = Pick<DeviceCheckpoint, 'device' | 'config' | 'error'> & { request_no?: number };

/**
 * The device's plan back to `cp` from its capture `now`. `label` names the checkpoint in the
 * diff's header (`r1 before request 2`, `r1 at checkpoint stage1`).
 */
export function planDevice(cp: PlanSource, now: Capture, label = `before request ${cp.request_no ?? 0}`): DevicePlan {
  const base = { name: cp.device, request_no: cp.request_no ?? 0, diff: '', commands: [], display: [], remaining: [] };
  if (cp.config === null)
    return { ...base, status: 'no_checkpoint', error: `no checkpoint for ${cp.device}: ${cp.error ?? 'not captured'}` };
  if (now.config === undefined) return { ...base, status: 'error', error: `cannot capture ${cp.device} now: ${now.error ?? 'no answer'}` };
  const platform = now.platform;
  const withPlatform = { ...(platform ? { platform } : {}), current: now.config };
  const diff = unifiedDiff(cp.config, now.config, { from: `${cp.device} ${label}`, to: `${cp.device} now` });
  const remaining = platform === 'vpcs' ? (diff ? [`-${cp.config}`, `+${now.config}`] : []) : remainingLines(cp.config, now.config);
  if (remaining.length === 0) return { ...base, ...withPlatform, status: 'unchanged', diff };
  if (platform === 'vpcs') {
    const commands = vpcsRestore(cp.config, now.config);
    return { ...base, ...withPlatform, status: 'restore', diff, commands, display: commands, remaining };
  }
  if (platform && HIER_PLATFORMS.has(platform)) {
    const plan = restorePlan(cp.config, now.config);
    return { ...base, ...withPlatform, status: 'restore', diff, commands: planCommands(plan), display: planText(plan), remaining };
  }
  // Huawei reads like the Cisco family with `undo`; offered for review only. Others: the diff alone.
  const plan = platform === 'huawei' ? restorePlan(cp.config, now.config, { no: 'undo' }) : [];
  return {
    ...base,
    ...withPlatform,
    status: 'review',
    diff,
    commands: [],
    display: planText(plan),
    remaining,
    error: `${platform ?? 'this platform'}: no automatic restore; review the diff${plan.length ? ' and the suggested commands' : ''} and apply them by hand`,
  };
}

/** The topology as a rewind compares it: nodes and links by id. */
export interface TopologyNow {
  nodes: { node_id: string; name: string; status: string }[];
  links: { link_id: string; filters: Record<string, unknown[]>; suspend?: boolean; label?: string }[];
}

export interface TopologyPlan {
  delete_links: { link_id: string; label: string }[];
  delete_nodes: { node_id: string; name: string }[];
  rename: { node_id: string; from: string; to: string }[];
  power: { node_id: string; name: string; from: string; to: string }[];
  filters: { link_id: string; label: string; from: Record<string, unknown[]>; to: Record<string, unknown[]> }[];
}

export function topologyPlanEmpty(p: TopologyPlan): boolean {
  return Object.values(p).every((l: unknown[]) => l.length === 0);
}

const sameFilters = (a: Record<string, unknown[]>, b: Record<string, unknown[]>) => {
  const norm = (f: Record<string, unknown[]>) =>
    JSON.stringify(
      Object.keys(f)
        .filter((k) => (f[k] ?? []).length > 0)
        .sort()
        .map((k) => [k, f[k]]),
    );
  return norm(a) === norm(b);
};

/**
 * From the topology checkpoints at or after the rewind point and the topology
 * now: what the session created still exists (delete it), and every node or
 * link it touched goes back to its first recorded state.
 */
export function planTopology(checkpoints: TopologyCheckpoint[], now: TopologyNow): TopologyPlan {
  const created = { nodes: new Set<string>(), links: new Set<string>() };
  const first: TopologyBefore = { nodes: [], links: [] };
  for (const c of checkpoints) {
    for (const n of c.before.nodes) if (!first.nodes.some((x) => x.node_id === n.node_id)) first.nodes.push(n);
    for (const l of c.before.links) if (!first.links.some((x) => x.link_id === l.link_id)) first.links.push(l);
    c.created.nodes.forEach((n) => created.nodes.add(n));
    c.created.links.forEach((l) => created.links.add(l));
  }
  return planTopologyBack(first, created, now);
}

/**
 * The topology plan from the state to go back to (`first`: the nodes and links as they were)
 * and what was created since: created things that still exist are deleted, the others get
 * their name, status and filters back. Shared by rewind and the named lab checkpoints.
 */
export function planTopologyBack(
  first: TopologyBefore,
  created: { nodes: ReadonlySet<string>; links: ReadonlySet<string> },
  now: TopologyNow,
): TopologyPlan {
  const nodeNow = new Map(now.nodes.map((n) => [n.node_id, n]));
  const linkNow = new Map(now.links.map((l) => [l.link_id, l]));
  const plan: TopologyPlan = { delete_links: [], delete_nodes: [], rename: [], power: [], filters: [] };
  for (const id of created.links) {
    const l = linkNow.get(id);
    if (l) plan.delete_links.push({ link_id: id, label: l.label ?? id });
  }
  for (const id of created.nodes) {
    const n = nodeNow.get(id);
    if (n) plan.delete_nodes.push({ node_id: id, name: n.name });
  }
  for (const b of first.nodes) {
    const n = nodeNow.get(b.node_id);
    if (!n || created.nodes.has(b.node_id)) continue;
    if (n.name !== b.name) plan.rename.push({ node_id: b.node_id, from: n.name, to: b.name });
    if (n.status !== b.status) plan.power.push({ node_id: b.node_id, name: b.name, from: n.status, to: b.status });
  }
  for (const b of first.links) {
    const l = linkNow.get(b.link_id);
    if (!l || created.links.has(b.link_id)) continue;
    if (!sameFilters(l.filters, b.filters))
      plan.filters.push({ link_id: b.link_id, label: l.label ?? b.link_id, from: l.filters, to: b.filters });
  }
  return plan;
}
