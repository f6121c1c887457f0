/**
 * Every FRR injection scenario on a real FRR router: with the parameters' example
 * values filled in, the inject commands are accepted by vtysh and change the
 * running-config, and the restore commands bring back exactly the original one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { fillPlaceholders, type InjectionScenario } from '../../src/skills/schema.js';
import { startFrrRouter, type FrrRouter } from './frr-router.js';

/** A small router config that every scenario's example values fit. */
const BASELINE = [
  'interface eth0',
  'ip address 10.0.12.1/24',
  'exit',
  'interface lo',
  'ip address 1.1.1.1/32',
  'exit',
  'router ospf',
  'ospf router-id 1.1.1.1',
  'network 10.0.12.0/24 area 0',
  'network 1.1.1.1/32 area 0',
  'exit',
  'router bgp 65001',
  'bgp router-id 1.1.1.1',
  'no bgp ebgp-requires-policy',
  'neighbor 10.0.12.2 remote-as 65002',
  'address-family ipv4 unicast',
  'network 1.1.1.1/32',
  'exit-address-family',
  'exit',
  'ip route 192.168.100.0/24 10.0.12.2',
  'ip route 0.0.0.0/0 10.0.12.2',
];

const lib = new SkillStore([builtinSkillsDir()]).load();
const frrScenarios = [...lib.injection.values()].filter((s) => s.platforms.includes('frr'));

let router: FrrRouter;
let baseline: string;

beforeAll(() => {
  router = startFrrRouter();
  const r = router.configure(BASELINE);
  if (!r.ok) throw new Error(`baseline config failed:\n${r.output}`);
  baseline = router.runningConfig();
});
afterAll(() => router?.stop());

function lines(s: InjectionScenario, side: 'inject' | 'restore'): string[] {
  const values = Object.fromEntries(s.parameters.map((p) => [p.name, p.example]));
  return s[side]!.frr!.map((l) => fillPlaceholders(l, values));
}

describe('FRR injection scenarios on a real router', () => {
  it('the baseline is what the scenarios expect', () => {
    expect(frrScenarios.length).toBeGreaterThanOrEqual(15);
    expect(baseline).toContain('ip address 10.0.12.1/24');
    expect(baseline).toContain('neighbor 10.0.12.2 remote-as 65002');
    expect(baseline).toContain('ip route 192.168.100.0/24 10.0.12.2');
  });

  it.each(frrScenarios.map((s) => [s.id, s] as const))('%s: inject is accepted and restore returns the original config', (_id, s) => {
    const inj = router.configure(lines(s, 'inject'));
    expect(inj.ok, inj.output).toBe(true);
    const broken = router.runningConfig();
    expect(broken).not.toBe(baseline);
    const res = router.configure(lines(s, 'restore'));
    expect(res.ok, res.output).toBe(true);
    const restored = router.runningConfig();
    if (restored !== baseline) router.configure(BASELINE); // keep later scenarios independent
    expect(restored).toBe(baseline);
  });

  it('the harness does catch a rejected command', () => {
    const r = router.configure(['router ospf', 'network 10.0.99.0/24 area 0 bogus']);
    expect(r.ok).toBe(false);
  });
});
