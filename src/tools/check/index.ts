import type { ToolDef } from '../types.js';
import { verifyLab } from './verify-lab.js';

/** The lab checker's tools (src/check/). */
export const checkTools: ToolDef[] = [verifyLab];
