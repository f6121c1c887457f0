/**
 * `gns3-copilot auth login|logout|status`. Secrets are read from stdin (piped)
 * or a hidden prompt, never from arguments (shell history, `ps`), and go only
 * to the OS keychain. Without a keychain nothing is written anywhere: we say
 * which env vars to use instead.
 */
import {
  openSecretStore,
  describeSecretSource,
  KeychainUnavailableError,
  NO_KEYCHAIN_HINT,
  KEYCHAIN_SERVICE,
  type SecretStore,
} from '../config/secrets.js';
import { AbortedError, UsageError } from '../errors.js';
import { jsonText } from '../output/json-text.js';
import { readAllStdin } from './main.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** Reads a line without echo from the terminal; Ctrl-C aborts (exit 130). */
async function promptHidden(question: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const { Writable } = await import('node:stream');
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  process.stderr.write(question);
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  muted = true;
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.on('SIGINT', () => reject(new AbortedError('Aborted: nothing was stored')));
      rl.on('close', () => reject(new AbortedError('Aborted: nothing was stored')));
      rl.question('', resolve);
    });
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

/** A secret typed at a hidden prompt (terminal) or piped on stdin. */
interface SecretInput {
  read(question: string, what: string, trim: boolean): Promise<string>;
}

/**
 * Piped stdin is read before the keychain is checked, so an empty pipe says "nothing on
 * stdin" whether or not a keychain exists; a terminal is asked only once storing can work.
 */
async function secretInput(store: SecretStore): Promise<SecretInput> {
  if (process.stdin.isTTY) {
    await requireKeychain(store);
    return { read: async (question, what, trim) => checkedSecret(await promptHidden(question), what, trim, 'at the prompt') };
  }
  const piped = (await readAllStdin()).replace(/\r?\n$/, '');
  return {
    read: async (_question, what, trim) => {
      const value = checkedSecret(piped, what, trim, 'on stdin');
      await requireKeychain(store);
      return value;
    },
  };
}

function checkedSecret(raw: string, what: string, trim: boolean, where: string): string {
  const value = trim ? raw.trim() : raw;
  if (value === '') throw new UsageError(`no ${what} ${where}; nothing was stored`);
  if (/[\r\n]/.test(value)) throw new UsageError(`the ${what} must be a single line; nothing was stored`);
  return value;
}

async function requireKeychain(store: SecretStore): Promise<void> {
  const a = await store.available();
  if (!a.ok) throw new KeychainUnavailableError(a.reason ?? 'unknown reason');
}

export async function authLogin(opts: Record<string, unknown>, args: string[] = []): Promise<number> {
  if (args.length > 0) {
    throw new UsageError('secrets are never taken from arguments (shell history, ps); pipe it: printf %s "$KEY" | gns3-copilot auth login');
  }
  const store = openSecretStore();
  const user = opts.gns3User as string | undefined;
  if (user !== undefined && user.trim() === '') throw new UsageError('--gns3-user: must not be empty');
  const input = await secretInput(store);
  if (user !== undefined) {
    const password = await input.read(`GNS3 password for ${user}: `, 'GNS3 password', false);
    await store.set('gns3_username', user.trim());
    await store.set('gns3_password', password);
    // Tokens issued for the previous user would log us in as them.
    const stale = ((await store.accounts?.()) ?? []).filter((a) => a.startsWith('gns3_token:'));
    for (const a of stale) await store.delete(a as `gns3_token:${string}`);
    out(`✓ GNS3 credentials for ${user.trim()} stored in the OS keychain (service ${KEYCHAIN_SERVICE})`);
    return 0;
  }
  if (opts.mcpToken) {
    const token = await input.read('Bearer token for gns3-copilot mcp --http: ', 'MCP token', true);
    await store.set('mcp_token', token);
    out(`✓ MCP server token stored in the OS keychain (service ${KEYCHAIN_SERVICE}); \`gns3-copilot mcp --http\` now requires it`);
    return 0;
  }
  const key = await input.read('LLM API key: ', 'API key', true);
  await store.set('llm_api_key', key);
  out(`✓ LLM API key stored in the OS keychain (service ${KEYCHAIN_SERVICE})`);
  return 0;
}

export async function authLogout(opts: Record<string, unknown>): Promise<number> {
  const store = openSecretStore();
  await requireKeychain(store);
  const both = !opts.llm && !opts.gns3;
  const targets: string[] = [];
  if (both || opts.llm) targets.push('llm_api_key');
  if (both) targets.push('mcp_token');
  if (both || opts.gns3) {
    targets.push('gns3_username', 'gns3_password');
    targets.push(...((await store.accounts?.()) ?? []).filter((a) => a.startsWith('gns3_token:')));
  }
  const deleted: string[] = [];
  for (const a of targets) if (await store.delete(a as 'llm_api_key')) deleted.push(a.startsWith('gns3_token:') ? 'gns3 token' : a);
  out(deleted.length > 0 ? `✓ deleted from the OS keychain: ${[...new Set(deleted)].join(', ')}` : 'nothing was stored in the OS keychain');
  return 0;
}

export async function authStatus(opts: Record<string, unknown>): Promise<number> {
  const store = openSecretStore();
  const avail = await store.available();
  const accounts = ['llm_api_key', 'gns3_username', 'gns3_password'] as const;
  const secrets = Object.fromEntries(await Promise.all(accounts.map(async (a) => [a, await describeSecretSource(store, a)] as const)));
  const tokens = avail.ok ? ((await store.accounts?.().catch(() => [])) ?? []).filter((a) => a.startsWith('gns3_token:')).length : 0;
  if (opts.json) {
    out(
      jsonText({
        keychain: { available: avail.ok, ...(avail.reason ? { reason: avail.reason } : {}), service: KEYCHAIN_SERVICE },
        secrets,
        gns3_tokens: tokens,
      }),
    );
    return 0;
  }
  out(
    avail.ok
      ? `keychain       ✓ available (Secret Service, service ${KEYCHAIN_SERVICE})`
      : `keychain       ✗ unavailable: ${avail.reason}; ${NO_KEYCHAIN_HINT}`,
  );
  const label: Record<(typeof accounts)[number], string> = {
    llm_api_key: 'LLM API key',
    gns3_username: 'GNS3 user',
    gns3_password: 'GNS3 password',
  };
  for (const a of accounts) {
    const s = secrets[a]!;
    out(`${label[a].padEnd(14)} ${s.stored ? `✓ set (${s.source})` : '✗ not set'}`);
  }
  if (tokens > 0) out(`GNS3 tokens    ${tokens} cached (keychain)`);
  return 0;
}
