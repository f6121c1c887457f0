import { MODE_TOOLS } from '../../src/core/modes.js';
import type { CopilotMode } from '../../src/core/modes.js';

/** The tools `gns3-copilot mcp` lists in a mode: the mode's lab tools; `agent` (sub-agents) belongs to an agent session, not to an MCP client. */
export const servedTools = (mode: CopilotMode): string[] => MODE_TOOLS[mode].filter((t) => t !== 'agent');
