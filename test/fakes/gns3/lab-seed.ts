/**
 * A lab of any size for the map and live-topology tests: routers R1..R4 in a ring (R1–R2
 * with a packet_loss filter, R2–R3 suspended, R3 stopped), a switch under each router, and
 * PCs spread over the switches until the lab has `size` nodes.
 */
import type { FakeGns3 } from './server.js';

export function seedRingLab(fake: FakeGns3, size: number, project?: string): void {
  const routers = Math.min(4, size);
  for (let r = 1; r <= routers; r++) fake.addNode({ name: `R${r}`, node_type: 'qemu', status: r === 3 ? 'stopped' : 'started', project });
  if (routers === 4)
    for (let r = 1; r <= 4; r++)
      fake.addLink({
        a: `R${r}:e0`,
        b: `R${(r % 4) + 1}:e1`,
        project,
        ...(r === 1 ? { filters: { packet_loss: [50] } } : {}),
      });
  if (routers === 4) fake.project(project).links.get([...fake.project(project).links.keys()][1]!)!.suspend = true;
  let made = routers;
  for (let r = 1; r <= routers && made < size; r++, made++) {
    fake.addNode({ name: `SW${r}`, node_type: 'ethernet_switch', project });
    fake.addLink({ a: `R${r}:e2`, b: `SW${r}:e0`, project });
  }
  for (let pc = 1; made < size; pc++, made++) {
    const sw = ((pc - 1) % routers) + 1;
    fake.addNode({ name: `PC${pc}`, node_type: 'vpcs', project });
    fake.addLink({ a: `SW${sw}:e${1 + Math.floor((pc - 1) / routers)}`, b: `PC${pc}:e0`, project });
  }
}

/**
 * `nodes` FRR routers with 4 ports in a ring plus a chord from every other router to the one
 * opposite, a third of them stopped (the token bench's and the prompt-size tests' lab).
 * Returns the number of links.
 */
export function seedRouterRing(fake: FakeGns3, project: string, nodes: number): number {
  fake.addProject({ name: project });
  for (let i = 1; i <= nodes; i++)
    fake.addNode({ project, name: `R${i}`, node_type: 'qemu', template_name: 'FRR', ports: 4, status: i % 3 ? 'started' : 'stopped' });
  for (let i = 1; i <= nodes; i++) fake.addLink({ project, a: `R${i}:e0`, b: `R${(i % nodes) + 1}:e1` });
  let chords = 0;
  for (let i = 1; i + nodes / 2 <= nodes; i += 2, chords++) fake.addLink({ project, a: `R${i}:e2`, b: `R${i + nodes / 2}:e3` });
  return nodes + chords;
}
