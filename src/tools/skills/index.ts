import type { ToolDef } from '../types.js';
import { deviceSkillsTool } from './device-skills.js';
import { injectionSkillsTool } from './injection-skills.js';
import { packetAnalysisTool } from './packet-analysis.js';
import { packetAnalysisSkillsTool } from './packet-skills.js';

/** Tools of this area, registered by ../registry.ts. All read-only. */
export const skillTools: ToolDef[] = [deviceSkillsTool, packetAnalysisSkillsTool, injectionSkillsTool, packetAnalysisTool];
