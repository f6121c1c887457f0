/**
 * Secrets live only in the OS keychain (Secret Service on Linux) under the
 * service `gns3-copilot`, via @napi-rs/keyring (keytar is archived). When no
 * keychain is usable, reads fall back to environment variables and writes fail
 * with one clear line: we never write a plaintext file instead.
 */
import { CopilotError, ExitCode, errorMessage } from '../errors.js';
import { registerSecret } from '../security/redact.js';

export const KEYCHAIN_SERVICE = 'gns3-copilot';

export type SecretAccount = 'llm_api_key' | 'gns3_username' | 'gns3_password' | `gns3_token:${string}` | 'mcp_token';

export interface SecretStore {
  /** undefined when absent or when no keychain is usable (callers fall back to env). */
  get(account: SecretAccount): Promise<string | undefined>;
  /** throws KeychainUnavailableError when no keychain is usable. */
  set(account: SecretAccount, value: string): Promise<void>;
  /** true when something was deleted; throws KeychainUnavailableError when no keychain is usable. */
  delete(account: SecretAccount): Promise<boolean>;
  available(): Promise<{ ok: boolean; reason?: string }>;
  /** every stored account name (for logout of per-server tokens); optional for test stores */
  accounts?(): Promise<string[]>;
}

/** Env vars a user can use instead of the keychain (documented in docs/security.md). */
export const SECRET_ENV = {
  llm_api_key: ['GNS3_COPILOT_API_KEY', 'OPENAI_API_KEY'],
  gns3_username: ['GNS3_USER'],
  gns3_password: ['GNS3_PASSWORD'],
} as const;

export const NO_KEYCHAIN_HINT = 'set GNS3_COPILOT_API_KEY (or OPENAI_API_KEY) and GNS3_USER/GNS3_PASSWORD in the environment instead';

/** Exit 2: nothing is broken, this machine just cannot store secrets; the env vars are the way (docs/cli.md, Exit codes). */
export class KeychainUnavailableError extends CopilotError {
  constructor(reason: string) {
    super(
      `No usable OS keychain (${reason}); nothing was stored. ${NO_KEYCHAIN_HINT[0]!.toUpperCase()}${NO_KEYCHAIN_HINT.slice(1)}.`,
      ExitCode.Usage,
    );
  }
}

/** A keychain call that takes longer than this means a hung bus or a prompt nobody answers. */
const KEYCHAIN_TIMEOUT_MS = 3_000;

type KeyringModule = typeof import('@napi-rs/keyring');

/** Turns the library's terse failures into something a user can act on. */
function explainFailure(err: unknown): string {
  const msg = errorMessage(err);
  // "no result found" is what a running service without an unlocked default
  // collection answers; check it before the generic access failure it is wrapped in.
  if (/no result found|locked/i.test(msg)) return 'the Secret Service has no unlocked keyring';
  if (/AccessDenied|ServiceUnknown|No such file|Failed to connect|Couldn't access platform storage|DBus error/i.test(msg)) {
    return 'no Secret Service on the D-Bus session bus';
  }
  return msg.split('\n')[0] ?? msg;
}

async function withTimeout<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new Error(`keychain did not answer within ${KEYCHAIN_TIMEOUT_MS} ms`));
    }, KEYCHAIN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([run(ac.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The real keychain. GNS3_COPILOT_KEYCHAIN=off disables it (tests and
 * machines where D-Bus activation would pop up a GUI prompt).
 */
export function openSecretStore(opts: { service?: string; env?: NodeJS.ProcessEnv } = {}): SecretStore {
  const service = opts.service ?? KEYCHAIN_SERVICE;
  const env = opts.env ?? process.env;
  let mod: Promise<KeyringModule> | undefined;
  let availability: Promise<{ ok: boolean; reason?: string }> | undefined;

  const entry = async (account: SecretAccount) => {
    mod ??= import('@napi-rs/keyring');
    const { AsyncEntry } = await mod;
    // Pinned to the Secret Service: the binding's silent fallback is the kernel
    // keyutils store, which forgets everything at reboot. The constructor throws
    // (fast) when the service is unreachable.
    return new AsyncEntry(service, account, { linux: { store: 'secret-service' } });
  };

  const available = () => {
    availability ??= (async () => {
      if (/^(off|0|false|no)$/i.test(env.GNS3_COPILOT_KEYCHAIN ?? '')) {
        return { ok: false, reason: 'disabled by GNS3_COPILOT_KEYCHAIN=off' };
      }
      try {
        // A read of an account that may not exist: resolves null on a working
        // service and rejects fast (GenericFailure) when there is none.
        const e = await entry('llm_api_key');
        await withTimeout((signal) => e.getPassword(signal));
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: explainFailure(err) };
      }
    })();
    return availability;
  };

  const requireAvailable = async () => {
    const a = await available();
    if (!a.ok) throw new KeychainUnavailableError(a.reason ?? 'unknown reason');
  };

  return {
    available,
    async get(account) {
      if (!(await available()).ok) return undefined;
      try {
        const e = await entry(account);
        const v = await withTimeout((signal) => e.getPassword(signal));
        if (v) registerSecret(v);
        return v ?? undefined;
      } catch {
        // A read failure after a successful probe behaves like "not stored":
        // callers then try the env fallback.
        return undefined;
      }
    },
    async set(account, value) {
      await requireAvailable();
      try {
        const e = await entry(account);
        await withTimeout((signal) => e.setPassword(value, signal));
        registerSecret(value);
      } catch (err) {
        throw new KeychainUnavailableError(explainFailure(err));
      }
    },
    async accounts() {
      await requireAvailable();
      mod ??= import('@napi-rs/keyring');
      const { findCredentialsAsync } = await mod;
      try {
        const found = await withTimeout((signal) => findCredentialsAsync(service, undefined, signal));
        return found.map((c) => c.account);
      } catch (err) {
        throw new KeychainUnavailableError(explainFailure(err));
      }
    },
    async delete(account) {
      await requireAvailable();
      try {
        const e = await entry(account);
        return await withTimeout((signal) => e.deleteCredential(signal));
      } catch (err) {
        throw new KeychainUnavailableError(explainFailure(err));
      }
    },
  };
}

/** An in-process store for unit tests of other areas (never used by the CLI). */
export function createMemorySecretStore(initial: Partial<Record<SecretAccount, string>> = {}): SecretStore {
  const m = new Map<string, string>(Object.entries(initial).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return {
    available: async () => ({ ok: true }),
    get: async (a) => m.get(a),
    set: async (a, v) => void m.set(a, v),
    delete: async (a) => m.delete(a),
    accounts: async () => [...m.keys()],
  };
}

function fromEnv(names: readonly string[], env: NodeJS.ProcessEnv): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value) return { name, value };
  }
  return undefined;
}

/** Keychain, then GNS3_COPILOT_API_KEY, then OPENAI_API_KEY. */
export async function resolveLlmApiKey(store: SecretStore, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const v = (await store.get('llm_api_key')) ?? fromEnv(SECRET_ENV.llm_api_key, env)?.value;
  registerSecret(v);
  return v;
}

/** Keychain, then GNS3_USER/GNS3_PASSWORD; each half falls back on its own. */
export async function resolveGns3Credentials(
  store: SecretStore,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ username: string; password: string } | undefined> {
  const username = (await store.get('gns3_username')) ?? fromEnv(SECRET_ENV.gns3_username, env)?.value;
  const password = (await store.get('gns3_password')) ?? fromEnv(SECRET_ENV.gns3_password, env)?.value;
  registerSecret(password);
  if (!username || password === undefined) return undefined;
  return { username, password };
}

/** Where a secret would come from right now, for `auth status` and `doctor` (never the value). */
export async function describeSecretSource(
  store: SecretStore,
  account: 'llm_api_key' | 'gns3_username' | 'gns3_password',
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stored: boolean; source?: string }> {
  if (await store.get(account)) return { stored: true, source: 'keychain' };
  const e = fromEnv(SECRET_ENV[account], env);
  if (e) return { stored: true, source: `env ${e.name}` };
  return { stored: false };
}
