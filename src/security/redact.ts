/**
 * Secret redaction: the one filter every piece of external text passes before
 * it reaches an output (events, --json, stderr, TUI), the sessions DB, an
 * error message or the log. Two kinds of secrets are removed:
 *  - known values: the LLM API key, GNS3 password/token and device password
 *    (registered when read from the keychain or env) and the value of every
 *    env var whose name ends in API_KEY / PASSWORD / PASSWD / TOKEN / SECRET;
 *  - shapes: Authorization headers, Bearer tokens, `sk-…` API keys,
 *    `user:pass@` in URLs, and `api_key=` / `password:` style pairs.
 * Values shorter than MIN_SECRET chars are not registered: replacing every
 * "cisco" in device output would make it unreadable.
 */
import { mapStrings } from './map-strings.js';
export const REDACTED = '[REDACTED]';
export const MIN_SECRET = 6;

const known = new Set<string>();
/** literal forms to replace, longest first (a secret may contain a shorter one) */
let literals: string[] = [];

function rebuild(): void {
  const forms = new Set<string>();
  for (const s of known) {
    forms.add(s);
    // JSON-escaped (serialised checkpoints, --json) and URL-encoded forms
    const json = JSON.stringify(s).slice(1, -1);
    if (json !== s) forms.add(json);
    const url = encodeURIComponent(s);
    if (url !== s) forms.add(url);
  }
  literals = [...forms].sort((a, b) => b.length - a.length);
}

/** Every value registered here is removed from outputs, the DB and logs. */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < MIN_SECRET || known.has(value)) return;
  known.add(value);
  rebuild();
}

const SECRET_ENV_NAME = /(API_KEY|APIKEY|PASSWORD|PASSWD|TOKEN|SECRET)$/i;
export function registerSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): void {
  for (const [k, v] of Object.entries(env)) if (SECRET_ENV_NAME.test(k)) registerSecret(v);
}
registerSecretsFromEnv();

// Token characters never include quotes, backslashes or whitespace, so a
// replacement inside serialised JSON keeps it valid.
const TOKEN = `[^\\s"'\\\\,;&<>]`;
type Replacer = (m: string, ...groups: string[]) => string;
const SHAPES: [RegExp, Replacer][] = [
  // Authorization: Bearer xyz / "authorization":"Basic xyz" / Proxy-Authorization=xyz
  [
    new RegExp(`\\b((?:proxy-)?authorization)(["']?[ \\t]*[:=][ \\t]*["']?)(?:(bearer|basic|token|digest)[ \\t]+)?${TOKEN}+`, 'gi'),
    (_m, name, sep, scheme) => `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  ],
  [/\b(bearer)[ \t]+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}/gi, (_m, b) => `${b} ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, () => `sk-${REDACTED}`],
  // scheme://user:pass@host -> scheme://user:[REDACTED]@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:"'\\]*):([^\s/?#@"'\\]+)@/gi, (_m, scheme, user) => `${scheme}${user}:${REDACTED}@`],
  [
    new RegExp(
      `\\b(api[_-]?key|x-api-key|access[_-]?token|refresh[_-]?token|client[_-]?secret|password|passwd|secret)(["']?[ \\t]*[:=][ \\t]*["']?)(?!\\[REDACTED\\])(${TOKEN}{4,})`,
      'gi',
    ),
    (m, name, sep, value) =>
      // prose ("a secret: store it") is left alone; `key=v`, `"key": "v"` and credential-looking values are not
      /^pass/i.test(name) || sep.includes('=') || sep.includes('"') || sep.includes("'") || /[^A-Za-z]/.test(value)
        ? `${name}${sep}${REDACTED}`
        : m,
  ],
];

export function redact(text: string): string {
  if (!text) return text;
  let out = text;
  for (const s of literals) if (out.includes(s)) out = out.split(s).join(REDACTED);
  for (const [re, fn] of SHAPES) out = out.replace(re, fn as (substring: string, ...args: unknown[]) => string);
  return out;
}

/** Redacts every string inside a JSON-like value (event payloads, tool arguments). */
export function redactDeep<T>(value: T): T {
  return mapStrings(value, redact);
}

const KEYWORDS = [
  'authorization',
  'bearer',
  'basic',
  'sk-',
  'password',
  'passwd',
  'secret',
  'token',
  'api_key',
  'api-key',
  'apikey',
  'x-api-key',
  'access_token',
  'client_secret',
];
const SUSPICIOUS_LINE = /authorization|bearer|password|passwd|secret|token|api[_-]?key|:\/\/|sk-/i;

/** Could `word` be the first part of a registered secret or of a credential shape? */
function mightStart(word: string): boolean {
  if (!word) return false;
  if (word.includes('://')) return true;
  const w = word.slice(-128);
  const lower = w.toLowerCase();
  for (const k of KEYWORDS) for (let n = Math.min(k.length, lower.length); n >= 1; n--) if (lower.endsWith(k.slice(0, n))) return true;
  for (const l of literals) for (let n = Math.min(l.length, w.length); n >= 1; n--) if (w.endsWith(l.slice(0, n))) return true;
  return false;
}

/**
 * Streaming text (model deltas) may split a secret across chunks. push()
 * returns what is safe to show now: a line that looks like it carries a
 * credential is held until it ends; otherwise only a trailing word that could
 * begin a registered secret or a credential shape is held. flush() returns
 * the rest (at the end of the text).
 */
export class StreamRedactor {
  private pending = '';
  push(delta: string): string {
    this.pending += delta;
    const p = this.pending;
    const lineStart = p.lastIndexOf('\n') + 1;
    let cut: number;
    if (SUSPICIOUS_LINE.test(p.slice(lineStart)) && p.length - lineStart < 4096) cut = lineStart;
    else {
      const wordStart = p.search(/\S*$/);
      cut = mightStart(p.slice(wordStart)) && p.length - wordStart < 1024 ? wordStart : p.length;
    }
    if (cut <= 0) return '';
    this.pending = p.slice(cut);
    return redact(p.slice(0, cut));
  }
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return redact(rest);
  }
}

interface Serde {
  dumpsTyped(obj: unknown): Promise<[string, Uint8Array | string]>;
  loadsTyped(type: string, data: Uint8Array | string): Promise<unknown>;
}

/**
 * Wraps a LangGraph checkpoint serializer so nothing secret is written to the
 * sessions DB: checkpoints (messages), pending writes and recorded errors.
 */
export function redactingSerde<S extends Serde>(inner: S): S {
  const wrapped = Object.create(inner) as S;
  wrapped.dumpsTyped = async (obj: unknown) => {
    const [type, data] = await inner.dumpsTyped(obj);
    if (type !== 'json') return [type, data];
    const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
    const clean = redact(text);
    if (clean === text) return [type, data];
    return [type, typeof data === 'string' ? clean : new TextEncoder().encode(clean)];
  };
  return wrapped;
}
