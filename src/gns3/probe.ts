/**
 * Which GNS3 API does a server speak? `GET /v3/version` (no auth on v3), then
 * `GET /v2/version`. Used by `doctor` and by the client's API auto-detection.
 */
import { ControllerError } from '../errors.js';
import { nullLogger } from '../log.js';
import { Gns3Auth } from './auth.js';
import { Gns3Http } from './http.js';

export interface ProbeResult {
  api: 'v2' | 'v3';
  version: string;
  /** the user a v3 login (ProbeOptions.login) succeeded for */
  user?: string;
}

type Credentials = { username: string; password: string };

export interface ProbeOptions {
  insecure?: boolean;
  timeoutMs?: number;
  /** v2 servers may sit behind HTTP basic auth; a function is only called when needed */
  credentials?: Credentials | (() => Promise<Credentials | undefined>);
  /**
   * v3: also log in with the credentials (a fresh login, no stored token), so an
   * answer means the next run can work; missing or rejected credentials throw.
   */
  login?: boolean;
}

function versionOf(text: string): string | undefined {
  try {
    const v = (JSON.parse(text) as { version?: unknown }).version;
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Probes with an existing HTTP layer (the client reuses its agent). */
export async function probeWith(
  http: Gns3Http,
  opts: { credentials?: ProbeOptions['credentials']; signal?: AbortSignal } = {},
): Promise<ProbeResult> {
  const where = `GNS3 controller at ${http.baseUrl}`;
  const v3 = await http.send('GET', '/v3/version', { signal: opts.signal });
  const v3version = v3.status === 200 ? versionOf(v3.text) : undefined;
  if (v3version) return { api: 'v3', version: v3version };

  redirectCheck(where, v3);

  let v2 = await http.send('GET', '/v2/version', { signal: opts.signal });
  let creds: Credentials | undefined;
  if (v2.status === 401 && opts.credentials) {
    creds = typeof opts.credentials === 'function' ? await opts.credentials() : opts.credentials;
    if (creds) {
      const headers = { authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}` };
      v2 = await http.send('GET', '/v2/version', { headers, signal: opts.signal });
    }
  }
  const v2version = v2.status === 200 ? versionOf(v2.text) : undefined;
  if (v2version) return { api: 'v2', version: v2version };
  if (v2.status === 401) {
    throw new ControllerError(
      creds
        ? `${where} rejected the GNS3 credentials (HTTP 401 on /v2/version)`
        : `${where} requires authentication (HTTP 401 on /v2/version); store credentials with \`gns3-copilot auth login\``,
    );
  }
  const seen =
    v3.status === 200 ? `/v3/version answered without a version` : `HTTP ${v3.status} on /v3/version, ${v2.status} on /v2/version`;
  throw new ControllerError(`${where} is not a GNS3 server (${seen})`);
}

/** http→https (or a moved path) answers with a redirect that undici does not follow. */
function redirectCheck(where: string, res: { status: number; headers: Record<string, string> }): void {
  if (res.status >= 300 && res.status < 400 && res.headers.location) {
    throw new ControllerError(`${where} redirects to ${res.headers.location}; use that address as the server URL`);
  }
}

export async function probeController(server: string, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const timeout = opts.timeoutMs ?? 5_000;
  const http = new Gns3Http({
    baseUrl: server,
    insecure: opts.insecure,
    connectTimeoutMs: timeout,
    requestTimeoutMs: timeout,
    maxAttempts: 1,
  });
  try {
    const found = await probeWith(http, { credentials: opts.credentials });
    if (!opts.login || found.api !== 'v3') return found;
    const creds = typeof opts.credentials === 'function' ? await opts.credentials() : opts.credentials;
    await new Gns3Auth(http, async () => creds, undefined, nullLogger).headers('v3');
    return { ...found, user: creds!.username };
  } finally {
    await http.close();
  }
}
