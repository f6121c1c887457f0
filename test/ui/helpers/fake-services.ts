/** UiServices over in-memory data plus a ScriptedSession: the TUI's edge in component tests. */
import type { Approver } from '../../../src/core/api.js';
import type { Topology } from '../../../src/gns3/types.js';
import type { CreateSessionOptions, ProjectInfo, SessionInfo, UiServices } from '../../../src/ui/services.js';
import type { Settings, InvocationOptions } from '../../../src/config/schema.js';
import { settingsSchema } from '../../../src/config/schema.js';
import { ScriptedSession, type ScriptStep } from './scripted-session.js';
import { ControllerError } from '../../../src/errors.js';
import type { SessionRequest } from '../../../src/checkpoints/types.js';
import type { RewindReport } from '../../../src/undo/rewind.js';
import type { TuiRewindOptions } from '../../../src/undo/tui-rewind.js';
import type { LabCheckpointSummary } from '../../../src/checkpoints/named-types.js';
import type { SaveReport } from '../../../src/checkpoints/named-save.js';
import type { NamedRestoreReport } from '../../../src/undo/named-restore.js';
import type { TuiCheckpointRestoreOptions } from '../../../src/undo/tui-checkpoint.js';

export interface FakeServicesOptions {
  scripts?: ScriptStep[][];
  projects?: ProjectInfo[];
  sessions?: SessionInfo[];
  /** number of checkController calls that fail before it succeeds */
  controllerDownFor?: number;
  hasApiKey?: boolean;
  topology?: Topology;
  history?: Record<string, import('../../../src/sessions/transcript.js').TranscriptEntry[]>;
  /** /rewind's list per session id */
  requests?: Record<string, SessionRequest[]>;
}

export class FakeServices implements UiServices {
  readonly created: CreateSessionOptions[] = [];
  readonly sessionsMade: ScriptedSession[] = [];
  controllerChecks = 0;
  closed = false;
  approver: Approver | undefined;
  sessionRows: SessionInfo[];
  scripts: ScriptStep[][];

  constructor(private readonly o: FakeServicesOptions = {}) {
    this.sessionRows = [...(o.sessions ?? [])];
    this.scripts = o.scripts ?? [];
    for (const [id, h] of Object.entries(o.history ?? {})) this.history.set(id, h);
  }

  get session(): ScriptedSession {
    const s = this.sessionsMade[this.sessionsMade.length - 1];
    if (!s) throw new Error('no session created yet');
    return s;
  }

  async checkController(): Promise<void> {
    this.controllerChecks++;
    if (this.controllerChecks <= (this.o.controllerDownFor ?? 0)) {
      throw new ControllerError('GNS3 controller at http://127.0.0.1:3080 is unreachable (connection refused)');
    }
  }
  async listProjects(): Promise<ProjectInfo[]> {
    return this.o.projects ?? [];
  }
  async topology(): Promise<Topology> {
    if (!this.o.topology) throw new ControllerError('no topology');
    return this.o.topology;
  }
  async createSession(opts: CreateSessionOptions): Promise<ScriptedSession> {
    this.created.push(opts);
    this.approver = opts.approver;
    const id = opts.sessionId ?? (opts.continueLatest ? this.sessionRows[0]?.id : undefined) ?? `sess-${this.created.length}`;
    // Scripts are shared: a resumed session continues the same script list.
    const s = new ScriptedSession(this.scripts, opts.approver, id, opts.settings.mode);
    this.sessionsMade.push(s);
    if (!this.sessionRows.some((r) => r.id === id)) {
      this.sessionRows.unshift({
        id,
        title: null,
        projectId: null,
        projectName: opts.settings.project ?? null,
        mode: opts.settings.mode,
        pinned: false,
        updatedAt: new Date().toISOString(),
        messageCount: 0,
        totalTokens: 0,
      });
    }
    return s;
  }
  async listSessions(): Promise<SessionInfo[]> {
    return this.sessionRows;
  }
  async getSession(_s: Settings, id: string): Promise<SessionInfo | undefined> {
    return this.sessionRows.find((r) => r.id === id);
  }
  async latestSession(): Promise<SessionInfo | undefined> {
    return this.sessionRows[0];
  }
  history = new Map<string, import('../../../src/sessions/transcript.js').TranscriptEntry[]>();
  async sessionHistory(_s: Settings, id: string) {
    return this.history.get(id) ?? [];
  }
  async renameSession(_s: Settings, id: string, title: string): Promise<boolean> {
    const r = this.sessionRows.find((x) => x.id === id);
    if (r) r.title = title;
    return r !== undefined;
  }
  async setPinned(_s: Settings, id: string, pinned: boolean): Promise<boolean> {
    const r = this.sessionRows.find((x) => x.id === id);
    if (r) r.pinned = pinned;
    return r !== undefined;
  }
  deleted: string[] = [];
  async deleteSession(_s: Settings, id: string): Promise<boolean> {
    const i = this.sessionRows.findIndex((x) => x.id === id);
    if (i >= 0) {
      this.sessionRows.splice(i, 1);
      this.deleted.push(id);
    }
    return i >= 0;
  }
  async sessionRequests(_s: Settings, id: string): Promise<SessionRequest[]> {
    return this.o.requests?.[id] ?? [];
  }
  /** a rewind needs a lab: tests of /rewind give one (test/ui/rewind.test.tsx) */
  async rewind(_s: Settings, _o: TuiRewindOptions): Promise<RewindReport> {
    throw new Error('this test has no lab to rewind');
  }
  /** named checkpoints need a lab: the TUI's /checkpoint is tested on one (test/checkpoints/named-checkpoint-lab.test.ts) */
  async labCheckpoints(_s: Settings): Promise<LabCheckpointSummary[]> {
    return [];
  }
  async saveCheckpoint(_s: Settings, _o: { name: string; note?: string }): Promise<SaveReport> {
    throw new Error('this test has no lab to save');
  }
  async restoreCheckpoint(_s: Settings, _o: TuiCheckpointRestoreOptions): Promise<NamedRestoreReport> {
    throw new Error('this test has no lab to restore');
  }
  async hasApiKey(): Promise<boolean> {
    return this.o.hasApiKey ?? true;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

export function testSettings(over: Partial<Record<string, unknown>> = {}): Settings {
  return settingsSchema.parse({ project: 'ospf-lab', ...over });
}

export const tuiInvocation = (over: Partial<InvocationOptions> = {}): InvocationOptions => ({
  output: 'text',
  continueLatest: false,
  interactive: true,
  ...over,
});

/** One row of the session list; every field the tests do not name is a plain default. */
export const sessionRow = (over: Partial<SessionInfo> & Pick<SessionInfo, 'id' | 'title'>): SessionInfo => ({
  projectId: 'p1',
  projectName: 'ospf-lab',
  mode: 'teaching_assistant',
  pinned: false,
  updatedAt: new Date().toISOString(),
  messageCount: 0,
  totalTokens: 0,
  ...over,
});
