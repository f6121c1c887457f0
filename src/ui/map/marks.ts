/** Which links the map marks (~1, ~2…) and what its legend says about them: suspended, filtered, capturing. */
import type { Topology, TopologyLink } from '../../gns3/types.js';
import { filtersLine } from '../../gns3/topology-diff.js';

export function linkNote(l: TopologyLink): string | undefined {
  const filters = filtersLine(l.filters);
  const said = [l.suspend ? 'suspended' : '', filters ? `filters ${filters}` : '', l.capturing ? 'capturing' : '']
    .filter(Boolean)
    .join('; ');
  return said || undefined;
}

export const markedLinks = (t: Topology): number => t.links.filter((l) => linkNote(l) !== undefined).length;
