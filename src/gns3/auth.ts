/**
 * Controller authentication. v3: JSON login to `/v3/access/users/authenticate`,
 * the JWT kept in an injected token store (the keychain in production) and a
 * single re-login when the server answers 401. v2: optional HTTP basic auth.
 */
import { ControllerError } from '../errors.js';
import { registerSecret, type Logger } from '../log.js';
import { errorBodyMessage } from './errors.js';
import type { Gns3Http } from './http.js';

export interface Gns3Credentials {
  username: string;
  password: string;
}

export interface TokenStore {
  get(): Promise<string | undefined>;
  set(token: string): Promise<void>;
}

/** In-process store for tests and for runs without a keychain. */
export function memoryTokenStore(initial?: string): TokenStore {
  let token = initial;
  return {
    get: async () => token,
    set: async (t) => {
      token = t;
    },
  };
}

export class Gns3Auth {
  private token: string | undefined;
  private loaded = false;
  private loginInFlight: Promise<string> | undefined;

  constructor(
    private readonly http: Gns3Http,
    private readonly credentials: (() => Promise<Gns3Credentials | undefined>) | undefined,
    private readonly tokenStore: TokenStore | undefined,
    private readonly log: Logger,
  ) {}

  /** Headers for the next request; on v3 this may log in first. */
  async headers(api: 'v2' | 'v3', signal?: AbortSignal): Promise<Record<string, string>> {
    if (api === 'v2') {
      const creds = await this.credentials?.();
      if (!creds) return {};
      registerSecret(creds.password);
      return { authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}` };
    }
    const token = await this.currentToken(signal);
    return { authorization: `Bearer ${token}` };
  }

  /** Logs in again (v3): the notification stream's token was refused. */
  async relogin(signal?: AbortSignal): Promise<void> {
    this.token = undefined;
    await this.login(signal);
  }

  /** True when a fresh login was done and the request is worth one retry. */
  async handleUnauthorized(api: 'v2' | 'v3', serverMessage: string, signal?: AbortSignal): Promise<boolean> {
    if (api === 'v2') {
      const creds = await this.credentials?.();
      throw new ControllerError(
        creds
          ? `GNS3 controller at ${this.http.baseUrl} rejected the credentials: ${serverMessage}`
          : `GNS3 controller at ${this.http.baseUrl} requires authentication; store credentials with \`gns3-copilot auth login\``,
      );
    }
    this.log.info('gns3 token rejected, logging in again', { server: this.http.baseUrl });
    this.token = undefined;
    await this.login(signal);
    return true;
  }

  private async currentToken(signal?: AbortSignal): Promise<string> {
    if (this.token) return this.token;
    if (!this.loaded) {
      this.loaded = true;
      const stored = await this.tokenStore?.get().catch(() => undefined);
      if (stored) {
        registerSecret(stored);
        this.token = stored;
        return stored;
      }
    }
    return this.login(signal);
  }

  private login(signal?: AbortSignal): Promise<string> {
    // Parallel tool calls that all hit 401 share one login.
    this.loginInFlight ??= this.doLogin(signal).finally(() => {
      this.loginInFlight = undefined;
    });
    return this.loginInFlight;
  }

  private async doLogin(signal?: AbortSignal): Promise<string> {
    const creds = await this.credentials?.();
    if (!creds) {
      throw new ControllerError(
        `GNS3 controller at ${this.http.baseUrl} (API v3) requires a login; store credentials with \`gns3-copilot auth login\` or set GNS3_USER/GNS3_PASSWORD`,
      );
    }
    registerSecret(creds.password);
    const path = '/v3/access/users/authenticate';
    const res = await this.http.send('POST', path, { body: { username: creds.username, password: creds.password }, signal });
    if (res.status === 401 || res.status === 403) {
      throw new ControllerError(
        `GNS3 controller at ${this.http.baseUrl} rejected the login for user "${creds.username}": ${errorBodyMessage(res.status, res.text, res.headers['content-type'] ?? '')}`,
      );
    }
    if (res.status !== 200) {
      throw new ControllerError(
        `GNS3 login failed (HTTP ${res.status}): ${errorBodyMessage(res.status, res.text, res.headers['content-type'] ?? '')}`,
      );
    }
    let token: unknown;
    try {
      token = (JSON.parse(res.text) as { access_token?: unknown }).access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string' || token === '') throw new ControllerError('GNS3 login answered without an access token');
    registerSecret(token);
    this.token = token;
    await this.tokenStore?.set(token).catch((err: unknown) => {
      this.log.warn('could not store the GNS3 token', { error: String(err) });
    });
    return token;
  }
}
