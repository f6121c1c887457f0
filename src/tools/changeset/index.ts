import type { ToolDef } from '../types.js';
import { applyConfigTemplate } from './apply-template.js';

/** Tools of this area, registered by ../registry.ts. */
export const changeSetTools: ToolDef[] = [applyConfigTemplate];
