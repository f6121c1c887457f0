/**
 * `gns3-copilot eval`: measures models on the user's own lab (src/eval/) — each eval-ready
 * scenario that fits is injected, a fresh session gets its trouble ticket, the answer and
 * the lab are scored, the lab is restored to a checkpoint and proven equal to it. The plan
 * (scenarios, models, devices broken and restored, worst-case cost) is the one approval:
 * `--yes`, or a yes on a terminal; without either it is printed and the exit code is 6.
 * Exit 0 when every run completed, 8 when the lab could not be restored, 3/4 for a
 * controller/LLM failure that stopped it, 5 when --max-cost ran out, 130 on Ctrl-C (the lab
 * restored first). `--resume` undoes an eval that was killed. docs/cli.md, eval.
 */
import { writeFileSync } from 'node:fs';
import type { Settings } from '../config/schema.js';
import type { Approver } from '../core/api.js';
import { ExitCode, UsageError } from '../errors.js';
import { holdExitAfterSignal } from '../core/interrupt.js';
import { createLogger } from '../log.js';
import { sanitizeText } from '../security/sanitize.js';
import { SessionStore } from '../sessions/store.js';
import type { EvalLab } from '../eval/lab.js';
import type { EvalPlan, EvalMode, RunResult } from '../eval/types.js';
import type { Selection } from '../eval/plan.js';

export interface EvalCommandOptions extends Selection {
  models: string[];
  runs?: string | undefined;
  mode?: string | undefined;
  json: boolean;
  junit?: string | undefined;
  seed?: string | undefined;
  yes: boolean;
  from?: string | undefined;
  estimate: boolean;
  resume: boolean;
}

const YES: Approver = () => Promise.resolve({ kind: 'allow_once' as const });

function parseRuns(v: string | undefined): number {
  if (v === undefined) return 1;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 100) throw new UsageError(`--runs: must be an integer 1..100 (got "${v}")`);
  return n;
}

function parseMode(v: string | undefined): EvalMode {
  if (v === undefined || v === 'lab' || v === 'lab_automation_assistant') return 'lab';
  if (v === 'teaching' || v === 'teaching_assistant') return 'teaching';
  throw new UsageError(`--mode: eval runs in lab (diagnose and repair) or teaching (diagnosis only) mode (got "${v}")`);
}

/** The flags' own checks, before the controller is asked anything. */
export function checkOptions(o: EvalCommandOptions): { runs: number; mode: EvalMode } {
  const given = [o.scenarios ? '--scenarios' : '', o.category ? '--category' : '', o.difficulty ? '--level' : ''].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')}: choose the scenarios one way`);
  if (o.json && o.junit) throw new UsageError('--json and --junit: give one of them');
  if (o.resume && (o.estimate || o.from || given.length > 0))
    throw new UsageError('--resume restores the lab after an interrupted eval; it takes no scenarios, --from or --estimate');
  return { runs: parseRuns(o.runs), mode: parseMode(o.mode) };
}

/** `eval-20261207-025601`: the checkpoint an eval saves when no --from is given. */
const checkpointName = (d = new Date()) => `eval-${d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;

async function confirmed(o: EvalCommandOptions): Promise<boolean> {
  if (o.yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question('run this eval (it breaks and restores the devices above)? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}

export async function evalCommand(o: EvalCommandOptions, settings: Settings): Promise<number> {
  const { runs, mode } = checkOptions(o);
  if (!settings.project) throw new UsageError('eval: which project? pass --project NAME (the lab the eval breaks and restores)');
  const log = createLogger(settings.log_level);
  // the lab's own signal: Ctrl-C stops the agent, never the restore that follows it
  const labSignal = new AbortController().signal;
  const [{ createKeychainGns3Client }, { ToolRegistry }, { allTools }, { loadSkills }, { openInjectLab }, { evalLab }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../tools/registry.js'),
    import('../tools/index.js'),
    import('../skills/loader.js'),
    import('../scenarios/lab.js'),
    import('../eval/lab.js'),
  ]);
  const client = createKeychainGns3Client(settings, log);
  const sessions = await SessionStore.open(settings.data_dir);
  const deps = { settings, client, sessions, registry: new ToolRegistry(allTools()), lib: loadSkills(settings), log, signal: labSignal };
  let inject: Awaited<ReturnType<typeof openInjectLab>> | undefined;
  try {
    inject = await openInjectLab(deps, settings.project);
    const lab = evalLab(inject);
    if (o.resume) return await resume(lab, o);
    return await evaluate(lab, o, runs, mode);
  } finally {
    await inject?.close();
    sessions.close();
    await client.close().catch(() => undefined);
  }
}

async function resume(lab: EvalLab, o: EvalCommandOptions): Promise<number> {
  const [{ readMarker }, { resumeEval }] = await Promise.all([import('../eval/marker.js'), import('../eval/resume.js')]);
  const marker = readMarker(lab.inject.settings.data_dir);
  if (!marker) throw new UsageError('eval --resume: no interrupted eval to undo (nothing to restore)');
  const what = `restore project ${marker.project} to checkpoint ${marker.checkpoint} (the lab before the interrupted eval)`;
  if (!(await confirmed(o))) {
    process.stderr.write(`error: eval --resume would ${what}: rerun with --yes to apply it (nothing was sent)\n`);
    return ExitCode.ApprovalUnavailable;
  }
  const r = await resumeEval(lab, marker, YES);
  const out = { restored: marker.checkpoint, project: marker.project, faults_closed: r.faults.map((f) => f.id) };
  process.stdout.write(
    o.json ? `${JSON.stringify(out)}\n` : `restored project ${marker.project} to checkpoint ${marker.checkpoint}; the lab equals it\n`,
  );
  return ExitCode.Ok;
}

async function evaluate(lab: EvalLab, o: EvalCommandOptions, runs: number, mode: EvalMode): Promise<number> {
  const [{ readMarker }, { planEval }, report] = await Promise.all([
    import('../eval/marker.js'),
    import('../eval/plan.js'),
    import('../eval/report.js'),
  ]);
  const settings = lab.inject.settings;
  const interrupted = readMarker(settings.data_dir);
  if (interrupted)
    throw new UsageError(
      `an eval of project ${interrupted.project} was interrupted (started ${interrupted.started_at}): run \`gns3-copilot eval --resume --project ${interrupted.project} --yes\` first`,
    );
  // a check file that cannot be read is refused before anything is sent
  if (settings.checks !== undefined) await (await import('../check/verify-checks.js')).loadSessionChecks(settings);
  if (o.from) {
    const { findLabCheckpoint } = await import('../undo/named-restore.js');
    await findLabCheckpoint(lab.named, o.from);
  }
  const plan = await planEval(lab.inject, {
    ...o,
    models: o.models.length > 0 ? o.models : [settings.model],
    runs,
    mode,
    seed: o.seed ?? '0',
    checkpoint: o.from ? { name: o.from, from: true } : { name: checkpointName(), from: false },
  });
  const printPlan = () =>
    process.stdout.write(o.json ? `${JSON.stringify({ plan: report.planJson(plan) })}\n` : sanitizeText(report.planText(plan)));
  if (o.estimate) {
    printPlan();
    return ExitCode.Ok;
  }
  if (!o.json) printPlan();
  if (!(await confirmed(o))) {
    if (o.json) printPlan();
    process.stderr.write('error: the eval needs approval: rerun with --yes to run this plan (nothing was sent)\n');
    return ExitCode.ApprovalUnavailable;
  }
  return run(lab, plan, o);
}

async function run(lab: EvalLab, plan: EvalPlan, o: EvalCommandOptions): Promise<number> {
  const [{ runEval }, { summarize }, report, { openAgentSession }] = await Promise.all([
    import('../eval/run.js'),
    import('../eval/summary.js'),
    import('../eval/report.js'),
    import('./agent-session.js'),
  ]);
  // live rows on stdout, or on stderr when stdout carries the JSON
  const live = o.json ? process.stderr : process.stdout;
  const ac = new AbortController();
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(ExitCode.Aborted);
    process.stderr.write('\ninterrupted: restoring the lab (Ctrl-C again quits at once; then eval --resume restores it)\n');
    ac.abort('aborted');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const releaseExit = holdExitAfterSignal();
  live.write(`\n${report.PROGRESS_HEAD}`);
  const seen: RunResult[] = [];
  try {
    const out = await runEval(lab, plan, {
      approver: YES,
      open: openAgentSession,
      signal: ac.signal,
      maxCostUsd: lab.inject.settings.max_cost,
      onRun: (r) => {
        seen.push(r);
        live.write(sanitizeText(report.progressRow(r, seen)));
      },
    });
    const models = summarize(plan.models, out.runs);
    if (o.json) process.stdout.write(`${JSON.stringify(report.evalJson(out.runs, models))}\n`);
    else process.stdout.write(sanitizeText(report.summaryText(models)));
    if (o.junit) writeFileSync(o.junit, report.junitXml(out.runs));
    if (out.stopped) {
      process.stderr.write(`error: ${out.stopped.message}\n`);
      return out.stopped.code;
    }
    return ExitCode.Ok;
  } finally {
    releaseExit();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
