/** Checkpoint capture on the real lab: FRR running-config and VPCS settings through the pooled consoles, in parallel. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { captureDevices } from '../../src/checkpoints/capture.js';
import type { ToolContext } from '../../src/tools/types.js';
import { closePool, ctxFor, runTool, settingsWith } from '../devices/helpers.js';
import { executeVpcsCommands } from '../../src/tools/devices/commands.js';

let lab: Lab;
let ctx: ToolContext;

beforeAll(async () => {
  lab = await startLab({ routers: ['r1', 'r2'], links: [['r1', 'r2']], pcs: [{ name: 'PC1', router: 'r1' }] });
  ctx = ctxFor(settingsWith(), lab.topology());
});

afterAll(async () => {
  if (ctx) closePool(ctx);
  await lab?.stop();
});

describe('captureDevices', () => {
  it('takes running-config from routers and show ip from PCs, and says why for a device it cannot reach', async () => {
    await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'PC1', commands: ['ip 192.168.1.10/24 192.168.1.1'] }] }, ctx);
    const got = await captureDevices(['r1', 'r2', 'PC1', 'R9'], ctx);
    expect([...got.keys()]).toEqual(['r1', 'r2', 'PC1', 'R9']);
    const r1 = got.get('r1')!;
    expect(r1.platform).toBe('frr');
    expect(r1.config).toMatch(/^hostname r1$/m);
    // the same text vtysh prints, without the console's prompt or echo
    expect(r1.config).not.toMatch(/r1#|show running-config/);
    expect(lab.vtysh('r1', 'show running-config')).toContain(r1.config!.split('\n').slice(-3).join('\n'));
    expect(got.get('PC1')).toEqual({ platform: 'vpcs', config: 'ip 192.168.1.10/24 192.168.1.1' });
    expect(got.get('R9')!.error).toMatch(/no node named "R9"/);
  });
});
