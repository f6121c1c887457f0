/**
 * The MCP server and the MCP client tools speak the same result shape: a
 * registry ToolResult becomes a CallToolResult (isError from the status) and a
 * CallToolResult becomes a ToolOutcome again, keeping status, data and message.
 */
import { describe, expect, it } from 'vitest';
import { toCallToolResult } from '../../src/mcp/server/tools.js';
import { outcomeOfCallResult } from '../../src/mcp/client/connection.js';
import { failure, type ToolOutcome } from '../../src/tools/types.js';
import { outcomeText, toolResultOf } from '../../src/tools/registry.js';

const roundTrip = (o: ToolOutcome) => outcomeOfCallResult(toCallToolResult(toolResultOf(o, 16_000)));

describe('MCP result shape', () => {
  it('success and partial are results, error is isError; each comes back with its status and data', () => {
    const partial: ToolOutcome = {
      status: 'partial',
      data: {
        results: [
          { node: 'R1', status: 'success' },
          { node: 'R9', status: 'error', error: 'no node R9' },
        ],
      },
    };
    expect(toCallToolResult(toolResultOf(partial, 16_000)).isError).toBeUndefined();
    expect(roundTrip(partial)).toEqual({ status: 'partial', data: partial.data });
    expect(outcomeText(roundTrip(partial))).toBe(outcomeText(partial));

    const ok: ToolOutcome = { status: 'success', data: { count: 2 } };
    expect(roundTrip(ok)).toEqual(ok);

    const bad = failure('no project is open', { hint: 'pass --project' });
    const served = toCallToolResult(toolResultOf(bad, 16_000));
    expect(served.isError).toBe(true);
    expect(served.structuredContent).toEqual({ status: 'error', error: 'no project is open', hint: 'pass --project' });
    expect(roundTrip(bad)).toEqual({
      status: 'error',
      code: 'failed',
      data: { error: 'no project is open', hint: 'pass --project' },
      display: 'no project is open',
    });
  });

  it("another server's results: its structured content as sent, its text, or its error text", () => {
    expect(outcomeOfCallResult({ content: [], structuredContent: { rows: [1] } })).toEqual({ status: 'success', data: '{"rows":[1]}' });
    expect(outcomeOfCallResult({ content: [{ type: 'text', text: 'hello' }] })).toEqual({ status: 'success', data: 'hello' });
    expect(outcomeOfCallResult({ content: [{ type: 'text', text: 'quota exceeded' }], isError: true })).toMatchObject({
      status: 'error',
      display: 'quota exceeded',
    });
  });
});
