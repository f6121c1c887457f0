/**
 * Named lab checkpoints in sessions.db (tables: src/sessions/named-checkpoint-schema.ts):
 * a project's every device configuration and its topology under a name, per controller
 * and project, with no copilot session. Configurations share the deduplicated,
 * deflated blobs of the session checkpoints (src/sessions/checkpoint-blobs.ts).
 */
import type Database from 'better-sqlite3';
import { UsageError } from '../errors.js';
import { dropUnusedBlobs, putBlob, readBlob } from '../sessions/checkpoint-blobs.js';
import type { LabCheckpoint, LabCheckpointSummary, LabRestoreRow, SavedDevice, SavedTopology } from './named-types.js';

/** Where a checkpoint belongs: the controller (its URL) and the project's id. */
export interface LabKey {
  controller: string;
  project_id: string;
}

/** The controller part of the key: its URL without credentials, query or trailing slash, so spellings of one server agree. */
export function controllerKey(server: string): string {
  try {
    const u = new URL(server);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return server.replace(/\/+$/, '');
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A checkpoint name: letters, digits, `.`, `_`, `-`, up to 64, starting with a letter or digit (it is typed on command lines). */
export function checkName(name: string): string {
  if (!NAME.test(name))
    throw new UsageError(
      `checkpoint name "${name.slice(0, 80)}": use 1..64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  return name;
}

interface CheckpointRow {
  id: number;
  controller: string;
  project_id: string;
  project_name: string;
  name: string;
  note: string | null;
  topology: string;
  created_at: string;
}

interface DeviceRow {
  device: string;
  node_id: string;
  platform: string | null;
  hash: string | null;
  error: string | null;
}

export interface SaveInput extends LabKey {
  project_name: string;
  name: string;
  note?: string | undefined;
  topology: SavedTopology;
  devices: { device: string; node_id: string; platform?: string | undefined; config?: string | undefined; error?: string | undefined }[];
}

const existsError = (had: { name: string; created_at: string }, project: string) =>
  new UsageError(
    `checkpoint "${had.name}" exists for project ${project} (saved ${had.created_at}): pass --replace to overwrite it, or delete it first`,
  );

export class NamedCheckpointStore {
  constructor(readonly db: Database.Database) {}

  /**
   * Saves the lab under its name, in one transaction. A name the project already has is
   * refused unless `replace` (then the old checkpoint is gone once the new one is in).
   */
  save(c: SaveInput, opts: { replace?: boolean } = {}): { id: number; replaced: boolean } {
    checkName(c.name);
    return this.db
      .transaction(() => {
        const had = this.row(c, c.name);
        if (had && !opts.replace) throw existsError(had, c.project_name);
        if (had) this.deleteRows(had.id);
        const id = Number(
          this.db
            .prepare(
              'INSERT INTO lab_checkpoints (controller, project_id, project_name, name, note, topology, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            )
            .run(c.controller, c.project_id, c.project_name, c.name, c.note ?? null, JSON.stringify(c.topology), new Date().toISOString())
            .lastInsertRowid,
        );
        const put = this.db.prepare(
          'INSERT INTO lab_checkpoint_devices (checkpoint_id, device, node_id, platform, hash, error) VALUES (?, ?, ?, ?, ?, ?)',
        );
        for (const d of c.devices) {
          const hash = d.config !== undefined ? putBlob(this.db, d.config) : null;
          put.run(id, d.device, d.node_id, d.platform ?? null, hash, hash === null ? (d.error ?? 'not captured') : null);
        }
        if (had) dropUnusedBlobs(this.db);
        return { id, replaced: had !== undefined };
      })
      .immediate();
  }

  /** Refuses a name the project has already (before a save spends time capturing), unless it is to be replaced. */
  assertFree(key: LabKey, name: string, projectName: string): void {
    checkName(name);
    const had = this.row(key, name);
    if (had) throw existsError(had, projectName);
  }

  /** The checkpoint of this project by name (exact, else the one whose name differs only in case). */
  get(key: LabKey, name: string): LabCheckpoint | undefined {
    const r = this.row(key, name);
    if (!r) return undefined;
    const devices = this.db
      .prepare('SELECT device, node_id, platform, hash, error FROM lab_checkpoint_devices WHERE checkpoint_id = ? ORDER BY device')
      .all(r.id) as DeviceRow[];
    return {
      ...r,
      topology: JSON.parse(r.topology) as SavedTopology,
      devices: devices.map((d): SavedDevice => ({
        device: d.device,
        node_id: d.node_id,
        platform: d.platform,
        config: d.hash === null ? null : readBlob(this.db, d.hash),
        error: d.error,
      })),
    };
  }

  /** The project's checkpoints, oldest first. */
  list(key: LabKey): LabCheckpointSummary[] {
    const rows = this.db
      .prepare(
        `SELECT c.name, c.note, c.project_name, c.created_at, c.topology,
           (SELECT COUNT(*) FROM lab_checkpoint_devices d WHERE d.checkpoint_id = c.id AND d.hash IS NOT NULL) AS saved,
           (SELECT COUNT(*) FROM lab_checkpoint_devices d WHERE d.checkpoint_id = c.id AND d.hash IS NULL) AS not_saved
         FROM lab_checkpoints c WHERE c.controller = ? AND c.project_id = ? ORDER BY c.created_at, c.id`,
      )
      .all(key.controller, key.project_id) as (Omit<LabCheckpointSummary, 'nodes' | 'links'> & { topology: string })[];
    return rows.map(({ topology, ...r }) => {
      const t = JSON.parse(topology) as SavedTopology;
      return { ...r, nodes: t.nodes.length, links: t.links.length };
    });
  }

  /** Deletes a checkpoint, its restores and the configurations nothing else keeps; false when there was none. */
  delete(key: LabKey, name: string): boolean {
    return this.db
      .transaction(() => {
        const r = this.row(key, name);
        if (!r) return false;
        this.deleteRows(r.id);
        dropUnusedBlobs(this.db);
        return true;
      })
      .immediate();
  }

  /** Starts recording a restore (the approval was given, changes are about to be sent). */
  beginRestore(checkpointId: number, devices: string[] | null): number {
    return Number(
      this.db
        .prepare("INSERT INTO lab_checkpoint_restores (checkpoint_id, devices, status, started_at) VALUES (?, ?, 'running', ?)")
        .run(checkpointId, devices ? JSON.stringify(devices) : null, new Date().toISOString()).lastInsertRowid,
    );
  }

  /**
   * Ends a restore; ending one also ends the unfinished restores of the same checkpoint before
   * it (a killed one this run has resumed and done the work of).
   */
  finishRestore(checkpointId: number, restoreId: number, status: 'done' | 'partial'): void {
    this.db
      .prepare(
        `UPDATE lab_checkpoint_restores SET status = ?, finished_at = ?
         WHERE checkpoint_id = ? AND (id = ? OR (id < ? AND status = 'running'))`,
      )
      .run(status, new Date().toISOString(), checkpointId, restoreId, restoreId);
  }

  /** The newest restore of the checkpoint that was started and never finished (its process died). */
  unfinishedRestore(checkpointId: number): LabRestoreRow | undefined {
    const r = this.db
      .prepare("SELECT * FROM lab_checkpoint_restores WHERE checkpoint_id = ? AND status = 'running' ORDER BY id DESC LIMIT 1")
      .get(checkpointId) as (Omit<LabRestoreRow, 'devices'> & { devices: string | null }) | undefined;
    return r ? { ...r, devices: r.devices === null ? null : (JSON.parse(r.devices) as string[]) } : undefined;
  }

  restores(checkpointId: number): LabRestoreRow[] {
    const rows = this.db.prepare('SELECT * FROM lab_checkpoint_restores WHERE checkpoint_id = ? ORDER BY id').all(checkpointId) as (Omit<
      LabRestoreRow,
      'devices'
    > & { devices: string | null })[];
    return rows.map((r) => ({ ...r, devices: r.devices === null ? null : (JSON.parse(r.devices) as string[]) }));
  }

  private row(key: LabKey, name: string): CheckpointRow | undefined {
    const all = this.db
      .prepare('SELECT * FROM lab_checkpoints WHERE controller = ? AND project_id = ? AND lower(name) = lower(?)')
      .all(key.controller, key.project_id, name) as CheckpointRow[];
    return all.find((r) => r.name === name) ?? (all.length === 1 ? all[0] : undefined);
  }

  private deleteRows(id: number): void {
    for (const t of ['lab_checkpoint_devices', 'lab_checkpoint_restores'])
      this.db.prepare(`DELETE FROM ${t} WHERE checkpoint_id = ?`).run(id);
    this.db.prepare('DELETE FROM lab_checkpoints WHERE id = ?').run(id);
  }
}
