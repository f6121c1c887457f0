/**
 * `checkpoint save`: every node of the project captured at once (the session
 * checkpoints' capture drivers, through the pooled consoles, up to
 * device_concurrency), the topology read, and both stored under the name. A node
 * that cannot be captured — a platform without a capture driver, a built-in
 * switch, a stopped node, a console that does not answer — is stored and reported
 * as not saved with the reason, never left out.
 */
import type { TopologyNode } from '../gns3/types.js';
import { captureDevices, type CaptureContext } from './capture.js';
import { savedTopologyOf } from './named-plan.js';
import { checkName, type LabKey, type NamedCheckpointStore } from './named-store.js';
import type { Capture } from './types.js';

/** Built-in nodes whose whole state is the topology (ports, links): there is no device configuration to read. */
const BUILTIN = new Set(['ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'atm_switch', 'cloud', 'nat']);

export interface SaveOptions {
  name: string;
  note?: string | undefined;
  /** overwrite a checkpoint of that name (else it is refused, exit 2) */
  replace?: boolean;
}

export interface SavedDeviceReport {
  name: string;
  status: 'saved' | 'not_saved';
  platform?: string;
  /** lines of the configuration kept */
  lines?: number;
  /** why it was not saved */
  error?: string;
}

export interface SaveReport {
  checkpoint: string;
  project: string;
  project_id: string;
  note: string | null;
  replaced: boolean;
  nodes: number;
  links: number;
  devices: SavedDeviceReport[];
  duration_ms: number;
}

export interface SaveDeps {
  ctx: CaptureContext;
  store: NamedCheckpointStore;
  /** the controller part of the checkpoint's key (named-store.ts controllerKey) */
  controller: string;
}

function builtinCapture(n: TopologyNode): Capture | undefined {
  if (!BUILTIN.has(n.node_type)) return undefined;
  return { error: `built-in ${n.node_type}: no configuration of its own (its ports and links are part of the topology)` };
}

export async function saveLabCheckpoint(deps: SaveDeps, o: SaveOptions): Promise<SaveReport> {
  const started = Date.now();
  checkName(o.name);
  const scope = await deps.ctx.project();
  const topology = await scope.getTopology(deps.ctx.signal);
  const key: LabKey = { controller: deps.controller, project_id: scope.projectId };
  if (o.replace !== true) deps.store.assertFree(key, o.name, scope.projectName);
  const captured = await captureDevices(
    topology.nodes.filter((n) => !BUILTIN.has(n.node_type)).map((n) => n.name),
    deps.ctx,
  );
  const devices = topology.nodes
    .map((n) => ({ node: n, cap: builtinCapture(n) ?? captured.get(n.name) ?? { error: 'not captured' } }))
    .sort((a, b) => a.node.name.localeCompare(b.node.name, 'en', { numeric: true }));
  const { replaced } = deps.store.save(
    {
      ...key,
      project_name: scope.projectName,
      name: o.name,
      note: o.note,
      topology: savedTopologyOf(topology),
      devices: devices.map(({ node, cap }) => ({
        device: node.name,
        node_id: node.node_id,
        platform: cap.platform,
        config: cap.config,
        error: cap.error,
      })),
    },
    { replace: o.replace === true },
  );
  return {
    checkpoint: o.name,
    project: scope.projectName,
    project_id: scope.projectId,
    note: o.note ?? null,
    replaced,
    nodes: topology.nodes.length,
    links: topology.links.length,
    devices: devices.map(({ node, cap }) => ({
      name: node.name,
      status: cap.config !== undefined ? 'saved' : 'not_saved',
      ...(cap.platform ? { platform: cap.platform } : {}),
      ...(cap.config !== undefined ? { lines: cap.config === '' ? 0 : cap.config.split('\n').length } : {}),
      ...(cap.config === undefined ? { error: cap.error ?? 'not captured' } : {}),
    })),
    duration_ms: Date.now() - started,
  };
}
