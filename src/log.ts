/**
 * A small file logger. Writes to the XDG state dir (or GNS3_COPILOT_LOG_FILE),
 * never to stdout. Registered secrets are redacted from every line.
 */
import { appendFileSync } from 'node:fs';
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenFiles } from './config/perms.js';
import { dirname } from 'node:path';
import { logFile } from './config/paths.js';
import { redact } from './security/redact.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  debug(msg: string, data?: Record<string, unknown>): void;
}

// One registry for the log, outputs and the sessions DB (src/security/redact.ts).
export { registerSecret, redact } from './security/redact.js';

export function createLogger(level: LogLevel = 'info', file: string = process.env.GNS3_COPILOT_LOG_FILE ?? logFile()): Logger {
  let ready = false;
  const write = (lvl: LogLevel, msg: string, data?: Record<string, unknown>) => {
    if (ORDER[lvl] > ORDER[level]) return;
    try {
      if (!ready) {
        ensurePrivateDir(dirname(file));
        tightenFiles(file);
        ready = true;
      }
      const line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...data });
      appendFileSync(file, redact(line) + '\n', { mode: PRIVATE_FILE_MODE });
    } catch {
      // Logging must never break the tool; an unwritable log dir is not fatal.
    }
  };
  return {
    error: (m, d) => write('error', m, d),
    warn: (m, d) => write('warn', m, d),
    info: (m, d) => write('info', m, d),
    debug: (m, d) => write('debug', m, d),
  };
}

/** A logger that drops everything (tests, benches). */
export const nullLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
