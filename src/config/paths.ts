/** XDG locations (docs/ARCHITECTURE.md, Settings and files). Computed on call so tests can point HOME/XDG_* at temp dirs. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveSystemConfig } from './system-path.js';

const APP = 'gns3-copilot';

function xdg(varName: string, fallback: string): string {
  const v = process.env[varName];
  return v && v.startsWith('/') ? v : join(homedir(), fallback);
}

export function configDir(): string {
  return join(xdg('XDG_CONFIG_HOME', '.config'), APP);
}
export function userConfigFile(): string {
  return join(configDir(), 'config.json');
}
export function dataDir(override?: string): string {
  return override ?? process.env.GNS3_COPILOT_DATA_DIR ?? join(xdg('XDG_DATA_HOME', '.local/share'), APP);
}
export function sessionsDbFile(override?: string): string {
  return join(dataDir(override), 'sessions.db');
}
export function stateDir(): string {
  return join(xdg('XDG_STATE_HOME', '.local/state'), APP);
}
export function logFile(): string {
  return join(stateDir(), 'gns3-copilot.log');
}
/** The classroom file; a GNS3_COPILOT_SYSTEM_CONFIG override only when root-owned (./system-path.ts). */
export function systemConfigFile(): string {
  return resolveSystemConfig(process.env).file;
}
export const PROJECT_CONFIG_NAME = '.gns3-copilot.json';
