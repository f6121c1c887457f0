/**
 * A change set's template and device patterns (src/tools/changeset/): strict rendering that
 * names the device and the variable, a sandbox that reaches nothing outside its variables,
 * rendered text as one command per line, and globs expanded against the project's nodes.
 */
import { describe, expect, it } from 'vitest';
import { parseError, renderFor, renderedLines, type DeviceFacts } from '../../src/tools/changeset/render.js';
import { expandDevices } from '../../src/tools/changeset/expand.js';
import { interfaceFact, needsConsoleFacts } from '../../src/tools/changeset/facts.js';

const r1: DeviceFacts = {
  name: 'R1',
  index: 1,
  platform: 'frr',
  interfaces: [
    { name: 'eth0', address: '10.0.1.1', prefix_length: 24, network: '10.0.1.0/24', state: 'up' },
    { name: 'lo', address: '10.255.255.1', prefix_length: 32, network: '10.255.255.1/32', state: 'up' },
  ],
};
const input = (template: string, vars: Record<string, unknown> = {}, device_vars: Record<string, Record<string, unknown>> = {}) => ({
  template,
  vars,
  device_vars,
});

describe('rendering a change set template', () => {
  it('renders variables, per-device variables over shared ones, loops, conditions, filters and facts', () => {
    const t = [
      'router ospf',
      ' ospf router-id 10.255.255.{{ device.index }}',
      '{% for i in device.interfaces %}{% if i.network != "" %} network {{ i.network }} area {{ area }}',
      '{% endif %}{% endfor %}hostname {{ device.name | downcase }}-{{ site }}',
    ].join('\n');
    const r = renderFor(input(t, { area: 0, site: 'a' }, { R1: { site: 'b' } }), r1);
    expect(r).toEqual({
      ok: true,
      text: 'router ospf\n ospf router-id 10.255.255.1\n network 10.0.1.0/24 area 0\n network 10.255.255.1/32 area 0\nhostname r1-b',
    });
  });

  it('refuses an undefined variable or filter, naming it', () => {
    expect(renderFor(input('cost {{ cost }}'), r1)).toEqual({ ok: false, error: 'undefined variable "cost"', variable: 'cost' });
    expect(renderFor(input('{{ device.vendor }}'), r1)).toMatchObject({ ok: false, variable: 'device.vendor' });
    expect(renderFor(input('{{ "x" | shout }}'), r1)).toMatchObject({ ok: false, error: 'undefined filter "shout"' });
    expect(renderFor(input('{% if missing %}x{% endif %}'), r1)).toMatchObject({ ok: false, variable: 'missing' });
  });

  it('reaches nothing outside its variables: constructor, process, require, prototypes and files render nothing', () => {
    const escapes = [
      '{{ device.constructor }}',
      '{{ device.name.constructor }}',
      "{{ device['constructor']['constructor'] }}",
      '{{ device.__proto__ }}',
      '{{ process.env }}',
      "{{ require('fs') }}",
      '{{ global }}',
      '{{ this }}',
      "{% include '/etc/passwd' %}",
      "{% render '/etc/passwd' %}",
      "{% layout '/etc/passwd' %}x",
    ];
    for (const t of escapes) {
      const r = renderFor(input(t), r1);
      expect(r.ok, t).toBe(false);
    }
    // a runaway loop is bounded, not a hang
    const loop = renderFor(input('{% for i in (1..100000000) %}x{% endfor %}'), r1);
    expect(loop.ok).toBe(false);
  });

  it('reports a template that does not parse before any device', () => {
    expect(parseError('{% for x in y %}no end')).toMatch(/for/);
    expect(parseError('{{ a }}')).toBeUndefined();
  });

  it('turns rendered text into one command per line', () => {
    expect(renderedLines('router ospf\r\n\t network 10.0.0.0/8 area 0  \n\n   \nexit\n')).toEqual([
      'router ospf',
      '  network 10.0.0.0/8 area 0',
      'exit',
    ]);
    // a variable holding a newline makes two commands, each judged on its own
    const r = renderFor(input('description {{ d }}', { d: 'x\nreload' }), r1);
    expect(r.ok && renderedLines(r.text)).toEqual(['description x', 'reload']);
  });
});

describe('device patterns', () => {
  const nodes = ['R1', 'R2', 'R10', 'R3', 'PC1', 'PC2', 'SW1', 'R11', 'R12'];
  it('expands names and globs against the nodes, in natural order, each device once, with the expansion', () => {
    const r = expandDevices(['R[1-3]', 'pc*', 'R1', 'R1?'], nodes);
    expect(r).toEqual({
      ok: true,
      set: {
        devices: ['R1', 'R2', 'R3', 'PC1', 'PC2', 'R10', 'R11', 'R12'],
        expansion: { 'R[1-3]': ['R1', 'R2', 'R3'], 'pc*': ['PC1', 'PC2'], R1: ['R1'], 'R1?': ['R10', 'R11', 'R12'] },
      },
    });
    expect(expandDevices(['R*'], nodes)).toMatchObject({ ok: true, set: { devices: ['R1', 'R2', 'R3', 'R10', 'R11', 'R12'] } });
    expect(expandDevices(['R[1-11]'], nodes)).toMatchObject({ ok: true, set: { devices: ['R1', 'R2', 'R3', 'R10', 'R11'] } });
    expect(expandDevices(['[!R]*'], nodes)).toMatchObject({ ok: true, set: { devices: ['PC1', 'PC2', 'SW1'] } });
  });

  it('refuses a pattern that matches nothing and a name that is not a node', () => {
    expect(expandDevices(['X*'], nodes)).toMatchObject({ ok: false, error: expect.stringMatching(/"X\*" matches no node/) });
    expect(expandDevices(['R9'], nodes)).toMatchObject({ ok: false, error: expect.stringMatching(/no node named "R9"/) });
    expect(expandDevices(['R[1'], nodes)).toMatchObject({ ok: false, error: expect.stringMatching(/unclosed/) });
  });
});

describe('facts', () => {
  it('reads the console only for facts that need it', () => {
    expect(needsConsoleFacts('hostname {{ device.name }}-{{ device.index }}')).toBe(false);
    expect(needsConsoleFacts('{% for i in device.interfaces %}{% endfor %}')).toBe(true);
    expect(needsConsoleFacts('{{ device.platform }}')).toBe(true);
  });

  it('turns an interface row into address, prefix length and network', () => {
    expect(interfaceFact({ name: 'eth1', state: 'up', addresses: ['10.0.3.2/24'], line: '' })).toEqual({
      name: 'eth1',
      address: '10.0.3.2',
      prefix_length: 24,
      network: '10.0.3.0/24',
      state: 'up',
    });
    expect(interfaceFact({ name: 'Gi0/0', state: 'down', addresses: ['192.168.1.1'], line: '' })).toEqual({
      name: 'Gi0/0',
      address: '192.168.1.1',
      prefix_length: null,
      network: '',
      state: 'down',
    });
    expect(interfaceFact({ name: 'lo', state: 'up', addresses: [], line: '' })).toMatchObject({ address: '', network: '' });
  });
});
