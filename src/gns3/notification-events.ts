/**
 * What the controller's notification streams carry (gns3-server 2.2 and 3.x, read from
 * their sources; docs/ARCHITECTURE.md, Live topology): every message is one JSON object
 * `{"action": "<name>", "event": {...}}`, a WebSocket text frame or one line of the HTTP
 * stream, written by Python's json.dumps (sorted keys, ", " and ": " separators).
 *
 * - The project stream (`/projects/{id}/notifications[/ws]`) carries `node.created`,
 *   `node.updated`, `node.deleted` (the node JSON of `GET /nodes/{id}`; a delete may come
 *   twice, first a short form from the compute), `link.created|updated|deleted` (the link
 *   JSON of `GET /links/{id}`), `drawing.*`, `snapshot.restored`, `log.*` and `ping`.
 * - The controller stream (`/notifications[/ws]`) carries `project.created|updated|opened|
 *   closed|deleted` (the project JSON), `compute.*`, `template.*`, `log.*` and `ping`:
 *   both versions emit `project.*` with `emit_controller_notification`, never on the
 *   project stream.
 * - `ping` comes first on every new connection and after 5 s without another event:
 *   2.2 `{cpu_usage_percent, memory_usage_percent}`, 3.x adds `disk_usage_percent`;
 *   a compute's ping forwarded on the project stream adds `compute_id`.
 */
import type { RawLink, RawNode, RawProject } from './raw.js';

export type NodeAction = 'node.created' | 'node.updated' | 'node.deleted';
export type LinkAction = 'link.created' | 'link.updated' | 'link.deleted';
export type ProjectAction = 'project.created' | 'project.updated' | 'project.opened' | 'project.closed' | 'project.deleted';

export type Notification =
  | { action: NodeAction; event: RawNode }
  | { action: LinkAction; event: RawLink }
  | { action: ProjectAction; event: RawProject }
  | { action: 'ping'; event: Record<string, unknown> }
  /** log.error, log.warning, log.info: `{message}` (3.x also sends log.error for a rejected WebSocket token) */
  | { action: `log.${string}`; event: { message?: string } }
  | { action: string; event: Record<string, unknown> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One message of a stream, or undefined when it is not the `{action, event}` envelope. */
export function parseNotification(text: string): Notification | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || typeof v.action !== 'string' || !isObject(v.event)) return undefined;
  return { action: v.action, event: v.event };
}

export function isNodeEvent(n: Notification): n is { action: NodeAction; event: RawNode } {
  return n.action.startsWith('node.') && typeof (n.event as Record<string, unknown>).node_id === 'string';
}

export function isLinkEvent(n: Notification): n is { action: LinkAction; event: RawLink } {
  return n.action.startsWith('link.') && typeof (n.event as Record<string, unknown>).link_id === 'string';
}

export function isProjectEvent(n: Notification): n is { action: ProjectAction; event: RawProject } {
  return n.action.startsWith('project.') && typeof (n.event as Record<string, unknown>).project_id === 'string';
}
