/**
 * Which conversation a new AgentSession continues, and in which modes: the stored row
 * (-r <id>, -c, --fork) under its lease, the project it reopens, the agent mode fixed on
 * its tree and the copilot mode (classroom locks win). On a refusal the store is closed.
 */
import type { Settings } from '../../config/schema.js';
import type { AgentMode } from '../../core/events.js';
import type { CopilotMode } from '../../core/modes.js';
import type { Logger } from '../../log.js';
import type { SessionStore, SessionRow } from '../../sessions/store.js';
import { TreeStore } from '../../sessions/tree-store.js';
import { SessionLease } from '../../sessions/lease.js';
import { forkSession } from '../../sessions/fork.js';
import { describeLock, lockedSetting, type Lock } from '../../config/locks.js';
import { fixAgentMode, type AgentModeRequest, type ModeFixation } from '../tree/fixation.js';
import { UsageError } from '../../errors.js';

export interface ResumeRequest {
  sessionId?: string | undefined;
  continueLatest?: boolean | undefined;
  fork: boolean;
  /** settings.project was asked for explicitly: it wins over the row's project */
  projectExplicit: boolean;
}

export interface Resumed {
  row: SessionRow | undefined;
  lease: SessionLease | undefined;
  /** the settings, with the resumed row's project unless another was asked for */
  settings: Settings;
  trees: TreeStore;
  fixation: ModeFixation;
  agentMode: AgentMode;
  mode: CopilotMode;
  modeLock: Lock<'mode'> | undefined;
  notices: string[];
}

export function resumeSession(store: SessionStore, req: ResumeRequest, settings: Settings, env: NodeJS.ProcessEnv, log: Logger): Resumed {
  let lease: SessionLease | undefined;
  try {
    const row = findRow(store, req, settings);
    if (row) lease = SessionLease.acquire(store.db, row.id);
    settings = projectOfRow(row, req.projectExplicit, settings, env, log);
    // The agent mode is fixed on the tree at creation; a resumed session keeps its own.
    const trees = new TreeStore(store.db);
    const fixation = fixAgentMode(agentModeRequest(settings, env), row, trees);
    const notices: string[] = fixation.notice ? [fixation.notice] : [];
    if (fixation.notice) log.warn(fixation.notice);
    // A resumed session keeps its copilot mode unless a non-default mode was asked for
    // (`-m lab -c`, `inject -c`); settings do not tell an explicit default from an implicit one.
    let mode: CopilotMode = row && settings.mode === 'teaching_assistant' ? row.copilot_mode : settings.mode;
    // A classroom lock wins over the stored session's mode (resume, --continue, inject -c).
    const modeLock = lockedSetting('mode', env);
    if (modeLock && mode !== modeLock.value) {
      notices.push(`${describeLock(modeLock)}: this session runs in ${modeLock.value} mode, not ${mode}`);
      log.warn('classroom lock changed the session mode', { from: mode, to: modeLock.value });
      mode = modeLock.value;
    }
    if (row && row.copilot_mode !== mode) store.setMode(row.id, mode);
    return { row, lease, settings, trees, fixation, agentMode: fixation.mode, mode, modeLock, notices };
  } catch (err) {
    lease?.release();
    store.close();
    throw err;
  }
}

/** The agent mode and tree budget the settings ask for, and a classroom lock on the mode (which the settings already honour for a new session). */
function agentModeRequest(settings: Settings, env: NodeJS.ProcessEnv): AgentModeRequest {
  const lock = lockedSetting('agent_mode', env);
  return {
    asked: settings.agent_mode,
    lock: lock?.value ? { value: lock.value, describe: describeLock(lock) } : undefined,
    budget: settings.agent_budget,
  };
}

function findRow(store: SessionStore, req: ResumeRequest, settings: Settings): SessionRow | undefined {
  let row: SessionRow | undefined;
  if (req.sessionId) {
    row = store.named(req.sessionId);
  } else if (req.continueLatest) {
    row = store.latest(settings.project ? { project: settings.project } : {});
  }
  if (!req.fork) return row;
  if (!row) throw new UsageError('--fork needs a session to branch: add -r <id> or -c');
  return store.get(forkSession(store.db, row.id))!;
}

/**
 * A resumed conversation talks about the devices of the project it was held in, so it
 * reopens that project (by id: stable across renames) rather than whatever project
 * the settings carry now (GNS3_PROJECT, a config file). Only an explicit --project
 * moves it; the row then follows on the next request (setProject). A row without a
 * project (held before any was chosen) takes the settings' project.
 */
function projectOfRow(row: SessionRow | undefined, explicit: boolean, settings: Settings, env: NodeJS.ProcessEnv, log: Logger): Settings {
  const rowProject = row?.project_id ?? row?.project_name ?? undefined;
  // ...unless the classroom locked the project: then the lock wins over the stored one
  if (!row || !rowProject || (explicit && settings.project) || lockedSetting('project', env)) return settings;
  const matches = settings.project === row.project_id || settings.project === row.project_name;
  if (settings.project && !matches)
    log.info('resuming a session of another project; opening its project', {
      session_id: row.id,
      project: row.project_name ?? rowProject,
      settings_project: settings.project,
    });
  return matches ? settings : { ...settings, project: rowProject };
}
