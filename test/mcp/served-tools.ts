import { MODE_TOOLS } from '../../src/core/modes.js';
import type { CopilotMode } from '../../src/core/modes.js';

/**
 * The sub-agent tree's tools: `agent` and the recursive task protocol's own (registered only
 * in recursive agent sessions). They belong to an agent session, not to an MCP client.
 */
const TREE_TOOLS = new Set(['agent', 'read_context_ref', 'review_task']);

/** The tools `gns3-copilot mcp` lists in a mode: the mode's lab tools. */
export const servedTools = (mode: CopilotMode): string[] => MODE_TOOLS[mode].filter((t) => !TREE_TOOLS.has(t));
