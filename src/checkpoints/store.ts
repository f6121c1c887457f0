/**
 * Checkpoints in the session database: device configurations before a request
 * changed them, the topology before a request changed it, and the rewinds.
 *
 * Request numbers: a session's requests are its prompts (the user messages of
 * the `messages` table, the order `sessions show` prints them) and its rewinds,
 * numbered 1, 2, … in the order they ran. `--to N` means the lab just before
 * request N: per device, the first checkpoint taken at or after N.
 */
import type Database from 'better-sqlite3';
import { dropUnusedBlobs, putBlob, readBlob } from '../sessions/checkpoint-blobs.js';
import type { DeviceCheckpoint, SessionRequest, TopologyBefore, TopologyCheckpoint, TopologyCreated } from './types.js';

export interface RewindRow {
  session_id: string;
  request_no: number;
  to_request: number;
  status: 'running' | 'done';
  created_at: string;
  finished_at: string | null;
}

interface DeviceRow {
  id: number;
  session_id: string;
  request_no: number;
  call_id: string | null;
  device: string;
  hash: string | null;
  error: string | null;
  created_at: string;
}

interface TopologyRow {
  id: number;
  session_id: string;
  request_no: number;
  call_id: string | null;
  before: string;
  created: string;
  created_at: string;
}

export class CheckpointStore {
  constructor(readonly db: Database.Database) {}

  /**
   * Keeps a device's configuration as it was before call `call_id` of request `request_no`
   * changed it, and returns the id of the checkpoint that holds it. Each call gets its own
   * (a later call of the request that changes the device again keeps what it found: a
   * regression's rewind goes back to the checkpoint before that call); the same call twice
   * keeps its first. The request's first checkpoint of the device is "just before the
   * request" (devicesAt). A failed capture (`error`) is recorded so diff and rewind can say
   * why there is no checkpoint; a later successful capture in the same request replaces it.
   */
  saveDevice(c: {
    session_id: string;
    request_no: number;
    call_id?: string | null;
    device: string;
    config?: string;
    error?: string;
  }): number {
    return this.db
      .transaction(() => {
        const rows = this.db
          .prepare('SELECT id, call_id, hash FROM device_checkpoints WHERE session_id = ? AND request_no = ? AND device = ? ORDER BY id')
          .all(c.session_id, c.request_no, c.device) as { id: number; call_id: string | null; hash: string | null }[];
        const callId = c.call_id ?? null;
        const first = rows[0];
        if (first && first.hash === null && c.config !== undefined) {
          this.db
            .prepare('UPDATE device_checkpoints SET hash = ?, error = NULL, call_id = ? WHERE id = ?')
            .run(this.putBlob(c.config), callId, first.id);
          return first.id;
        }
        const same = rows.find((r) => r.call_id === callId);
        if (same) return same.id;
        const hash = c.config !== undefined ? this.putBlob(c.config) : null;
        const error = hash === null ? (c.error ?? 'no configuration captured') : null;
        const r = this.db
          .prepare(
            'INSERT INTO device_checkpoints (session_id, request_no, call_id, device, hash, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(c.session_id, c.request_no, callId, c.device, hash, error, new Date().toISOString());
        return Number(r.lastInsertRowid);
      })
      .immediate();
  }

  /**
   * Records what a topology-changing call touched (before) and created. `read_at`: when
   * the before-state was read (default now) — the checkpoint's time, though it is stored
   * once the batch has run and its creations are known.
   */
  saveTopology(c: {
    session_id: string;
    request_no: number;
    call_id?: string | null;
    before: TopologyBefore;
    created?: TopologyCreated;
    read_at?: Date;
  }): void {
    this.db
      .prepare('INSERT INTO topology_checkpoints (session_id, request_no, call_id, before, created, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(
        c.session_id,
        c.request_no,
        c.call_id ?? null,
        JSON.stringify(c.before),
        JSON.stringify(c.created ?? { nodes: [], links: [] }),
        (c.read_at ?? new Date()).toISOString(),
      );
  }

  /** Per device, the first checkpoint at or after request `from` (the device as it was just before `from`). */
  devicesAt(sessionId: string, from: number, devices?: string[]): DeviceCheckpoint[] {
    const rows = this.db
      .prepare(
        `SELECT d.* FROM device_checkpoints d
         WHERE d.session_id = ? AND d.request_no >= ? AND d.id = (
           SELECT MIN(e.id) FROM device_checkpoints e WHERE e.session_id = d.session_id AND e.device = d.device AND e.request_no >= ?)
         ORDER BY d.device`,
      )
      .all(sessionId, from, from) as DeviceRow[];
    const wanted = devices?.map((d) => d.toLowerCase());
    return rows.filter((r) => !wanted || wanted.includes(r.device.toLowerCase())).map((r) => this.deviceOf(r));
  }

  /** These checkpoints of the session (saveDevice's ids), by device: a regression's rewind restores exactly them. */
  devicesByIds(sessionId: string, ids: readonly number[]): DeviceCheckpoint[] {
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare(`SELECT * FROM device_checkpoints WHERE session_id = ? AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY device`)
      .all(sessionId, ...ids) as DeviceRow[];
    return rows.map((r) => this.deviceOf(r));
  }

  /** Every device checkpoint of a session, oldest first. */
  deviceHistory(sessionId: string): DeviceCheckpoint[] {
    const rows = this.db.prepare('SELECT * FROM device_checkpoints WHERE session_id = ? ORDER BY id').all(sessionId) as DeviceRow[];
    return rows.map((r) => this.deviceOf(r));
  }

  /** Topology checkpoints at or after request `from`, oldest first. */
  topologyFrom(sessionId: string, from: number): TopologyCheckpoint[] {
    const rows = this.db
      .prepare('SELECT * FROM topology_checkpoints WHERE session_id = ? AND request_no >= ? ORDER BY id')
      .all(sessionId, from) as TopologyRow[];
    return rows.map((r) => ({
      ...r,
      before: JSON.parse(r.before) as TopologyBefore,
      created: JSON.parse(r.created) as TopologyCreated,
    }));
  }

  /** The session's requests in order: its prompts and its rewinds. */
  requests(sessionId: string): SessionRequest[] {
    const prompts = this.db
      .prepare("SELECT content, created_at FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq")
      .all(sessionId) as { content: string; created_at: string }[];
    const rewinds = this.rewinds(sessionId);
    // Rewinds keep their number; prompts fill the numbers in between, in order.
    const out: SessionRequest[] = [];
    let p = 0;
    const total = prompts.length + rewinds.length;
    for (let no = 1; no <= total; no++) {
      const rw = rewinds.find((r) => r.request_no === no);
      if (rw) out.push({ no, kind: 'rewind', text: `rewind to before request ${rw.to_request}`, created_at: rw.created_at });
      else {
        const m = prompts[p++];
        if (!m) break;
        const first = m.content.split('\n').find((l) => l.trim() !== '') ?? '';
        out.push({ no, kind: 'prompt', text: first.trim(), created_at: m.created_at });
      }
    }
    return out;
  }

  /**
   * The number of the request running now: its prompts and rewinds so far. The
   * checkpoint hook of a running agent request stores its captures under it.
   */
  currentRequestNo(sessionId: string): number {
    const prompts = this.db
      .prepare("SELECT COUNT(*) FROM messages WHERE session_id = ? AND role = 'user'")
      .pluck()
      .get(sessionId) as number;
    const rewinds = this.db.prepare('SELECT COUNT(*) FROM rewinds WHERE session_id = ?').pluck().get(sessionId) as number;
    return prompts + rewinds;
  }

  rewinds(sessionId: string): RewindRow[] {
    return this.db.prepare('SELECT * FROM rewinds WHERE session_id = ? ORDER BY request_no').all(sessionId) as RewindRow[];
  }

  /** A rewind that was started and never finished (the process died): the next rewind resumes it. */
  unfinishedRewind(sessionId: string): RewindRow | undefined {
    return this.db
      .prepare("SELECT * FROM rewinds WHERE session_id = ? AND status = 'running' ORDER BY request_no DESC LIMIT 1")
      .get(sessionId) as RewindRow | undefined;
  }

  /** Starts a rewind as the session's next request; returns its number. */
  beginRewind(sessionId: string, toRequest: number): number {
    return this.db
      .transaction(() => {
        const no = this.currentRequestNo(sessionId) + 1;
        this.db
          .prepare("INSERT INTO rewinds (session_id, request_no, to_request, status, created_at) VALUES (?, ?, ?, 'running', ?)")
          .run(sessionId, no, toRequest, new Date().toISOString());
        return no;
      })
      .immediate();
  }

  finishRewind(sessionId: string, requestNo: number): void {
    this.db
      .prepare("UPDATE rewinds SET status = 'done', finished_at = ? WHERE session_id = ? AND request_no = ?")
      .run(new Date().toISOString(), sessionId, requestNo);
  }

  /** Drops every checkpoint of a session (the session is being deleted). */
  deleteSession(sessionId: string): void {
    this.db
      .transaction(() => {
        for (const t of ['device_checkpoints', 'topology_checkpoints', 'rewinds', 'state_baselines'])
          this.db.prepare(`DELETE FROM ${t} WHERE session_id = ?`).run(sessionId);
        dropUnusedBlobs(this.db);
      })
      .immediate();
  }

  /** Number of distinct stored configurations (deduplication check). */
  blobCount(): number {
    return this.db.prepare('SELECT COUNT(*) FROM checkpoint_blobs').pluck().get() as number;
  }

  private putBlob(text: string): string {
    return putBlob(this.db, text);
  }

  private blob(hash: string): string {
    return readBlob(this.db, hash);
  }

  private deviceOf(r: DeviceRow): DeviceCheckpoint {
    const { hash, ...rest } = r;
    return { ...rest, config: hash === null ? null : this.blob(hash) };
  }
}
