/**
 * `gns3-copilot doctor`: one ✓/✗ line per check, so a student (or a CI job)
 * sees at once what is missing. Required checks decide the exit code: the
 * first failing one maps to its exit code (config, data directory, Node and
 * mcp_servers entries 2, controller and its login 3, LLM 4). Warnings (!) never
 * fail the run.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { settingsSchema, type Settings } from '../config/schema.js';
import { loadSettings } from '../config/load.js';
import { dataDir } from '../config/paths.js';
import { openSecretStore, resolveLlmApiKey, resolveGns3Credentials, describeSecretSource, NO_KEYCHAIN_HINT } from '../config/secrets.js';
import { ExitCode, errorMessage } from '../errors.js';
import { jsonText } from '../output/json-text.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { CheckResult } from '../core/check-result.js';
import { count } from '../core/plural.js';

const MIN_NODE: [number, number] = [20, 19];

export function checkNode(version = process.versions.node): CheckResult {
  const [maj = 0, min = 0] = version.split('.').map(Number);
  const ok = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1]);
  const detail = `Node ${version} (needs >= ${MIN_NODE.join('.')})`;
  return { name: 'node', ok, required: true, detail, ...(ok ? {} : { exitCode: ExitCode.Usage }) };
}

export function onPath(bin: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, bin);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function checkController(settings: Settings): Promise<CheckResult> {
  const name = 'controller';
  const store = openSecretStore();
  const credentials = await resolveGns3Credentials(store).catch(() => undefined);
  const source = await credentialSource(store);
  try {
    const { probeController } = await import('../gns3/probe.js');
    const r = await probeController(settings.server, {
      insecure: settings.insecure,
      timeoutMs: settings.connect_timeout_ms,
      // v3 needs a login for everything but /version: a ✓ must mean the next run can log in
      login: true,
      ...(credentials ? { credentials } : {}),
    });
    const login = r.user ? `, logged in as ${r.user}${source ? ` (${source})` : ''}` : '';
    return { name, ok: true, required: true, detail: `GNS3 controller at ${settings.server}: API ${r.api}, version ${r.version}${login}` };
  } catch (err) {
    const detail = `${errorMessage(err)}${credentials && source ? ` (${source})` : ''}`;
    return { name, ok: false, required: true, detail, exitCode: ExitCode.Controller };
  }
}

/** Where the GNS3 credentials come from, e.g. "credentials from keychain" (never the values). */
async function credentialSource(store: ReturnType<typeof openSecretStore>): Promise<string | undefined> {
  const [user, password] = await Promise.all([
    describeSecretSource(store, 'gns3_username').catch(() => ({ stored: false, source: undefined })),
    describeSecretSource(store, 'gns3_password').catch(() => ({ stored: false, source: undefined })),
  ]);
  if (!user.source || !password.source) return undefined;
  if (user.source === password.source) return `credentials from ${user.source}`;
  if (user.source.startsWith('env ') && password.source.startsWith('env '))
    return `credentials from env ${user.source.slice(4)}/${password.source.slice(4)}`;
  return `user from ${user.source}, password from ${password.source}`;
}

/** GET <baseURL>/models with the key: proves reachability and that the key is accepted. */
async function checkLlm(settings: Settings): Promise<CheckResult> {
  const name = 'llm';
  let where = 'LLM endpoint';
  try {
    const { resolveProviderEndpoint, KEYLESS_PROVIDERS } = await import('../agent/providers.js');
    const ep = resolveProviderEndpoint(settings);
    where = `LLM endpoint ${ep.baseURL} (${ep.provider})`;
    const key = await resolveLlmApiKey(openSecretStore());
    if (!key && !KEYLESS_PROVIDERS.has(ep.provider)) {
      return {
        name,
        ok: false,
        required: true,
        detail: `${where}: no API key (gns3-copilot auth login, or GNS3_COPILOT_API_KEY / OPENAI_API_KEY)`,
        exitCode: ExitCode.Provider,
      };
    }
    const res = await fetch(`${ep.baseURL}/models`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(settings.connect_timeout_ms),
    });
    if (res.status === 401 || res.status === 403) {
      return { name, ok: false, required: true, detail: `${where}: API key rejected (HTTP ${res.status})`, exitCode: ExitCode.Provider };
    }
    if (!res.ok)
      return { name, ok: false, required: true, detail: `${where}: HTTP ${res.status} on GET /models`, exitCode: ExitCode.Provider };
    const body = (await res.json().catch(() => undefined)) as { data?: { id?: unknown }[] } | undefined;
    const ids = Array.isArray(body?.data) ? body.data.map((m) => String(m.id)) : [];
    const listed = ids.length === 0 || ids.includes(ep.model);
    return {
      name,
      ok: true,
      required: true,
      detail: `${where}: reachable, key accepted${listed ? `, model ${ep.model}` : `; note: model ${ep.model} is not in its list of ${ids.length} models`}`,
    };
  } catch (err) {
    const cause = networkCode(err);
    const msg =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${settings.connect_timeout_ms} ms`
        : cause
          ? `unreachable (${cause})`
          : causeChain(err);
    return { name, ok: false, required: true, detail: `${where}: ${msg}`, exitCode: ExitCode.Provider };
  }
}

/** ECONNREFUSED & co. from fetch's nested causes (undici wraps them, sometimes in an AggregateError). */
function networkCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; e && i < 6; i++) {
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
    const inner = Array.isArray(e.errors) ? (e.errors[0] as typeof e) : undefined;
    if (inner && typeof inner.code === 'string') return inner.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.message) parts.push(e.message);
  }
  return parts.join(': ') || errorMessage(err);
}

async function checkKeychain(): Promise<CheckResult> {
  const store = openSecretStore();
  const a = await store.available();
  if (!a.ok) return { name: 'keychain', ok: false, required: false, detail: `OS keychain unavailable: ${a.reason}; ${NO_KEYCHAIN_HINT}` };
  const key = await describeSecretSource(store, 'llm_api_key');
  return {
    name: 'keychain',
    ok: true,
    required: false,
    detail: `OS keychain available (Secret Service); LLM API key ${key.stored ? `set (${key.source})` : 'not set'}`,
  };
}

function checkDataDir(settings: Settings): CheckResult {
  const dir = dataDir(settings.data_dir);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return { name: 'data', ok: true, required: true, detail: `data directory ${dir} is writable` };
  } catch (err) {
    return { name: 'data', ok: false, required: true, detail: `data directory ${dir}: ${errorMessage(err)}`, exitCode: ExitCode.Usage };
  }
}

function checkTools(): CheckResult[] {
  const tshark = onPath('tshark');
  return [
    {
      name: 'tshark',
      ok: tshark !== undefined,
      required: false,
      detail: tshark
        ? `tshark found (${tshark}) for packet analysis`
        : 'tshark not on PATH: packet_analysis will not work (apt-get install tshark)',
    },
  ];
}

export async function runDoctor(flags: Record<string, unknown>, opts: Record<string, unknown> = {}): Promise<number> {
  const results: CheckResult[] = [checkNode()];
  let settings: Settings;
  try {
    const loaded = await loadSettings({ flags });
    settings = loaded.settings;
    const notes = [
      loaded.files.project ? `project file ${loaded.files.project}` : '',
      loaded.locked.length ? `locked by the system config: ${loaded.locked.join(', ')}` : '',
      ...loaded.warnings,
    ].filter(Boolean);
    results.push({ name: 'config', ok: true, required: true, detail: `config valid${notes.length ? ` (${notes.join('; ')})` : ''}` });
  } catch (err) {
    results.push({ name: 'config', ok: false, required: true, detail: errorMessage(err), exitCode: ExitCode.Usage });
    // Keep checking what we can: the flags alone (they may be fine), else the defaults.
    settings = await loadSettings({ flags, env: {}, cwd: '/', systemConfigFile: '/nonexistent', userConfigFile: '/nonexistent' })
      .then((l) => l.settings)
      .catch(() => settingsSchema.parse({}));
  }
  const [keychain, controller, llm, mcp] = await Promise.all([
    checkKeychain(),
    checkController(settings),
    checkLlm(settings),
    import('../mcp/client/doctor.js').then((m) => m.checkMcpServers(settings)),
  ]);
  results.push(keychain, controller, llm, checkDataDir(settings), ...checkTools(), ...mcp);
  // where the topology comes from needs the controller: after a failed controller check it would only repeat it
  if (controller.ok) {
    const topology = await import('./doctor-topology.js').then((m) => m.checkTopologySource(settings));
    if (topology) results.push(topology);
  }

  const failed = results.filter((r) => r.required && !r.ok);
  if (opts.json) {
    process.stdout.write(`${jsonText({ ok: failed.length === 0, checks: results.map(({ exitCode: _e, ...r }) => r) })}\n`);
  } else {
    for (const r of results) process.stdout.write(`${r.ok ? '✓' : r.required ? '✗' : '!'} ${sanitizeLine(r.detail)}\n`);
    process.stdout.write(failed.length === 0 ? 'all required checks passed\n' : `${count(failed.length, 'required check')} failed\n`);
  }
  return failed.length === 0 ? 0 : (failed[0]!.exitCode ?? ExitCode.Internal);
}
