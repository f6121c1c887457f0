/**
 * Every FRR injection scenario on a real FRR router: with the parameters' example
 * values filled in, the inject commands are accepted by vtysh and change the
 * running-config, and the restore commands bring back exactly the original one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { fillCheck, fillPlaceholders, type InjectionScenario } from '../../src/skills/schema.js';
import { validateCheck } from '../../src/check/load.js';
import { planCheck } from '../../src/check/plan.js';
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

  // The fault ledger's repair checks: a check that passes on the working router, fails once the
  // fault is in, and passes again after the restore (the checker's FRR plan, fed by vtysh).
  const withCheck = frrScenarios.filter((s) => s.repair_check);
  function repairVerdict(s: InjectionScenario): string {
    const values = { device: 'R1', ...Object.fromEntries(s.parameters.map((p) => [p.name, p.example])) };
    const v = validateCheck(fillCheck(s.repair_check!, values));
    if (!v.ok) return `invalid: ${v.issue.message}`;
    const plan = planCheck(v.check, 'frr');
    if ('error' in plan) return `error: ${plan.error}`;
    const outputs = new Map([...plan.commands, ...plan.bounded].map((c) => [c, router.vtysh([c]).output]));
    const verdict = plan.decide((c) => ({ command: c, status: 'success', output: outputs.get(c) ?? '', duration_ms: 0 }));
    return `${verdict.status}: ${verdict.evidence}`;
  }

  it.each(withCheck.map((s) => [s.id, s] as const))('%s: its repair check passes, fails with the fault in, passes after the restore', (_id, s) => {
    expect(repairVerdict(s)).toMatch(/^pass: /);
    expect(router.configure(lines(s, 'inject')).ok).toBe(true);
    expect(repairVerdict(s)).toMatch(/^fail: /);
    expect(router.configure(lines(s, 'restore')).ok).toBe(true);
    const after = repairVerdict(s);
    if (router.runningConfig() !== baseline) router.configure(BASELINE);
    expect(after).toMatch(/^pass: /);
  });

  it('the harness does catch a rejected command', () => {
    const r = router.configure(['router ospf', 'network 10.0.99.0/24 area 0 bogus']);
    expect(r.ok).toBe(false);
  });
});
