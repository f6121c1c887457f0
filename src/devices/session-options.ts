/** The options of a DeviceSession (./session.ts) and of its commands. */
import type { Logger } from '../log.js';
import type { PlatformName } from './drivers.js';

export interface SessionOptions {
  /** platform when known (topology, tags, settings); detected from the prompt otherwise */
  platform?: PlatformName;
  openTimeoutMs: number;
  commandTimeoutMs: number;
  /** commands (case-insensitive prefixes) whose confirmation may be answered yes */
  confirmAllow: string[];
  /** send the platform's "no paging" commands after wake (default true) */
  disablePaging?: boolean;
  /** what Enter is on the wire (default: CR LF on telnet, LF on SSH) */
  newline?: string;
  /** console login, when the console asks for one */
  username?: string;
  password?: string;
  log?: Logger;
}

export interface RunOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** the command runs in configuration mode: any `% …` line is an error */
  config?: boolean;
}

export interface ConfigureOptions {
  continueOnError?: boolean;
  /** per line */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** overall deadline (performance.now() based) for the batch */
  deadline?: number;
}
