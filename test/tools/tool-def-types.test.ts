/**
 * A tool that changes something cannot forget what it touches: `targets` is required by
 * the type for every risk but `read` (without it a config tool would silently lose its
 * checkpoints, preview and rewind). The `@ts-expect-error` lines are the test: `tsc
 * --noEmit` (part of `npm test`) fails when one of them compiles. The assertions below
 * check that what does compile means what it says.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolDef } from '../../src/tools/types.js';
import { bulkTool } from '../../src/tools/gns3/bulk.js';
import { TOOL_TARGETS } from '../../src/tools/targets.js';
import { allTools } from '../../src/tools/index.js';

const base = { description: 'x', schema: z.object({}), run: async () => ({ status: 'success' as const, data: {} }) };
const bulkBase = { description: 'x', noun: 'nodes', schema: z.object({}), items: () => [], run: async () => ({}), describe: () => ({}) };

describe('ToolDef.targets', () => {
  it('a config or lab tool without targets does not compile; a read tool may leave them out', () => {
    // @ts-expect-error a config tool must name its targets
    const configTool = defineTool({ ...base, name: 'execute_multiple_device_config_commands', risk: 'config' });
    // @ts-expect-error so must a lab tool
    const labTool = defineTool({ ...base, name: 'create_gns3_node', risk: 'lab' });
    // @ts-expect-error and a bulk tool that changes the lab
    const bulkLab = bulkTool({ ...bulkBase, name: 'start_gns3_node', risk: 'lab' });
    const readTool = defineTool({ ...base, name: 'gns3_topology_reader', risk: 'read' });
    const bulkRead = bulkTool({ ...bulkBase, name: 'get_gns3_node_console', risk: 'read' });
    // null says on purpose that nobody knows what it touches (a user MCP server's tool)
    const unknownTargets: ToolDef = defineTool({ ...base, name: 'srv__wipe', risk: 'config', targets: null });
    const named = defineTool({ ...base, name: 'create_gns3_node', risk: 'lab', targets: TOOL_TARGETS.create_gns3_node });
    expect([configTool, labTool, bulkLab, readTool, bulkRead].map((t) => t.targets)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(unknownTargets.targets?.({})).toBeUndefined();
    expect(named.targets?.({ nodes: [{ template: 'VPCS', name: 'PC9' }] })).toMatchObject({ nodes: [{ name: 'PC9' }] });
  });

  it('every built-in tool that changes something names its targets', () => {
    const changing = allTools().filter((t) => t.risk !== 'read');
    expect(changing.length).toBeGreaterThan(5);
    expect(changing.filter((t) => typeof t.targets !== 'function').map((t) => t.name)).toEqual([]);
  });
});
