/**
 * Every FRR injection scenario on a real FRR router: with the parameters' example
 * values filled in, the inject commands are accepted by vtysh and change the
 * running-config, and the restore commands bring back exactly the original one. On a router
 * with values of its own (fast OSPF timers, a cost, a BGP password …) the restore with the
 * device's own lines (src/faults/own-restore.ts) brings that router back exactly too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { fillCheck, fillPlaceholders, type InjectionScenario } from '../../src/skills/schema.js';
import { validateCheck } from '../../src/check/load.js';
import { planCheck } from '../../src/check/plan.js';
import { startFrrRouter, type FrrRouter } from './frr-router.js';
import { withOwnValues } from '../../src/faults/own-restore.js';

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

/** Values of the router's own that the scenarios override: a restore to the defaults would lose them. */
const OWN = [
  'interface eth0',
  'ip ospf hello-interval 1',
  'ip ospf dead-interval 4',
  'ip ospf network point-to-point',
  'ip ospf cost 50',
  'exit',
  'router ospf',
  'distance 90',
  'exit',
  'router bgp 65001',
  'neighbor 10.0.12.2 password own-secret',
  'exit',
];

describe("restores with the device's own values on a real FRR router", () => {
  it('every scenario that overrides one of them is restored to the router as it was, own values and all', () => {
    const own = router.configure(OWN);
    expect(own.ok, own.output).toBe(true);
    const before = router.runningConfig();
    const kept: Record<string, string[]> = {};
    for (const s of frrScenarios) {
      const inject = lines(s, 'inject');
      const call = { device_name: 'R1', config_commands: lines(s, 'restore') };
      const restore = withOwnValues({ tool: 'execute_multiple_device_config_commands', args: { device_configs: [call] } }, inject, {
        config: before,
      });
      // the others restore as the test above proves; the router is the same after them
      if (!restore.own_lines) continue;
      kept[s.id] = restore.own_lines.filter((l) => !/^(interface|router|exit)/.test(l));
      expect(router.configure(inject).ok, s.id).toBe(true);
      const res = router.configure((restore.args.device_configs as (typeof call)[])[0]!.config_commands);
      expect(res.ok, `${s.id}: ${res.output}`).toBe(true);
      expect(router.runningConfig(), s.id).toBe(before);
    }
    expect(kept).toEqual({
      bgp_password_mismatch: ['neighbor 10.0.12.2 password own-secret'],
      duplicate_host_route: ['ip address 1.1.1.1/32'],
      ospf_cost_detour: ['ip ospf cost 50'],
      ospf_dead_interval_mismatch: ['ip ospf dead-interval 4'],
      ospf_distance_unusable: ['distance 90'],
      ospf_hello_interval_mismatch: ['ip ospf hello-interval 1'],
      ospf_network_type_mismatch: ['ip ospf network point-to-point'],
    });
  });
});
