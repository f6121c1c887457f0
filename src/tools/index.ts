import type { ToolDef } from './types.js';
import { gns3Tools } from './gns3/index.js';
import { devicesTools } from './devices/index.js';
import { skillTools } from './skills/index.js';
import { checkTools } from './check/index.js';
import { changeSetTools } from './changeset/index.js';

/** Every tool the product has; modes pick subsets (../core/modes.ts). */
export function allTools(): ToolDef[] {
  return [...gns3Tools, ...devicesTools, ...skillTools, ...checkTools, ...changeSetTools];
}
