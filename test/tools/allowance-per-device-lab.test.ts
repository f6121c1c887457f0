/**
 * "Allow for this session" holds for the tool on the devices the user saw, nothing wider:
 * the real session's gate, the fake LLM over HTTP, the fake controller whose VPCS nodes are
 * real VPCS consoles (test/lab). An allowance for a change to PC1 does not let the same tool
 * change PC2 with other commands, nor PC1 and PC2 together; PC1 again runs unasked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import { startPcLab } from '../lab/pc-lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { vpcsLabNode } from '../fakes/gns3/nodes.js';
import { collect, ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { allTools } from '../../src/tools/index.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/core/api.js';

const { tmp, startLlm } = useFakeLlm('gc-allow-dev-');
let lab: Lab;
let gns3: FakeGns3;

beforeAll(async () => {
  lab = await startPcLab(['PC1', 'PC2']);
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'allow-lab' });
  for (const pc of lab.pcs) gns3.addNode(vpcsLabNode(lab.device(pc.name), { project: 'allow-lab' }));
});
afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
});

const vpcs = (id: string, commands: Record<string, string[]>) => ({
  id,
  name: 'execute_vpcs_commands',
  args: { device_configs: Object.entries(commands).map(([device_name, cmds]) => ({ device_name, commands: cmds })) },
});

describe('allow for this session, per tool and device', () => {
  it('"a" on a change to PC1 does not let the tool change PC2, nor PC1 with PC2; PC1 alone runs unasked', async () => {
    const [pc1, pc2] = lab.pcs;
    const llm = await startLlm([
      { tool_calls: [vpcs('a1', { PC1: [`ip ${pc1!.address} ${pc1!.gateway}`] })] },
      { tool_calls: [vpcs('a2', { PC2: [`ip ${pc2!.address} ${pc2!.gateway}`] })] },
      { tool_calls: [vpcs('a3', { PC1: ['show ip'], PC2: ['show ip'] })] },
      { tool_calls: [vpcs('a4', { PC1: ['show ip'] })] },
      { text: 'done' },
    ]);
    const asked: ApprovalRequest[] = [];
    const answers: ApprovalDecision[] = [{ kind: 'allow_session' }, { kind: 'deny' }, { kind: 'deny' }];
    const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'allow-lab', mode: 'lab' }), allTools(), {
      approver: async (req) => {
        asked.push(req);
        return answers.shift() ?? { kind: 'deny' };
      },
    });
    try {
      const ev = await collect(s.send('address the PCs'));
      // asked about PC1 (allowed for the session), PC2 (a device never allowed), PC1+PC2 (not all allowed)
      expect(asked.map((r) => r.id)).toEqual(['a1', 'a2', 'a3']);
      const ends = Object.fromEntries(ofType(ev, 'tool_end').map((e) => [e.id, e]));
      expect(ends.a1!.status).toBe('success');
      expect(ends.a2!.status).toBe('blocked');
      expect(ends.a3!.status).toBe('blocked');
      // PC1 again: the allowance covers it, it ran on the real PC without a question
      expect(ends.a4!.status).toBe('success');
      expect(ends.a4!.output).toContain(pc1!.address.split('/')[0]);
    } finally {
      await s.close();
    }
  });
});
