/**
 * What an open project (and its packet capture) needs from the controller
 * client. Gns3Client implements it; project.ts and capture.ts depend on this
 * interface instead of importing client.ts, which imports them.
 */
import type { Logger } from '../log.js';
import type { RequestOptions, StreamResponse } from './http.js';
import type { RawCompute, RawTemplate } from './raw.js';
import type { NotificationEndpoint } from './notification-channel.js';

export type ApiVersion = 'v2' | 'v3';

export interface CallOptions extends Omit<RequestOptions, 'headers'> {
  /** statuses that are not errors for this call (returned as undefined body) */
  okStatuses?: number[];
}

/** The client also opens the controller's notification streams (./notification-channel.ts). */
export interface ControllerApi extends NotificationEndpoint {
  readonly baseUrl: string;
  readonly log: Logger;
  /** the detected (or configured) API version */
  api(signal?: AbortSignal): Promise<ApiVersion>;
  /** one API call; `path` is relative to /v2 or /v3 */
  call(method: string, path: string, opts?: CallOptions): Promise<unknown>;
  openStream(path: string, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<StreamResponse & { path: string }>;
  listTemplates(signal?: AbortSignal, maxAgeMs?: number): Promise<RawTemplate[]>;
  /** the computes nodes can run on (cached like the templates) */
  listComputes(signal?: AbortSignal, maxAgeMs?: number): Promise<RawCompute[]>;
}
