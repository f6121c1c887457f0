/**
 * A narrow, safe wrapper around tshark: structured arguments only (never a shell,
 * never model-written argv), a wall-clock deadline, capped output, and validation of
 * display filters and `-e` field names before a capture is spent on them.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CopilotError } from '../errors.js';

export class TsharkError extends CopilotError {}

export interface TsharkResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout hit the cap and the process was stopped */
  truncated: boolean;
  timedOut: boolean;
}

let tsharkPathCache: string | null | undefined;

/** tshark from GNS3_COPILOT_TSHARK or PATH; undefined when not installed. */
export function findTshark(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GNS3_COPILOT_TSHARK) return executable(env.GNS3_COPILOT_TSHARK) ? env.GNS3_COPILOT_TSHARK : undefined;
  if (tsharkPathCache !== undefined) return tsharkPathCache ?? undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'tshark'))) return (tsharkPathCache = join(dir, 'tshark'));
  }
  tsharkPathCache = null;
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function requireTshark(): string {
  const path = findTshark();
  if (!path && process.env.GNS3_COPILOT_TSHARK)
    throw new TsharkError(`GNS3_COPILOT_TSHARK=${process.env.GNS3_COPILOT_TSHARK} is not an executable tshark`);
  if (!path) throw new TsharkError('tshark is not installed (Debian/Ubuntu: apt-get install tshark; macOS: brew install wireshark)');
  return path;
}

/** tshark's own chatter that says nothing about the request. */
function cleanStderr(s: string): string {
  return s
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^Running as user .* This could be dangerous\.$/.test(l.trim()))
    .join('\n')
    .trim();
}

export function runTshark(
  args: string[],
  opts: { timeoutMs: number; maxStdoutBytes?: number; signal?: AbortSignal },
): Promise<TsharkResult> {
  const bin = requireTshark();
  const max = opts.maxStdoutBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
    // -n everywhere: name resolution would send DNS queries from the user's machine.
    // (-G must be the first option, and resolves nothing.)
    const argv = args[0] === '-G' ? args : ['-n', ...args];
    const child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    const out: Buffer[] = [];
    let outLen = 0;
    let err = '';
    let truncated = false;
    let timedOut = false;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (outLen + chunk.length > max) {
        out.push(chunk.subarray(0, max - outLen));
        outLen = max;
        truncated = true;
        kill();
        return;
      }
      out.push(chunk);
      outLen += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 64 * 1024) err += chunk.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new TsharkError(`cannot run tshark: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: cleanStderr(err), truncated, timedOut });
    });
  });
}

// ------------------------------------------------------------ field names

let fieldsPromise: Promise<Set<string>> | undefined;

/** Every field and protocol name this tshark knows (`tshark -G fields`), read once per process. */
export function tsharkFieldNames(): Promise<Set<string>> {
  fieldsPromise ??= (async () => {
    const r = await runTshark(['-G', 'fields'], { timeoutMs: 30_000, maxStdoutBytes: 64 * 1024 * 1024 });
    if (r.code !== 0 || r.truncated) throw new TsharkError(`tshark -G fields failed: ${r.stderr || `exit ${r.code}`}`);
    const names = new Set<string>();
    for (const line of r.stdout.split('\n')) {
      const cols = line.split('\t');
      if ((cols[0] === 'F' || cols[0] === 'P') && cols[2]) names.add(cols[2]);
    }
    return names;
  })();
  fieldsPromise.catch(() => (fieldsPromise = undefined));
  return fieldsPromise;
}

/** Column pseudo-fields (`_ws.col.Info`…) work with -e but are not listed by -G fields. */
const COLUMN_FIELD = /^_ws\.col\.[A-Za-z][A-Za-z0-9_.]*$/;

export async function unknownFields(fields: string[]): Promise<string[]> {
  const known = await tsharkFieldNames();
  return fields.filter((f) => !known.has(f) && !COLUMN_FIELD.test(f));
}

// ------------------------------------------------------------ display filters

/** A pcap with a header and no packets: enough for tshark to compile a filter. */
const EMPTY_PCAP = Buffer.from('d4c3b2a1020004000000000000000000ffff000001000000', 'hex');

const filterVerdicts = new Map<string, string | null>();

/**
 * null when tshark accepts the display filter, else tshark's one-line reason.
 * Runs tshark against an empty pcap in `scratchDir` (cached per filter).
 */
export async function displayFilterError(filter: string, scratchDir: string, signal?: AbortSignal): Promise<string | null> {
  const cached = filterVerdicts.get(filter);
  if (cached !== undefined) return cached;
  const empty = join(scratchDir, 'empty.pcap');
  writeFileSync(empty, EMPTY_PCAP);
  const r = await runTshark(['-r', empty, '-Y', filter], { timeoutMs: 10_000, signal });
  const verdict = r.code === 0 ? null : firstErrorLine(r.stderr) || `tshark rejected the filter (exit ${r.code})`;
  if (filterVerdicts.size > 500) filterVerdicts.clear();
  filterVerdicts.set(filter, verdict);
  return verdict;
}

/** tshark error text without its "tshark: " prefix or the caret diagram. */
export function firstErrorLine(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.replace(/^tshark:\s*/, '').trim();
}
