/**
 * Which scenarios fit a lab and why the others do not, and the seeded draw of `--random`:
 * the same seed gives the same picks on the same lab, a scenario the project used is not
 * drawn again (unless repeats are allowed), a target with an open fault of the category is
 * passed over. On the built-in library with the FRR fixture router and a real topology shape.
 */
import { describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { fitScenarios, type LabFacts } from '../../src/scenarios/fit.js';
import { pickScenarios, seededRandom, shuffled, slotKey } from '../../src/scenarios/pick.js';
import type { Topology } from '../../src/gns3/types.js';
import { topologyNode } from '../helpers/topology.js';
import { FRR_R1, facts } from './fixtures.js';

const lib = new SkillStore([builtinSkillsDir()]).load();
const scenarios = [...lib.injection.values()];

const topology: Topology = {
  project_id: 'p1',
  project_name: 'lab',
  nodes: ['R1', 'R2', 'PC1'].map((n) =>
    topologyNode(n, n === 'PC1' ? { node_type: 'vpcs' } : { tags: ['device_type:frr'], template_name: 'FRR' }),
  ),
  links: [
    {
      link_id: 'l-12',
      link_type: 'ethernet',
      ends: [
        { node_id: 'R1', node_name: 'R1', adapter_number: 0, port_number: 0, port_name: 'e0' },
        { node_id: 'R2', node_name: 'R2', adapter_number: 0, port_number: 0, port_name: 'e0' },
      ],
      filters: {},
      suspend: false,
      capturing: false,
    },
  ],
};
// R2 is R1's twin under another name: both fit what R1 fits
const devices = [facts('R1', 'frr', FRR_R1), facts('R2', 'frr', FRR_R1)];
const lab: LabFacts = { topology, devices };

describe('fitScenarios', () => {
  const fit = fitScenarios(scenarios, lab, { level: 'ccie' });
  const byId = Object.fromEntries(fit.map((f) => [f.id, f]));

  it('places a scenario on every device of its platform whose parameters resolve, and a link fault on every clean link', () => {
    expect(byId.ospf_hello_interval_mismatch!.fits.map((p) => p.target)).toEqual([
      { kind: 'device', name: 'R1', platform: 'frr' },
      { kind: 'device', name: 'R2', platform: 'frr' },
    ]);
    expect(byId.link_packet_loss_30!.fits.map((p) => p.target)).toEqual([
      { kind: 'link', link_id: 'l-12', label: 'R1:e0 <-> R2:e0', ends: ['R1:e0', 'R2:e0'] },
    ]);
    expect(byId.link_packet_loss_30!.fits[0]!.applied).toEqual({ packet_loss: [30] });
  });

  it('says why the others do not fit: the platform, a parameter, the level', () => {
    expect(byId.acl_block_icmp!.reason).toBe('no cisco_ios device in the lab (platforms: frr)');
    expect(byId.bgp_neighbor_shutdown!.reason).toBe(
      `R1: no value for local_as (this router's AS): R1's running configuration has no "router bgp {{local_as}}"; set it with --set local_as=VALUE (and 1 more device of its platforms)`,
    );
    const ccna = fitScenarios(scenarios, lab, { level: 'ccna' });
    expect(ccna.find((f) => f.id === 'ospf_auth_mismatch')!.reason).toBe('hard: inject_level ccna offers easy faults only');
    const used = fitScenarios(scenarios, lab, { level: 'ccie', used: new Map([['interface_shutdown', [4, 9]]]) });
    expect(used.find((f) => f.id === 'interface_shutdown')!.reason).toBe(
      'used in this project already (fault #4, #9); --allow-repeat to use it again',
    );
    const again = fitScenarios(scenarios, lab, { level: 'ccie', used: new Map([['interface_shutdown', [4]]]), allowRepeat: true });
    expect(again.find((f) => f.id === 'interface_shutdown')!.fits).toHaveLength(2);
  });

  it('a link that carries a filter already takes no link fault', () => {
    const filtered = { ...topology, links: [{ ...topology.links[0]!, filters: { delay: [10] } }] };
    const f = fitScenarios(scenarios, { topology: filtered, devices }, { level: 'ccie' });
    expect(f.find((x) => x.id === 'link_jitter')!.reason).toBe('every link carries filters already');
  });
});

describe('the seeded draw', () => {
  const draw = (o: Partial<Parameters<typeof pickScenarios>[2]> & { seed: string }) => {
    const read: string[] = [];
    return pickScenarios(scenarios, topology, {
      level: 'ccie',
      count: 3,
      random: seededRandom(o.seed),
      busy: new Set(),
      factsOf: (name) => {
        read.push(name);
        return Promise.resolve(devices.find((d) => d.name === name) ?? facts(name, 'frr', {}));
      },
      ...o,
    }).then((r) => ({
      ...r,
      read,
      ids: r.picks.map((p) => `${p.scenario.id}@${p.target.kind === 'device' ? p.target.name : p.target.label}`),
    }));
  };

  it('a seed is a sequence: the same on every run, another for another seed', () => {
    const a = seededRandom('1');
    const b = seededRandom('1');
    const seq = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(seq);
    expect(seq.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom('1'))).toEqual(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom('1')));
    expect(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom('2'))).not.toEqual(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom('1')));
  });

  it('draws N different scenarios that fit, the same ones for the same seed', async () => {
    const one = await draw({ seed: '1' });
    const two = await draw({ seed: '1' });
    expect(one.ids).toHaveLength(3);
    expect(two.ids).toEqual(one.ids);
    expect(new Set(one.picks.map((p) => p.scenario.id)).size).toBe(3);
    // PC1 (VPCS) is never read for an FRR scenario: the topology's platform hint rules it out
    expect(one.read).not.toContain('PC1');
    const others = await Promise.all(['2', '3', '4', '5'].map((seed) => draw({ seed })));
    expect(others.some((o) => o.ids.join() !== one.ids.join())).toBe(true);
  });

  it('leaves out what the project used and targets with an open fault of the category', async () => {
    const first = await draw({ seed: '1' });
    const used = new Map(first.picks.map((p, i) => [p.scenario.id, [i + 1]]));
    const next = await draw({ seed: '1', used });
    expect(next.ids).toHaveLength(3);
    expect(next.picks.map((p) => p.scenario.id).filter((id) => used.has(id))).toEqual([]);
    const again = await draw({ seed: '1', used, allowRepeat: true });
    expect(again.ids).toEqual(first.ids);

    const busy = new Set(['R1', 'R2'].map((d) => slotKey(d, 'ospf')));
    const noOspf = await draw({ seed: '1', busy, count: 10 });
    expect(noOspf.picks.filter((p) => p.scenario.category === 'ospf')).toEqual([]);
  });

  it('only the named device or link; fewer than N when fewer fit, with why', async () => {
    const onR2 = await draw({ seed: '7', device: 'R2', count: 5 });
    expect(onR2.picks.every((p) => p.target.kind === 'device' && p.target.name === 'R2')).toBe(true);
    const onLink = await draw({ seed: '7', link: 'l-12', count: 50 });
    // one open fault per category on a target: the link takes one link fault
    expect(onLink.ids).toEqual([expect.stringMatching(/^link_\w+@R1:e0 <-> R2:e0$/)]);
    expect(onLink.skipped.some((s) => s.reason === 'a link fault is open on R1:e0 <-> R2:e0')).toBe(true);
  });
});
