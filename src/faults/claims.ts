/**
 * Claims on the fault ledger that hold across processes: a (project, target, category)
 * slot while a fault is being applied in it, and a fault while `faults restore` undoes it.
 * A claim is a row of `fault_claims` in sessions.db, taken in the caller's IMMEDIATE
 * transaction, so of two MCP servers (or two `faults restore`) racing for one slot exactly
 * one wins. A claim whose process is gone (kill -9, a crash) is stale and taken over: on
 * this host when its pid no longer runs, from another host after STALE_CLAIM_MS. The
 * table (src/sessions/fault-schema.ts) is made on first use, as the session leases are.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { processAlive } from '../config/store.js';
import { FAULT_CLAIMS_SCHEMA } from '../sessions/fault-schema.js';

/** No apply or restore call runs this long: a claim from another host older than this is stale. */
export const STALE_CLAIM_MS = 10 * 60_000;

/** Who holds a claim, for the refusal. */
export interface ClaimHolder {
  holder: string;
  pid: number;
  /** held by this process (another call of the same answer or client) */
  here: boolean;
}

export interface Claim {
  key: string;
  token: string;
}

interface Row {
  holder: string;
  pid: number;
  host: string;
  claimed_at: string;
}

export const slotKey = (projectId: string, target: string, category: string) =>
  `apply\u0000${projectId}\u0000${target.toLowerCase()}\u0000${category}`;
export const restoreKey = (faultId: number) => `restore\u0000${faultId}`;

export function ensureClaimsTable(db: Database.Database): void {
  db.exec(FAULT_CLAIMS_SCHEMA);
}

/**
 * Takes `key` for `holder` unless a live claim holds it; call inside an IMMEDIATE transaction
 * (with whatever else must be read at the same instant).
 */
export function takeClaim(db: Database.Database, key: string, holder: string, now = new Date()): Claim | ClaimHolder {
  const row = db.prepare('SELECT holder, pid, host, claimed_at FROM fault_claims WHERE claim = ?').get(key) as Row | undefined;
  if (row) {
    const here = row.host === hostname();
    const stale = here ? row.pid !== process.pid && !processAlive(row.pid) : now.getTime() - Date.parse(row.claimed_at) > STALE_CLAIM_MS;
    if (!stale) return { holder: row.holder, pid: row.pid, here: here && row.pid === process.pid };
  }
  const token = randomUUID();
  db.prepare('INSERT OR REPLACE INTO fault_claims (claim, holder, pid, host, token, claimed_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    key,
    holder,
    process.pid,
    hostname(),
    token,
    now.toISOString(),
  );
  return { key, token };
}

/** Gives a claim back; a claim taken over since (stale) is someone else's and stays. */
export function dropClaim(db: Database.Database, c: Claim): void {
  db.prepare('DELETE FROM fault_claims WHERE claim = ? AND token = ?').run(c.key, c.token);
}

export const isClaim = (c: Claim | ClaimHolder): c is Claim => 'token' in c;
