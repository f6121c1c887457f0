/**
 * Reading a check file (YAML, or JSON which is YAML too) and validating checks
 * against the schema, with errors that name the line and the field:
 * `checks.yaml:7: checks[2].interface.state: expected "up" or "down"`.
 * Each check is validated against the schema of its one kind, so a mistake is
 * reported in terms of that kind, not as "matched no union member".
 */
import { CST, Lexer, LineCounter, parseDocument, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { UsageError } from '../errors.js';
import { readCheckFileText } from './read-file.js';
import {
  KINDS,
  MAX_CHECKS,
  MAX_STAGE_NAME,
  bgpPeerCheck,
  checkFileSchema,
  commandCheck,
  configCheck,
  interfaceCheck,
  linkCheck,
  nodeCheck,
  ospfNeighborCheck,
  pingCheck,
  routeCheck,
  type Check,
  type CheckFile,
  type CheckKind,
} from './schema.js';

const BODY: Record<CheckKind, z.ZodType> = {
  node: nodeCheck,
  link: linkCheck,
  interface: interfaceCheck,
  ospf_neighbor: ospfNeighborCheck,
  bgp_peer: bgpPeerCheck,
  route: routeCheck,
  ping: pingCheck,
  config: configCheck,
  command: commandCheck,
};

export type Path = (string | number)[];

export interface CheckIssue {
  path: Path;
  message: string;
}

export function formatPath(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out || '(top level)';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates one check; the first problem with its path (relative to `at`) or the parsed check. */
export function validateCheck(raw: unknown, at: Path = []): { ok: true; check: Check } | { ok: false; issue: CheckIssue } {
  if (!isRecord(raw)) return { ok: false, issue: { path: at, message: `a check is an object with one of ${KINDS.join(', ')}` } };
  const kinds = KINDS.filter((k) => k in raw);
  const extra = Object.keys(raw).filter((k) => !(KINDS as readonly string[]).includes(k) && k !== 'name' && k !== 'points');
  if (extra.length > 0) return { ok: false, issue: { path: [...at, extra[0]!], message: `unknown key (kinds: ${KINDS.join(', ')})` } };
  if (kinds.length !== 1) {
    const message = kinds.length === 0 ? `no kind: one of ${KINDS.join(', ')}` : `one kind per check (found ${kinds.join(', ')})`;
    return { ok: false, issue: { path: at, message } };
  }
  const kind = kinds[0]!;
  if (raw.name !== undefined && (typeof raw.name !== 'string' || raw.name.trim() === ''))
    return { ok: false, issue: { path: [...at, 'name'], message: 'a non-empty string' } };
  const points = raw.points ?? 1;
  if (typeof points !== 'number' || !Number.isInteger(points) || points < 0 || points > 1000)
    return { ok: false, issue: { path: [...at, 'points'], message: 'an integer 0..1000' } };
  const body = BODY[kind].safeParse(raw[kind]);
  if (!body.success) {
    const i = body.error.issues[0]!;
    return { ok: false, issue: { path: [...at, kind, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], message: i.message } };
  }
  const check = { ...(raw.name !== undefined ? { name: raw.name.trim() } : {}), points, [kind]: body.data } as Check;
  return { ok: true, check };
}

type Validated<T> = { ok: true; value: T } | { ok: false; issue: CheckIssue };
const problem = (path: Path, message: string) => ({ ok: false as const, issue: { path, message } });

/** Validates a list of checks at `at` (non-empty); the first problem or the parsed checks. */
function validateChecks(raw: unknown, at: Path): Validated<Check[]> {
  if (!Array.isArray(raw) || raw.length === 0) return problem(at, 'a non-empty list of checks');
  const checks: Check[] = [];
  for (const [i, c] of raw.entries()) {
    const r = validateCheck(c, [...at, i]);
    if (!r.ok) return r;
    checks.push(r.check);
  }
  return { ok: true, value: checks };
}

/** A stage's name: one line of text, unique in the file (case-insensitive, as `--stage` matches it). */
function stageNameProblem(name: unknown, seen: Map<string, number>): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'a stage needs a name (a non-empty string)';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a stage name is one line of text';
  if (name.trim().length > MAX_STAGE_NAME) return `a stage name is at most ${MAX_STAGE_NAME} characters`;
  const other = seen.get(name.trim().toLowerCase());
  return other === undefined ? undefined : `duplicate stage name "${name.trim()}" (also stages[${other}])`;
}

/** Validates `stages: [{name, checks}, …]`; the file's check bound counts every stage's checks. */
function validateStages(raw: unknown): Validated<{ name: string; checks: Check[] }[]> {
  if (!Array.isArray(raw) || raw.length === 0) return problem(['stages'], 'a non-empty list of stages ({name, checks})');
  const total = raw.reduce<number>((n, s) => n + (isRecord(s) && Array.isArray(s.checks) ? s.checks.length : 0), 0);
  if (total > MAX_CHECKS) return problem(['stages'], `at most ${MAX_CHECKS} checks in a file (this one has ${total})`);
  const seen = new Map<string, number>();
  const stages: { name: string; checks: Check[] }[] = [];
  for (const [i, s] of raw.entries()) {
    if (!isRecord(s)) return problem(['stages', i], 'a stage is a mapping {name, checks}');
    const extra = Object.keys(s).find((k) => k !== 'name' && k !== 'checks');
    if (extra !== undefined) return problem(['stages', i, extra], 'unknown key (expected name, checks)');
    const bad = stageNameProblem(s.name, seen);
    if (bad !== undefined) return problem(['stages', i, ...(s.name === undefined ? [] : ['name'])], bad);
    const name = (s.name as string).trim();
    seen.set(name.toLowerCase(), i);
    const checks = validateChecks(s.checks, ['stages', i, 'checks']);
    if (!checks.ok) return checks;
    stages.push({ name, checks: checks.value });
  }
  return { ok: true, value: stages };
}

/** Validates a whole file's value: `{project?, checks:[…]}` or `{project?, stages:[{name, checks}, …]}`. */
export function validateCheckFile(raw: unknown): { ok: true; file: CheckFile } | { ok: false; issue: CheckIssue } {
  if (!isRecord(raw)) return problem([], 'expected a mapping with "checks:" or "stages:" (and optionally "project:")');
  for (const k of Object.keys(raw))
    if (k !== 'project' && k !== 'checks' && k !== 'stages') return problem([k], 'unknown key (expected project, checks or stages)');
  if (raw.project !== undefined && (typeof raw.project !== 'string' || raw.project.trim() === ''))
    return problem(['project'], 'a project name or id');
  const project = raw.project !== undefined ? { project: raw.project } : {};
  if (raw.stages !== undefined) {
    if (raw.checks !== undefined) return problem(['stages'], 'a file has "checks:" or "stages:", not both');
    const stages = validateStages(raw.stages);
    if (!stages.ok) return stages;
    const parsed = checkFileSchema.parse({ ...project, checks: stages.value.flatMap((s) => s.checks), stages: stages.value });
    // one object per check: a stage's checks are the very ones in `checks` (the run maps results back to stages)
    return { ok: true, file: { ...parsed, checks: parsed.stages!.flatMap((s) => s.checks) } };
  }
  if (Array.isArray(raw.checks) && raw.checks.length > MAX_CHECKS)
    return problem(['checks'], `at most ${MAX_CHECKS} checks in a file (this one has ${raw.checks.length})`);
  const checks = validateChecks(raw.checks, ['checks']);
  if (!checks.ok) return checks;
  return { ok: true, file: checkFileSchema.parse({ ...project, checks: checks.value }) };
}

/** The 1-based line of the deepest YAML node on `path` that exists. */
function lineOf(doc: Document, counter: LineCounter, path: Path): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
  }
  return undefined;
}

/** How deep a check file may nest (as nestedTooDeep counts); a real one needs about six. */
export const MAX_NESTING = 64;
/** Alias expansions a check file may make (the yaml package's guard against alias bombs). */
export const MAX_ALIAS_COUNT = 100;

/**
 * The first line where the text nests deeper than MAX_NESTING, counting each column of indentation,
 * each block indicator (`-`, `?`, `:`) and each open bracket as a level: never less than the real
 * depth. From the yaml lexer, which is iterative — its parser recurses per level, so 500,000
 * brackets cost it half a minute and overflow the stack.
 */
function nestedTooDeep(text: string): number | undefined {
  let flow = 0;
  let indent = 0;
  let inline = 0;
  let lineStart = true;
  let scalarNext = false;
  let line = 1;
  for (const tok of new Lexer().lex(text)) {
    if (scalarNext) {
      // a scalar's source follows its marker; a block scalar's lines are not indentation
      scalarNext = false;
      for (const ch of tok) if (ch === '\n') line++;
      continue;
    }
    const type = CST.tokenType(tok);
    if (type === 'newline') {
      line++;
      [lineStart, indent, inline] = [true, 0, 0];
      continue;
    }
    if (type === 'space') {
      if (lineStart) indent = tok.length;
      continue;
    }
    lineStart = false;
    if (type === 'scalar') scalarNext = true;
    else if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
    else if (type === 'flow-seq-end' || type === 'flow-map-end') flow = Math.max(0, flow - 1);
    else if (flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) inline++;
    if (indent + inline + flow > MAX_NESTING) return line;
  }
  return undefined;
}

/** Parses check-file text; a syntax or schema problem is a UsageError naming the line and field. */
export function parseCheckText(text: string, source: string): CheckFile {
  const deep = nestedTooDeep(text);
  if (deep !== undefined)
    throw new UsageError(`${source}:${deep}: nested deeper than ${MAX_NESTING} levels (indentation, '-', ':' and brackets)`);
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = counter.linePos(e.pos[0]).line;
    throw new UsageError(`${source}:${line}: ${e.message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // toJS throws on a document that parsed when an alias expands past the count (an alias bomb)
    const m = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      /alias/i.test(m) ? `${source}: YAML aliases expand too much (at most ${MAX_ALIAS_COUNT} expansions)` : `${source}: ${m}`,
    );
  }
  const r = validateCheckFile(value);
  if (!r.ok) {
    const line = lineOf(doc, counter, r.issue.path);
    throw new UsageError(`${source}${line ? `:${line}` : ''}: ${formatPath(r.issue.path)}: ${r.issue.message}`);
  }
  return r.file;
}

/** Reads (a regular file, at most 1 MB: ./read-file.ts) and parses a check file. */
export async function loadCheckFile(path: string): Promise<CheckFile> {
  return parseCheckText(await readCheckFileText(path), path);
}
