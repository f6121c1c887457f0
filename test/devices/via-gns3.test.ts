/**
 * The whole path a real session takes: GNS3 controller API (the fake, speaking
 * v2 and v3) → topology → device tools → the consoles of a real FRR/VPCS lab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.js';
import { memoryTokenStore } from '../../src/gns3/auth.js';
import { createGns3Client } from '../../src/gns3/client.js';
import { nullLogger } from '../../src/log.js';
import { devicesTools } from '../../src/tools/devices/index.js';
import type { ToolContext } from '../../src/tools/types.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { startLab, type Lab } from '../lab/lab.js';
import { closePool, runTool } from './helpers.js';

let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ routers: ['R1', 'R2'], links: [['R1', 'R2']], pcs: [{ name: 'PC1', router: 'R1' }] });
});
afterAll(async () => {
  await lab?.stop();
});

const tool = (name: string) => devicesTools.find((t) => t.name === name)!;

describe.each(['v2', 'v3'] as const)('device tools through a GNS3 %s controller', (api) => {
  it('resolves nodes from the project topology and runs commands on their consoles', async () => {
    const users = api === 'v3' ? { admin: 'pw' } : undefined;
    const fake = await startFakeGns3({ api, ...(users ? { users } : {}) });
    const settings = settingsSchema.parse({ server: fake.url, connect_timeout_ms: 3_000 });
    const client = createGns3Client({
      settings,
      log: nullLogger,
      credentials: async () => ({ username: 'admin', password: 'pw' }),
      tokenStore: memoryTokenStore(),
    });
    let ctx: ToolContext | undefined;
    try {
      fake.addProject({ name: 'ospf-lab' });
      const inLab = { project: 'ospf-lab' };
      // Platform from the node tag for R1, from the template name for R2, node type for PC1.
      fake.addNode(telnetNode('R1', lab.device('R1').consolePort, { tags: ['device_type:cisco_ios_telnet'], ...inLab }));
      fake.addNode(telnetNode('R2', lab.device('R2').consolePort, { console_host: '0.0.0.0', template_name: 'FRR 8.4', ...inLab }));
      fake.addNode(telnetNode('PC1', lab.device('PC1').consolePort, { node_type: 'vpcs', ...inLab }));
      fake.addNode(telnetNode('R3', 1, { status: 'stopped', ...inLab }));
      const project = await client.openProject('ospf-lab');
      ctx = { settings, signal: new AbortController().signal, log: nullLogger, project: async () => project, services: new Map() };

      const read = await runTool(
        tool('execute_multiple_device_commands'),
        {
          device_configs: [
            { device_name: 'R1', commands: ['show ip route connected'] },
            { device_name: 'r2', commands: ['show version'] },
            { device_name: 'R3', commands: ['show version'] },
          ],
        },
        ctx,
      );
      expect(read.status).toBe('partial');
      expect(read.devices[0]).toMatchObject({ device_name: 'R1', status: 'success', platform: 'cisco_ios' });
      expect(read.devices[0].results[0].output).toContain('C>* 10.0.1.0/24 is directly connected, eth0');
      // console_host 0.0.0.0 means "on the controller's host" (127.0.0.1 here).
      expect(read.devices[1]).toMatchObject({ device_name: 'R2', status: 'success', platform: 'frr' });
      expect(read.devices[2]).toMatchObject({ device_name: 'R3', status: 'error' });
      expect(read.devices[2].error).toContain('start it first');

      const cfg = await runTool(
        tool('execute_multiple_device_config_commands'),
        { device_configs: [{ device_name: 'R2', config_commands: ['interface lo', ` description via-${api}`] }] },
        ctx,
      );
      expect(cfg.status).toBe('success');
      expect(lab.vtysh('R2', 'show running-config')).toContain(`description via-${api}`);

      const pc = await runTool(tool('execute_vpcs_commands'), { device_configs: [{ device_name: 'PC1', commands: ['show ip'] }] }, ctx);
      expect(pc.devices[0].results[0].output).toMatch(/NAME\s+: PC1/);
    } finally {
      if (ctx) closePool(ctx);
      await client.close();
      await fake.close();
    }
  });
});
