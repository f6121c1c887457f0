/**
 * The usage of each request with the model it ran with, so a session is priced at the
 * models it really used (`sessions list`), not at whatever model is configured today.
 * Rows migrated from before the model was stored have model NULL.
 */
import type Database from 'better-sqlite3';
import { costUsd, type ModelPrice } from '../core/pricing.js';

export const REQUEST_USAGE_SCHEMA = `
CREATE TABLE IF NOT EXISTS request_usage (
  session_id TEXT NOT NULL,
  model TEXT,
  llm_calls INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_usage_session ON request_usage(session_id);
`;

export interface ModelUsage {
  model: string | null;
  input_tokens: number;
  output_tokens: number;
}

export function recordRequestUsage(
  db: Database.Database,
  sessionId: string,
  u: { model: string; llm_calls: number; input_tokens: number; output_tokens: number },
): void {
  db.prepare('INSERT INTO request_usage (session_id, model, llm_calls, input_tokens, output_tokens, at) VALUES (?, ?, ?, ?, ?, ?)').run(
    sessionId,
    u.model,
    u.llm_calls,
    u.input_tokens,
    u.output_tokens,
    new Date().toISOString(),
  );
}

/** each session's tokens per model */
export function usageByModel(db: Database.Database, sessionIds: string[]): Map<string, ModelUsage[]> {
  const out = new Map<string, ModelUsage[]>();
  if (sessionIds.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT session_id, model, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens FROM request_usage
       WHERE session_id IN (${sessionIds.map(() => '?').join(',')}) GROUP BY session_id, model`,
    )
    .all(...sessionIds) as (ModelUsage & { session_id: string })[];
  for (const { session_id, ...u } of rows) out.set(session_id, [...(out.get(session_id) ?? []), u]);
  return out;
}

/**
 * A session's cost: each model's tokens at its price, rows without a model at `fallbackModel`.
 * Null when any model used has no price (a partial sum would understate it).
 */
export function sessionCost(usage: ModelUsage[], fallbackModel: string, prices: Record<string, ModelPrice>): number | null {
  let total = 0;
  for (const u of usage) {
    const c = costUsd(u.model ?? fallbackModel, u, prices);
    if (c === undefined) return null;
    total += c;
  }
  return total;
}
