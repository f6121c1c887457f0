/** Which failed tool calls run again: nothing reached the target → any call; it may have → reads only, and only when asked. */
import { describe, expect, it } from 'vitest';
import { isUnsentError, mayRetry, sendsConfiguration } from '../../src/tools/retry.js';
import type { ToolResult } from '../../src/tools/types.js';
import { TOOL_TARGETS } from '../../src/tools/targets.js';
import { ControllerError } from '../../src/errors.js';

const failed = (flags: Partial<ToolResult>): ToolResult => ({ status: 'error', output: '{}', ...flags });

describe('mayRetry', () => {
  const rows: [string, Partial<ToolResult>, boolean, boolean, boolean][] = [
    // result flags, sends configuration, retry_on_tool_error, retried
    ['nothing reached the target, a read, setting off', { transient: true, unsent: true }, false, false, true],
    ['nothing reached the target, a config call, setting off', { transient: true, unsent: true }, true, false, true],
    ['nothing reached the target, a config call, setting on', { transient: true, unsent: true }, true, true, true],
    ['may have reached the target, a read, setting on', { transient: true }, false, true, true],
    ['may have reached the target, a read, setting off', { transient: true }, false, false, false],
    ['may have reached the target, a config call, setting on', { transient: true }, true, true, false],
    ['not transient, a read, setting on', {}, false, true, false],
    ['unsent but not transient (a bad file, not a connection), setting on', { unsent: true }, false, true, false],
  ];
  it.each(rows)('%s', (_name, flags, sendsConfig, retryOnToolError, want) => {
    expect(mayRetry(failed(flags), { sendsConfig, retryOnToolError })).toBe(want);
  });

  it('a result that is not an error never runs again', () => {
    expect(mayRetry({ status: 'partial', output: '', transient: true, unsent: true }, { sendsConfig: false, retryOnToolError: true })).toBe(
      false,
    );
  });
});

describe('sendsConfiguration', () => {
  it('config tools, and tools whose targets send configuration lines; not reads, not a power change', () => {
    const d = (device_name: string, commands: string[]) => ({ device_configs: [{ device_name, commands }] });
    expect(sendsConfiguration({ risk: 'config' }, {})).toBe(true);
    expect(sendsConfiguration({ risk: 'read', targets: TOOL_TARGETS.execute_multiple_device_commands }, d('R1', ['show ip route']))).toBe(
      false,
    );
    // a stop loses unsaved configuration (it is checkpointed) but sends none
    expect(sendsConfiguration({ risk: 'lab', targets: TOOL_TARGETS.stop_gns3_node }, { nodes: ['R1'] })).toBe(false);
    expect(sendsConfiguration({ risk: 'lab', targets: TOOL_TARGETS.execute_vpcs_commands }, d('PC1', ['ip 10.0.0.1/24']))).toBe(true);
    expect(sendsConfiguration({ risk: 'lab' }, {})).toBe(false);
  });
});

describe('isUnsentError', () => {
  it('a connection that could not be opened; not one dropped after the request', () => {
    const cause = (code: string) => new ControllerError('unreachable', { cause: Object.assign(new Error(code), { code }) });
    expect(isUnsentError(cause('ECONNREFUSED'))).toBe(true);
    expect(isUnsentError(cause('UND_ERR_CONNECT_TIMEOUT'))).toBe(true);
    expect(isUnsentError(cause('ECONNRESET'))).toBe(false);
    expect(isUnsentError(cause('UND_ERR_HEADERS_TIMEOUT'))).toBe(false);
    expect(isUnsentError(new Error('ECONNREFUSED'))).toBe(false);
  });
});
