/**
 * From a topology node (plus settings.devices overrides) to what we connect to:
 * transport, host, port, platform hint and credentials.
 */
import { readFileSync } from 'node:fs';
import type { Settings } from '../config/schema.js';
import type { Topology, TopologyNode } from '../gns3/types.js';
import { platformFromName, type PlatformName } from './drivers.js';

export interface DeviceTarget {
  name: string;
  transport: 'telnet' | 'ssh';
  host: string;
  port: number;
  platform?: PlatformName;
  username?: string;
  password?: string;
  privateKey?: string;
}

export type Resolved = { ok: true; target: DeviceTarget } | { ok: false; error: string };

/** Env var for device (SSH / console login) passwords; never stored in config. */
export const DEVICE_PASSWORD_ENV = 'GNS3_COPILOT_DEVICE_PASSWORD';

function findOverride(settings: Settings, name: string) {
  const exact = settings.devices[name];
  if (exact) return exact;
  const key = Object.keys(settings.devices).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? settings.devices[key] : undefined;
}

export function findNode(topology: Topology, name: string): TopologyNode | undefined {
  return (
    topology.nodes.find((n) => n.name === name) ??
    topology.nodes.find((n) => n.node_id === name) ??
    topology.nodes.find((n) => n.name.toLowerCase() === name.toLowerCase())
  );
}

/** Platform from what the topology says: tags, node type, template name. */
export function platformHint(node: TopologyNode | undefined): PlatformName | undefined {
  if (!node) return undefined;
  for (const t of node.tags) {
    const m = /^(?:netmiko_)?device_type:(.+)$/i.exec(t.trim());
    if (m) {
      const p = platformFromName(m[1]);
      if (p) return p;
    }
  }
  if (node.node_type === 'vpcs') return 'vpcs';
  return platformFromName(node.template_name) ?? (node.node_type === 'docker' ? 'linux' : undefined);
}

function controllerHost(settings: Settings): string {
  try {
    return new URL(settings.server).hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  } catch {
    return '127.0.0.1';
  }
}

export function resolveTarget(topology: Topology, name: string, settings: Settings, env: NodeJS.ProcessEnv = process.env): Resolved {
  const node = findNode(topology, name);
  const o = findOverride(settings, node?.name ?? name);
  if (!node && !(o?.host && o.port)) {
    const known = topology.nodes
      .map((n) => n.name)
      .slice(0, 20)
      .join(', ');
    return { ok: false, error: `no node named "${name}" in project ${topology.project_name}${known ? ` (nodes: ${known})` : ''}` };
  }
  const transport = o?.transport ?? 'telnet';
  if (node && transport === 'telnet' && !o?.port) {
    if (node.status !== 'started') return { ok: false, error: `node ${node.name} is ${node.status}; start it first` };
    if (node.console_type && node.console_type !== 'telnet') {
      return {
        ok: false,
        error: `node ${node.name} has a ${node.console_type} console, not telnet; set settings.devices.${node.name}.transport=ssh with host/port to reach it`,
      };
    }
    if (!node.console) return { ok: false, error: `node ${node.name} has no console port` };
  }
  let host = o?.host ?? node?.console_host ?? '';
  // A console bound to all addresses lives on the controller's host.
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0') host = controllerHost(settings);
  const port = o?.port ?? (transport === 'ssh' ? 22 : node!.console!);
  const platform = platformFromName(o?.platform) ?? platformHint(node);
  const target: DeviceTarget = { name: node?.name ?? name, transport, host, port };
  if (platform) target.platform = platform;
  if (o?.username) target.username = o.username;
  const password = env[DEVICE_PASSWORD_ENV];
  if (password) target.password = password;
  if (o?.key_file) {
    try {
      target.privateKey = readFileSync(o.key_file, 'utf8');
    } catch (err) {
      return {
        ok: false,
        error: `cannot read settings.devices.${target.name}.key_file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      };
    }
  }
  if (transport === 'ssh' && !target.username) return { ok: false, error: `settings.devices.${target.name}.username is required for ssh` };
  if (transport === 'ssh' && !target.password && !target.privateKey) {
    return {
      ok: false,
      error: `no ssh credentials for ${target.name}: set settings.devices.${target.name}.key_file or ${DEVICE_PASSWORD_ENV}`,
    };
  }
  return { ok: true, target };
}
