/** `gns3-copilot sessions list|show|rename|pin|unpin|delete|export|stop`. */
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { parseMode, MODE_CHOICES_TEXT, MODE_SHORT_NAME } from '../core/modes.js';
import { SessionStore, type SessionRow } from '../sessions/store.js';
import { roundUsd } from '../core/pricing.js';
import { formatUsd } from '../core/usd.js';
import { sessionCost, usageByModel } from '../sessions/request-usage.js';
import { failedBeforeAnswer } from '../sessions/unanswered.js';
import { transcriptMarkdown } from '../sessions/transcript.js';
import { sanitizeLine, sanitizeText } from '../security/sanitize.js';
import { jsonText } from '../output/json-text.js';
import { storedTree, treeMarkdown } from '../agent/tree/stored-tree.js';
import { TreeStore } from '../sessions/tree-store.js';
import { runningAgent } from '../agent/tree/stop-requests.js';

/** How long `sessions stop` waits for the running request to take its stop request (it looks several times a second). */
const STOP_WAIT_MS = 5_000;

/** Waits until the running process took the stop request; withdraws it (false) when nothing did in time. */
async function stopTaken(trees: TreeStore, rootId: string, agentId: string): Promise<boolean> {
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline) {
    if (!trees.stopRequested(rootId, agentId)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !trees.withdrawStopRequest(rootId, agentId);
}

type Action = 'list' | 'show' | 'rename' | 'pin' | 'unpin' | 'delete' | 'export' | 'stop';

/** An option's value as text: commander hands over strings; a caller in code may pass a number. */
const optText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function intOpt(name: string, v: unknown, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name}: must be an integer ${min}..${max}, got "${optText(v)}"`);
  return n;
}

function need(store: SessionStore, id: string | undefined): SessionRow {
  if (!id) throw new UsageError('missing session id (see `gns3-copilot sessions list`)');
  return store.named(id);
}

function pad(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s.padEnd(n);
}

function table(rows: SessionRow[], total: number, offset: number, cost: (r: SessionRow) => number | null, failed: Set<string>): string {
  if (rows.length === 0) return 'no sessions\n';
  const head = `${pad('ID', 8)}  ${pad('UPDATED', 16)}  ${pad('MODE', 8)}  ${pad('PROJECT', 14)}  ${'MSGS'.padStart(4)}  ${'TOKENS'.padStart(7)}  ${'COST'.padStart(8)}  TITLE`;
  const lines = rows.map(
    (r) =>
      `${pad(r.id.slice(0, 8), 8)}  ${pad(r.updated_at.replace('T', ' ').slice(0, 16), 16)}  ${pad(MODE_SHORT_NAME[r.copilot_mode] ?? r.copilot_mode, 8)}  ${pad(r.project_name ?? '—', 14)}  ${String(r.message_count).padStart(4)}  ${String(r.total_tokens).padStart(7)}  ${formatUsd(cost(r)).padStart(8)}  ${r.pinned ? '[pinned] ' : ''}${failed.has(r.id) ? '[failed: no answer] ' : ''}${r.title ?? '(untitled)'}`,
  );
  const more = offset + rows.length < total ? `\n${total - offset - rows.length} more (use --offset ${offset + rows.length})` : '';
  return `${head}\n${lines.join('\n')}${more}\n`;
}

export async function sessionsCommand(action: Action, args: string[], opts: Record<string, unknown>, settings: Settings): Promise<number> {
  // a terminal sink: titles, messages and tool output from the DB are reduced to printable text
  const out = (s: string) => process.stdout.write(opts.json ? s : sanitizeText(s));
  const store = await SessionStore.open(settings.data_dir);
  try {
    switch (action) {
      case 'list': {
        let mode;
        if (opts.mode !== undefined) {
          mode = parseMode(optText(opts.mode));
          if (!mode) throw new UsageError(`--mode: must be ${MODE_CHOICES_TEXT}`);
        }
        const limit = intOpt('limit', opts.limit, 1, 10_000) ?? 20;
        const offset = intOpt('offset', opts.offset, 0, 10_000_000) ?? 0;
        const { rows, total } = store.list({
          ...(opts.project ? { project: optText(opts.project) } : {}),
          ...(mode ? { mode } : {}),
          limit,
          offset,
        });
        // each request at the model it ran with; usage from before models were stored at the configured model
        const byModel = usageByModel(
          store.db,
          rows.map((r) => r.id),
        );
        const cost = (r: SessionRow) => roundUsd(sessionCost(byModel.get(r.id) ?? [], settings.model, settings.model_prices) ?? undefined);
        // a request that failed before any answer leaves its session: marked, not shown as a conversation
        const failed = failedBeforeAnswer(
          store.db,
          rows.map((r) => r.id),
        );
        if (opts.json)
          out(
            jsonText({ sessions: rows.map((r) => ({ ...r, cost_usd: cost(r), failed: failed.has(r.id) })), total, limit, offset }) + '\n',
          );
        else out(table(rows, total, offset, cost, failed));
        return 0;
      }
      case 'show': {
        const row = need(store, args[0]);
        const entries = store.saver.log.transcript(row.id);
        const tree = storedTree(store.db, row.id);
        if (opts.json) out(jsonText({ session: row, messages: entries, tree }) + '\n');
        else out(transcriptMarkdown(row, entries, { clipToolOutput: 1500 }) + treeMarkdown(row.id, tree) + '\n');
        return 0;
      }
      case 'rename': {
        const row = need(store, args[0]);
        const title = args.slice(1).join(' ').trim();
        if (!title) throw new UsageError('rename: missing <title>');
        store.setTitle(row.id, title);
        out(`renamed ${row.id.slice(0, 8)}: ${store.get(row.id)?.title}\n`);
        return 0;
      }
      case 'pin':
      case 'unpin': {
        const row = need(store, args[0]);
        store.setPinned(row.id, action === 'pin');
        out(`${action === 'pin' ? 'pinned' : 'unpinned'} ${row.id.slice(0, 8)}\n`);
        return 0;
      }
      case 'delete': {
        const row = need(store, args[0]);
        if (!opts.yes) {
          if (!process.stdin.isTTY) throw new UsageError('delete: pass --yes to delete without a terminal to confirm');
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          const answer = await rl.question(`delete session ${row.id.slice(0, 8)} "${sanitizeLine(row.title ?? '')}"? [y/N] `);
          rl.close();
          if (!/^y(es)?$/i.test(answer.trim())) {
            process.stderr.write('not deleted\n');
            return 0;
          }
        }
        store.delete(row.id, { force: opts.force === true });
        out(`deleted ${row.id.slice(0, 8)}\n`);
        return 0;
      }
      case 'export': {
        const row = need(store, args[0]);
        const format = optText(opts.format ?? 'md');
        if (format !== 'md' && format !== 'json') throw new UsageError(`--format: must be md or json, got "${format}"`);
        const entries = store.saver.log.transcript(row.id);
        const tree = storedTree(store.db, row.id);
        const text =
          format === 'json'
            ? jsonText({ session: row, messages: entries, tree }, 2) + '\n'
            : transcriptMarkdown(row, entries) + treeMarkdown(row.id, tree) + '\n';
        if (opts.output) {
          writeFileSync(optText(opts.output), format === 'json' ? text : sanitizeText(text), { mode: 0o600 });
          process.stderr.write(`exported ${row.id.slice(0, 8)} to ${optText(opts.output)}\n`);
        } else out(text);
        return 0;
      }
      case 'stop': {
        const row = need(store, args[0]);
        const trees = new TreeStore(store.db);
        let target = row.id;
        let what = `session ${row.id.slice(0, 8)}`;
        if (opts.agent !== undefined) {
          const t = runningAgent(trees, row.id, optText(opts.agent));
          if ('refused' in t) throw new UsageError(t.refused);
          target = t.node.id;
          what = `sub-agent ${t.node.id.slice(0, 8)} of session ${row.id.slice(0, 8)}`;
        }
        trees.requestStop(row.id, target);
        if (!(await stopTaken(trees, row.id, target)))
          throw new UsageError(`${what} has no running request to stop (nothing took the stop request within ${STOP_WAIT_MS / 1000} s)`);
        out(`stopped ${what}${target === row.id ? '' : ' and its sub-agents'}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown sessions action "${String(action)}"`);
    }
  } finally {
    store.close();
  }
}
