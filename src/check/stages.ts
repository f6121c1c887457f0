/**
 * Stages in a check file (`stages: [{name, checks}, …]`): picking the one `--stage NAME` runs,
 * per-stage counts for the report, and `check --init --stage NAME` writing a stage from the live
 * lab into a new file or appending it to an existing one (a plain `checks:` file becomes a staged
 * file whose first stage is named after the file). The checks themselves run as one list
 * (./run.ts): stages only group the results.
 */
import { basename } from 'node:path';
import { Document, isMap, isSeq, parseDocument, type Node, type YAMLMap } from 'yaml';
import { UsageError } from '../errors.js';
import { parseCheckText } from './load.js';
import { MAX_CHECK_FILE_BYTES } from './read-file.js';
import { summarize, type CheckReport, type StageSummary } from './run.js';
import { MAX_STAGE_NAME, type Check, type CheckFile, type CheckInput } from './schema.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/** The checks of the stage `--stage NAME` names (case-insensitive); an unknown name lists the stages. */
export function pickStage(file: CheckFile, name: string, source: string): Check[] {
  if (!file.stages) throw new UsageError(`--stage ${name}: ${source} has no stages (it lists plain "checks:")`);
  const stage = file.stages.find((s) => same(s.name, name.trim()));
  if (!stage) throw new UsageError(`--stage: no stage named "${name}" in ${source} (stages: ${list(file.stages.map((s) => s.name))})`);
  return stage.checks;
}

/** Each check's stage name (undefined for a plain file), by the identity of the parsed check. */
export function stageNames(file: CheckFile, checks: Check[]): (string | undefined)[] {
  const of = new Map<Check, string>();
  for (const s of file.stages ?? []) for (const c of s.checks) of.set(c, s.name);
  return checks.map((c) => of.get(c));
}

/** The report with each check's `stage` and a `stages` summary (the report unchanged for a plain file). */
export function withStages(r: CheckReport, names: (string | undefined)[]): CheckReport {
  if (names.every((n) => n === undefined)) return r;
  const checks = r.checks.map((c, i) => ({ ...c, stage: names[i]! }));
  const stages: StageSummary[] = [...new Set(names as string[])].map((name) => {
    const { passed, failed, errors, score, max_score } = summarize(
      r.project,
      checks.filter((c) => c.stage === name),
    );
    return { name, passed, failed, errors, score, max_score };
  });
  return { ...r, checks, stages };
}

/** A stage name typed on the command line: the rules a file's stage names follow. */
export function checkStageName(name: string): string {
  const n = name.trim();
  if (n === '' || /[\u0000-\u001f\u007f]/.test(name) || n.length > MAX_STAGE_NAME)
    throw new UsageError(`--stage: a stage name is one line of 1..${MAX_STAGE_NAME} characters`);
  return n;
}

/** The first stage's name when a plain `checks:` file gets a second stage: the file's name without its extension. */
export function firstStageName(path: string): string {
  const stem = basename(path)
    .replace(/\.(ya?ml|json)$/i, '')
    .trim();
  return stem === '' ? 'checks' : stem.slice(0, MAX_STAGE_NAME);
}

/** One check per line in YAML (`- interface: {device: R1, name: eth0, …}`), as an instructor edits it. */
export function flowChecks(seq: unknown): void {
  if (!isSeq(seq)) return;
  for (const item of seq.items) {
    if (!isMap(item)) continue;
    for (const pair of item.items) if (isMap(pair.value)) pair.value.flow = true;
  }
}

const HEADER = '# written by gns3-copilot check --init from the live lab: edit freely\n';

/** A new staged file holding one stage. */
export function stagedFileYaml(project: string, stage: string, checks: CheckInput[]): string {
  const doc = new Document({ project, stages: [{ name: stage, checks }] });
  flowChecks(doc.getIn(['stages', 0, 'checks'], true));
  return `${HEADER}${doc.toString({ lineWidth: 0 })}`;
}

/**
 * The existing file parsed (a bad file is refused) and its stage names (a plain file's one stage
 * named after the file); a stage of that name already there is refused.
 */
export function appendable(text: string, source: string, stage: string): { file: CheckFile; names: string[] } {
  const file = parseCheckText(text, source);
  const names = file.stages?.map((s) => s.name) ?? [firstStageName(source)];
  if (names.some((n) => same(n, stage)))
    throw new UsageError(
      `check --init: ${source} already has a stage "${stage}" (stages: ${list(names)}); name a new one (nothing written)`,
    );
  return { file, names };
}

/**
 * The existing file's text with the stage appended (its comments and order kept, its spacing as
 * the yaml printer writes it). The
 * existing file must be a valid check file and must not have a stage of that name; the result is
 * checked again against every bound of a check file, so nothing is written that `check` refuses.
 */
export function appendStageYaml(text: string, source: string, stage: string, checks: CheckInput[]): string {
  const { file, names } = appendable(text, source, stage);
  const doc = parseDocument(text);
  if (!file.stages) {
    const plain = doc.get('checks', true) as Node;
    doc.delete('checks');
    const first = doc.createNode({ name: names[0] }) as YAMLMap;
    first.set('checks', plain);
    doc.set('stages', doc.createNode([first]));
  }
  const added = doc.createNode({ name: stage, checks }) as YAMLMap;
  flowChecks(added.get('checks', true));
  (doc.get('stages', true) as { add(n: unknown): void }).add(added);
  const out = doc.toString({ lineWidth: 0 });
  if (Buffer.byteLength(out) > MAX_CHECK_FILE_BYTES)
    throw new UsageError(`check --init: ${source} would be over the 1 MB a check file may be (nothing written)`);
  parseCheckText(out, source);
  return out;
}
