import type { ToolDef } from '../types.js';
import { executeMultipleDeviceCommands } from './commands.js';
import { executeMultipleDeviceConfigCommands } from './config.js';
import { executeVpcsCommands } from './vpcs.js';

/** Tools of this area, registered by ../registry.ts. */
export const devicesTools: ToolDef[] = [executeMultipleDeviceCommands, executeMultipleDeviceConfigCommands, executeVpcsCommands];
