/**
 * The lab of the tests that need real VPCS PCs and little else: one FRR router R1 and the named
 * PCs, each on a link of its own to R1 (its own network, R1 its gateway: see LabPc).
 */
import { startLab, type Lab } from './lab.js';

export function startPcLab(pcs: readonly string[]): Promise<Lab> {
  return startLab({ routers: ['R1'], links: [], pcs: pcs.map((name) => ({ name, router: 'R1' })) });
}
