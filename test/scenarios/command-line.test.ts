/**
 * How `inject --scenario|--random` reads its command line before it touches the lab: the
 * link as people write it, the class's projects by a shell pattern, the flags that cannot go
 * together (one line, exit 2), and a failure with --json answered as a command, not as a
 * one-shot. Pure functions; the run itself is test/scenarios/inject-lab.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { findLink } from '../../src/scenarios/plan.js';
import { globRegExp, matchProjects } from '../../src/gns3/project-glob.js';
import { requestOf, type InjectScenarioOptions } from '../../src/commands/inject-scenario.js';
import { jsonFailureShape } from '../../src/cli/json-failure.js';
import { UsageError } from '../../src/errors.js';
import type { Topology, TopologyLink } from '../../src/gns3/types.js';

const link = (id: string, a: [string, string], b: [string, string]): TopologyLink => ({
  link_id: id,
  link_type: 'ethernet',
  ends: [a, b].map(([node, port]) => ({ node_id: node, node_name: node, adapter_number: 0, port_number: 0, port_name: port })),
  filters: {},
  suspend: false,
  capturing: false,
});

const topology: Topology = {
  project_id: 'p1',
  project_name: 'lab',
  nodes: [],
  links: [
    link('aaaaaaaa-1111', ['R1', 'e0'], ['R2', 'e0']),
    link('bbbbbbbb-2222', ['R1', 'e1'], ['R3', 'e0']),
    link('cccccccc-3333', ['R1', 'e2'], ['R3', 'e1']),
    link('dddddddd-4444', ['core-1', 'Gi0/0'], ['edge-2', 'Gi0/1']),
  ],
};
const found = (ref: string) => findLink(topology, ref)?.link_id;

describe('--link', () => {
  it('"A:p-B:p", either way round, with a space or the arrow of the label', () => {
    expect(found('R1:e0-R2:e0')).toBe('aaaaaaaa-1111');
    expect(found('R2:e0-R1:e0')).toBe('aaaaaaaa-1111');
    expect(found('R1:e0 R2:e0')).toBe('aaaaaaaa-1111');
    expect(found('R1:e0 <-> R2:e0')).toBe('aaaaaaaa-1111');
    expect(found('r1:E0-r2:E0')).toBe('aaaaaaaa-1111');
  });

  it('two names when one link joins them; none when two do or the port is wrong', () => {
    expect(found('R1 R2')).toBe('aaaaaaaa-1111');
    expect(found('R1 R3')).toBeUndefined();
    expect(found('R1:e2-R3:e1')).toBe('cccccccc-3333');
    expect(found('R1:e9-R2:e0')).toBeUndefined();
  });

  it('node names with dashes, and a link id or its first eight characters', () => {
    expect(found('core-1:Gi0/0-edge-2:Gi0/1')).toBe('dddddddd-4444');
    expect(found('edge-2 core-1')).toBe('dddddddd-4444');
    expect(found('bbbbbbbb-2222')).toBe('bbbbbbbb-2222');
    expect(found('bbbbbbbb')).toBe('bbbbbbbb-2222');
    expect(found('bbbb')).toBeUndefined();
  });
});

describe('--projects', () => {
  const projects = ['student-10', 'student-2', 'Student-1', 'lab-a', 'lab-b', 'teacher'].map((name) => ({ name }));
  const names = (glob: string) => matchProjects(projects, glob).map((p) => p.name);

  it('a shell pattern, case-insensitive, in natural order', () => {
    expect(names('student-*')).toEqual(['Student-1', 'student-2', 'student-10']);
    expect(names('student-?')).toEqual(['Student-1', 'student-2']);
    expect(names('lab-[a]')).toEqual(['lab-a']);
    expect(names('lab-[!a]')).toEqual(['lab-b']);
    expect(names('teacher')).toEqual(['teacher']);
    expect(names('nobody-*')).toEqual([]);
  });

  it('the rest of the pattern is literal: dots, brackets left open, regex characters', () => {
    expect(globRegExp('lab.1').test('labx1')).toBe(false);
    expect(globRegExp('lab.1').test('lab.1')).toBe(true);
    expect(globRegExp('a[b').test('a[b')).toBe(true);
    expect(globRegExp('(x)+').test('(x)+')).toBe(true);
  });
});

describe('the flags of a scenario run', () => {
  const base: InjectScenarioOptions = { set: [], allowRepeat: false, yes: false, json: false, projectFromFlag: true };
  const usage = (o: Partial<InjectScenarioOptions>) => {
    try {
      requestOf({ ...base, ...o });
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error('expected a usage error');
  };

  it('refuses what cannot go together, in one line naming the flags', () => {
    expect(usage({ scenario: 'x', random: '2' })).toBe('--scenario and --random: give one of them');
    expect(usage({ scenario: 'x', device: 'R1', link: 'R1 R2' })).toBe(
      '--device and --link: a fault goes on a device or on a link, not both',
    );
    expect(usage({ scenario: 'x', seed: '1' })).toBe('--seed chooses what --random draws; --scenario names the scenario itself');
    expect(usage({ scenario: 'x', allowRepeat: true })).toMatch(/^--allow-repeat chooses what --random draws/);
    for (const n of ['0', '51', 'x', '2.5']) expect(usage({ random: n })).toBe(`--random: must be an integer 1..50 (got "${n}")`);
    expect(usage({ scenario: 'x', set: ['interface'] })).toBe('--set: expected name=value with a snake_case name (got "interface")');
    expect(usage({ scenario: 'x', set: ['Bad-Name=1'] })).toMatch(/^--set: expected name=value/);
  });

  it('--set values, a seed of its own when none is given, per-project seeds', () => {
    expect(requestOf({ ...base, scenario: 'x', device: 'R1', set: ['interface=eth1', 'local_as=65001'] })).toMatchObject({
      scenario: 'x',
      device: 'R1',
      set: { interface: 'eth1', local_as: '65001' },
      seed: undefined,
    });
    expect(requestOf({ ...base, random: '3', seed: '1' })).toMatchObject({ random: 3, seed: '1', perProjectSeed: false });
    expect(requestOf({ ...base, random: '3' }).seed).toMatch(/^\d+$/);
    expect(requestOf({ ...base, random: '3', seed: 'per-project' })).toMatchObject({ seed: undefined, perProjectSeed: true });
  });
});

describe('a failure with --json', () => {
  const subs = ['inject', 'check', 'faults'];
  it('is a command failure for inject --scenario|--random, a one-shot failure for plain inject', () => {
    expect(jsonFailureShape(['inject', '--scenario', 'x', '--json'], subs)).toBe('command-json');
    expect(jsonFailureShape(['inject', '--random=3', '--json'], subs)).toBe('command-json');
    expect(jsonFailureShape(['inject', 'break ospf', '--json'], subs)).toBe('oneshot-json');
    expect(jsonFailureShape(['inject', '--', '--scenario', '--json'], subs)).toBeUndefined();
  });
});
