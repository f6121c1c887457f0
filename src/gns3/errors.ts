/**
 * Typed errors of the GNS3 client and the translation of server error bodies
 * (v2 `{message,status}`, v3 `{message}` / `{detail}`, text/plain, v3 422
 * Python-repr validation lists, v2 tracebacks) into one readable line.
 */
import { ControllerError, CopilotError } from '../errors.js';

/**
 * The controller answered with an HTTP error. `message` is the server's own text
 * (made readable), so tools can show e.g. "Port is already used" verbatim.
 * Extends ControllerError so an uncaught one exits 3 at the CLI boundary.
 */
export class Gns3ApiError extends ControllerError {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${serverMessage} (HTTP ${status} on ${method} ${stripQuery(path)})`);
  }
}

/** A name or id the user gave does not match anything in the project. */
export class Gns3NotFoundError extends CopilotError {}

function stripQuery(path: string): string {
  const i = path.indexOf('?');
  return i < 0 ? path : path.slice(0, i);
}

const MAX_MESSAGE = 300;

function clip(text: string, max = MAX_MESSAGE): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Absolute server paths (POSIX or Windows) must not leak into user-facing text. */
function hidePaths(text: string): string {
  return text.replace(/(?:[A-Za-z]:\\|\/)(?:[\w.\-~ ]+[\\/])+[\w.\-~]*/g, '<path>');
}

/**
 * v2 unhandled errors put a whole Python traceback in `message`. Keep only the
 * final exception line, without paths: enough to act on, nothing to leak.
 */
export function summarizeTraceback(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const last = lines.at(-1) ?? '';
  const exception = last.startsWith('File ') ? '' : hidePaths(last);
  return exception ? `internal server error (${clip(exception, 160)})` : 'internal server error';
}

/**
 * v3 (pydantic) validation errors arrive as the Python repr of a list of dicts:
 * `[{'type': 'missing', 'loc': ('body', 'name'), 'msg': 'Field required', 'input': {}}]`.
 * Turn each entry into `body.name: Field required`.
 */
export function readablePydanticRepr(text: string): string | undefined {
  if (!/^\s*\[\s*\{/.test(text) || !text.includes("'msg'")) return undefined;
  const parts: string[] = [];
  const entry = /'loc':\s*\(([^)]*)\)[^{}]*?'msg':\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;
  for (const m of text.matchAll(entry)) {
    const loc = (m[1] ?? '')
      .split(',')
      .map((s) => s.trim().replace(/^'(.*)'$/, '$1'))
      .filter((s) => s !== '')
      .join('.');
    const msg = m[2] ?? m[3] ?? '';
    parts.push(loc ? `${loc}: ${msg}` : msg);
  }
  return parts.length > 0 ? `invalid request: ${parts.join('; ')}` : undefined;
}

/** FastAPI's own `{detail}` is a string or a list of `{loc:[…], msg}` objects. */
function readableDetail(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => {
      const o = (d ?? {}) as { loc?: unknown; msg?: unknown };
      const loc = Array.isArray(o.loc) ? o.loc.join('.') : '';
      const msg = typeof o.msg === 'string' ? o.msg : JSON.stringify(d);
      return loc ? `${loc}: ${msg}` : msg;
    });
    return parts.length ? `invalid request: ${parts.join('; ')}` : undefined;
  }
  return undefined;
}

/**
 * One line for an error response body, whatever its shape. `contentType` is the
 * response header (may be empty). Never returns an empty string.
 */
export function errorBodyMessage(status: number, body: string, contentType: string): string {
  const text = body.trim();
  if (text === '') return `HTTP ${status} with an empty body`;
  let parsed: unknown;
  if (contentType.includes('json') || text.startsWith('{')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const obj = parsed as { message?: unknown; detail?: unknown };
    if (typeof obj.message === 'string') {
      const msg = obj.message;
      if (msg.startsWith('Traceback')) return summarizeTraceback(msg);
      const repr = readablePydanticRepr(msg);
      if (repr) return clip(repr);
      return clip(hideSchemaDump(msg));
    }
    const detail = readableDetail(obj.detail);
    if (detail) return clip(detail);
    return clip(text, 200);
  }
  if (/^\s*</.test(text)) {
    return `HTTP ${status} with an HTML page (is this a GNS3 controller?)`;
  }
  if (text.startsWith('Traceback')) return summarizeTraceback(text);
  // aiohttp's text/plain "404: Not Found", uvicorn's "Internal Server Error"
  return clip(text.replace(/^\d{3}:\s*/, ''), 200);
}

/**
 * v2 schema errors quote the whole request as a Python repr:
 * "JSON schema error with API request '<url>' and JSON data '<repr>': <reason>".
 * The reason is what matters.
 */
function hideSchemaDump(msg: string): string {
  const m = /^JSON schema error with API request '[^']*' and JSON data '.*': (.+)$/s.exec(msg);
  if (m) return `invalid request: ${m[1]}`;
  return msg;
}
