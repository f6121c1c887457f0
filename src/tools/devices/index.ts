import type { ToolDef } from '../types.js';
import { executeMultipleDeviceCommands, executeVpcsCommands } from './commands.js';
import { executeMultipleDeviceConfigCommands } from './config.js';

/** Tools of this area, registered by ../registry.ts. */
export const devicesTools: ToolDef[] = [executeMultipleDeviceCommands, executeMultipleDeviceConfigCommands, executeVpcsCommands];
