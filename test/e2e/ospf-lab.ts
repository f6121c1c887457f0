/**
 * The OSPF triangle both OSPF end-to-end tests run on: three real FRR routers (R1–R3,
 * fully linked) whose telnet consoles are the nodes of a fake v3 GNS3 controller.
 * Needs root + frr (fails, never skips, when missing).
 */
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero } from '../lab/ospf.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';

export const ROUTERS = ['R1', 'R2', 'R3'];

export interface OspfLab {
  lab: Lab;
  gns3: FakeGns3;
  projectId: string;
  /** closes the controller, then stops the lab */
  stop(): Promise<void>;
}

/** The lab and a controller (user admin / admin-pass) with one project holding R1–R3. */
export async function startOspfLab(projectName: string): Promise<OspfLab> {
  const lab = await startLab({
    routers: ROUTERS,
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
      ['R1', 'R3'],
    ],
  });
  const gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  const projectId = gns3.addProject({ name: projectName });
  for (const name of ROUTERS) {
    const d = lab.device(name);
    gns3.addNode(frrLabNode(d, { ports: 4 }));
  }
  const stop = async () => {
    await gns3.close();
    await lab.stop();
  };
  return { lab, gns3, projectId, stop };
}

/** Config-mode commands that put every link of `router` in area 0 with fast hellos, every LSA accepted as it arrives. */
export function ospfConfig(lab: Lab, router: string): string[] {
  return ospfAreaZero(lab, router, { routers: ROUTERS, quickFlooding: true });
}

export function fullNeighbours(lab: Lab, router: string): number {
  return lab
    .vtysh(router, 'show ip ospf neighbor')
    .split('\n')
    .filter((l) => /Full/.test(l)).length;
}

/**
 * Waits until every router has both neighbours Full, polling the routers out of band every 100 ms
 * (a read is three vtysh calls); throws naming the routers still short when `timeoutMs` (a bound
 * for a loaded machine) runs out, so a test never goes on with a mesh that did not form.
 */
export async function waitForFullMesh(lab: Lab, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const short = ROUTERS.map((x) => [x, fullNeighbours(lab, x)] as const).filter(([, n]) => n < 2);
    if (short.length === 0) return;
    if (Date.now() >= deadline)
      throw new Error(
        `OSPF full mesh not formed within ${timeoutMs} ms: ${short.map(([x, n]) => `${x} has ${n} of 2 neighbours Full`).join(', ')}`,
      );
    await new Promise((res) => setTimeout(res, 100));
  }
}
