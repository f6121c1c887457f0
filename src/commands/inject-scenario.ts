/**
 * `gns3-copilot inject --scenario ID (--device D | --link "A:p-B:p") [--set k=v …]` and
 * `inject --random N [--level L] [--seed S|per-project] [--allow-repeat]`, on the
 * project or on every project matching `--projects GLOB`: faults from the scenario
 * library without an LLM (src/scenarios). The plan is read from the live lab; `--yes`
 * is its one approval (for the whole class), without it the plan is printed and the
 * exit code is 6. Exit 0 when every fault was applied and recorded, 8 when some were
 * not, 2 for a request that cannot be placed (nothing sent). docs/checks-and-faults.md.
 */
import { randomInt } from 'node:crypto';
import type { Settings } from '../config/schema.js';
import { ExitCode, UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { runLimited } from '../core/run-limited.js';
import { interruptSignal } from '../core/interrupt.js';
import { checkProjectFlags, classProjectList, parseJobs } from '../gns3/class-projects.js';
import type { RawProject } from '../gns3/raw.js';
import { sanitizeText } from '../security/sanitize.js';
import { SessionStore } from '../sessions/store.js';
import type { Values } from '../scenarios/config-match.js';
import type { InjectRequest } from '../scenarios/plan.js';
import { classLine, reportText, type ProjectReport } from '../scenarios/report.js';

export interface InjectScenarioOptions {
  scenario?: string | undefined;
  random?: string | undefined;
  device?: string | undefined;
  link?: string | undefined;
  set: string[];
  difficulty?: string | undefined;
  seed?: string | undefined;
  allowRepeat: boolean;
  projects?: string | undefined;
  jobs?: string | undefined;
  yes: boolean;
  json: boolean;
  projectFromFlag: boolean;
}

function intIn(flag: string, v: string | undefined, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min || n > max) throw new UsageError(`${flag}: must be an integer ${min}..${max} (got "${v}")`);
  return n;
}

function parseSet(items: string[]): Values {
  const out: Values = {};
  for (const item of items) {
    const m = /^([a-z][a-z0-9_]*)=(.+)$/.exec(item.trim());
    if (!m) throw new UsageError(`--set: expected name=value with a snake_case name (got "${item}")`);
    out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/** The request as the library takes it, after the flags' own checks. */
export function requestOf(o: InjectScenarioOptions): InjectRequest & { perProjectSeed: boolean } {
  if (o.scenario !== undefined && o.random !== undefined) throw new UsageError('--scenario and --random: give one of them');
  if (o.device !== undefined && o.link !== undefined)
    throw new UsageError('--device and --link: a fault goes on a device or on a link, not both');
  if (o.scenario !== undefined) {
    for (const [flag, given] of [
      ['--seed', o.seed !== undefined],
      ['--allow-repeat', o.allowRepeat],
      ['--level easy|medium|hard', o.difficulty !== undefined],
    ] as const)
      if (given) throw new UsageError(`${flag} chooses what --random draws; --scenario names the scenario itself`);
  }
  const random = o.random !== undefined ? intIn('--random', o.random, 1, 50, 1) : undefined;
  const perProjectSeed = o.seed === 'per-project';
  return {
    scenario: o.scenario,
    random,
    device: o.device,
    link: o.link,
    set: parseSet(o.set),
    difficulty: o.difficulty as InjectRequest['difficulty'],
    // without --seed a draw gets one of its own, printed so the plan can be applied as shown
    seed: random === undefined ? undefined : perProjectSeed ? undefined : (o.seed ?? String(randomInt(1, 1_000_000))),
    allowRepeat: o.allowRepeat,
    perProjectSeed,
  };
}

export async function injectScenarioCommand(o: InjectScenarioOptions, settings: Settings): Promise<number> {
  const req = requestOf(o);
  const jobs = parseJobs(o.jobs);
  if (!o.projects && !settings.project)
    throw new UsageError('inject --scenario/--random: which project? pass --project NAME or --projects GLOB');
  checkProjectFlags(o.projects, o.projectFromFlag);
  const log = createLogger(settings.log_level);
  const { signal } = interruptSignal();
  const [{ createKeychainGns3Client }, { ToolRegistry }, { allTools }, { loadSkills }, { runProject }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../tools/registry.js'),
    import('../tools/index.js'),
    import('../skills/loader.js'),
    import('../scenarios/run.js'),
  ]);
  const client = createKeychainGns3Client(settings, log);
  const sessions = await SessionStore.open(settings.data_dir);
  try {
    // a class: the controller's list read once, each project opened as listed
    const projects: (string | RawProject)[] = o.projects ? await classProjectList(client, o.projects, signal) : [settings.project!];
    const deps = { settings, client, sessions, registry: new ToolRegistry(allTools()), lib: loadSkills(settings), log, signal };
    // one project: its errors are the command's (exit 2 or 3); a class: each project's error is its row
    const reports = await runLimited(projects, jobs, (project) => runProject(deps, project, req, { yes: o.yes, rethrow: !o.projects }));
    return finish(reports, o, !o.projects);
  } finally {
    sessions.close();
    await client.close().catch(() => undefined);
  }
}

/** Prints the reports and decides the exit code. */
function finish(reports: ProjectReport[], o: InjectScenarioOptions, single: boolean): number {
  const planned = reports.filter((r) => r.status === 'planned');
  const blocked = reports.some((r) => r.faults.some((f) => f.status === 'blocked'));
  if (o.json) process.stdout.write(`${JSON.stringify(single ? reports[0] : { projects: reports })}\n`);
  else print(reports, single);
  if (!o.yes || blocked) {
    if (planned.length === 0 && !blocked) return ExitCode.Usage;
    const seed = reports.find((r) => r.seed !== undefined)?.seed;
    const replay = seed !== undefined && o.seed === undefined ? ` --seed ${seed}` : '';
    process.stderr.write(`error: the faults need approval: rerun with --yes${replay} to apply this plan (nothing was sent)\n`);
    return ExitCode.ApprovalUnavailable;
  }
  const bad = reports.filter((r) => r.status !== 'injected');
  if (bad.length === 0) return ExitCode.Ok;
  process.stderr.write(`error: not every fault was applied: ${bad.map((r) => `${r.project} (${r.status})`).join(', ')}\n`);
  return ExitCode.NotRestored;
}

function print(reports: ProjectReport[], single: boolean): void {
  let text = reports.map(reportText).join(single ? '' : '\n');
  if (!single) {
    const injected = reports.filter((r) => r.status === 'injected').length;
    text += `\n${reports.map(classLine).join('\n')}\n${reports.length} projects: ${injected} injected, ${reports.length - injected} not\n`;
  }
  process.stdout.write(sanitizeText(text));
}
