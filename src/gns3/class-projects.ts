/**
 * `--projects GLOB [--jobs N]`, shared by every command that works on a whole class
 * (inject, check, faults check, checkpoint save|restore): the names of the controller's
 * projects the pattern matches (./project-glob.ts), and the bound on projects at once.
 * Also the projects a command keeps opened for all its rounds (keptOpen), which the
 * single-project `faults check` shares.
 */
import { setMaxListeners } from 'node:events';
import { UsageError } from '../errors.js';
import { openProjectScope, type Gns3Client } from './client.js';
import type { Gns3Project } from './project.js';
import { matchProjects } from './project-glob.js';
import type { RawProject } from './raw.js';

export const DEFAULT_JOBS = 8;
export const MAX_JOBS = 32;

/** `--jobs N`: projects worked on at once, 1..32 (default 8). */
export function parseJobs(v: string | undefined): number {
  if (v === undefined) return DEFAULT_JOBS;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > MAX_JOBS) throw new UsageError(`--jobs: must be an integer 1..${MAX_JOBS} (got "${v}")`);
  return n;
}

/** --project and --projects name different things: both typed is a usage error (exit 2), never one silently winning. */
export function checkProjectFlags(projects: string | undefined, projectFromFlag: boolean): void {
  if (projects !== undefined && projectFromFlag) throw new UsageError('--project and --projects: give one of them');
}

/**
 * The matching projects as the controller listed them, in natural order (./client.ts
 * openListedProject opens one without listing again); none is a usage error naming what the
 * controller has.
 */
export async function classProjectList(client: Gns3Client, glob: string, signal?: AbortSignal): Promise<RawProject[]> {
  const all = await client.listProjects(signal);
  const hits = matchProjects(all, glob);
  if (hits.length === 0)
    throw new UsageError(
      `--projects: no project matches "${glob}" on the controller (projects: ${
        all
          .map((p) => p.name)
          .slice(0, 10)
          .join(', ') || 'none'
      })`,
    );
  return hits;
}

/**
 * One pass over the class under its own signal, aborted with the command's: the many projects'
 * device and controller calls listen on it at once (no listener limit), and what they leave on it
 * goes with it, so a --watch does not pile listeners up on one signal round after round.
 */
export async function withClassSignal<T>(signal: AbortSignal, body: (round: AbortSignal) => Promise<T>): Promise<T> {
  const round = new AbortController();
  setMaxListeners(0, round.signal);
  const stop = () => round.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  try {
    return await body(round.signal);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * The projects of a command's rounds (a --watch): each opened at its first use and kept, with
 * what `attach` gives it (its device sessions), so a later round neither opens it nor connects
 * to its consoles again. A project is given as the controller listed it (a class: the list is not
 * read again) or by its id (a fault ledger's rows carry it); either way it is kept by its id.
 * `opened()` is what the caller closes at the end.
 */
export function keptOpen<T>(client: Gns3Client, attach: () => T) {
  const labs = new Map<string, { scope: Gns3Project; kept: T }>();
  return {
    async open(project: RawProject | string, signal: AbortSignal): Promise<{ scope: Gns3Project; kept: T }> {
      const id = typeof project === 'string' ? project : project.project_id;
      let lab = labs.get(id);
      if (!lab) {
        lab = { scope: await openProjectScope(client, project, signal), kept: attach() };
        labs.set(id, lab);
      }
      return lab;
    },
    opened: () => [...labs.values()],
  };
}
