/** OSPF on the test lab's FRR routers: the config-mode lines that bring every link of a router into area 0. */
import type { Lab } from './lab.js';

export interface OspfOptions {
  /** all routers in order: router-id 10.255.255.<n> for the n-th */
  routers: string[];
  /** networks to add to area 0 besides the lab's links and loopbacks */
  networks?: string[];
  /** put before each line inside a block (' ' gives running-config style) */
  indent?: string;
}

/** Every link of `router` in area 0 as point-to-point with fast hellos (1 s, dead 4 s). */
export function ospfAreaZero(lab: Lab, router: string, o: OspfOptions): string[] {
  const inner = (line: string) => `${o.indent ?? ''}${line}`;
  const ifaces = lab.links.flatMap((l) => (l.a === router ? [l.aInterface] : l.b === router ? [l.bInterface] : []));
  const networks = ['10.0.0.0/16', '10.255.255.0/24', ...(o.networks ?? [])];
  return [
    'router ospf',
    inner(`ospf router-id 10.255.255.${o.routers.indexOf(router) + 1}`),
    ...networks.map((n) => inner(`network ${n} area 0`)),
    'exit',
    ...ifaces.flatMap((f) => [
      `interface ${f}`,
      ...['ip ospf network point-to-point', 'ip ospf hello-interval 1', 'ip ospf dead-interval 4'].map(inner),
      'exit',
    ]),
  ];
}
