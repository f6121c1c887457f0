/** Counts the product prints agree in number: "1 device ok", never "1 devices ok". */
import { describe, expect, it } from 'vitest';
import { count, noun } from '../../src/core/plural.js';
import { batchOutcome } from '../../src/tools/batch.js';
import { renderTopologyText } from '../../src/gns3/render.js';

describe('plural agreement', () => {
  it('count() and noun()', () => {
    expect([0, 1, 2].map((n) => count(n, 'device'))).toEqual(['0 devices', '1 device', '2 devices']);
    expect(count(1, 'required check')).toBe('1 required check');
    expect(noun(1, 'device')).toBe('device');
    expect(count(3, 'child', 'children')).toBe('3 children');
  });

  it('a batch tool line with one device, and with two', () => {
    const ok = { status: 'success' as const };
    expect(batchOutcome([ok], {}, { noun: 'devices' }).display).toBe('1 device ok');
    expect(batchOutcome([ok, ok], {}, { noun: 'devices' }).display).toBe('2 devices ok');
    expect(batchOutcome([{ status: 'error' as const, error: 'boom' }], {}, { noun: 'devices' }).display).toBe('device failed: boom');
  });

  it('the topology text', () => {
    const port = { name: 'Ethernet0', short_name: 'e0', adapter_number: 0, port_number: 0, link_id: 'l1' };
    const node = (name: string) => ({
      node_id: name,
      name,
      node_type: 'vpcs',
      status: 'started',
      console: null,
      console_host: null,
      console_type: null,
      template_id: null,
      template_name: null,
      tags: [],
      ports: [port],
      x: 0,
      y: 0,
    });
    const end = (n: string) => ({ node_id: n, node_name: n, adapter_number: 0, port_number: 0, port_name: 'e0' });
    const text = renderTopologyText({
      project_id: 'p',
      project_name: 'lab',
      nodes: [node('PC1')],
      links: [{ link_id: 'l1', link_type: 'ethernet', ends: [end('PC1'), end('PC1')], filters: {}, suspend: false, capturing: false }],
    });
    expect(text.split('\n')[0]).toBe('Project lab: 1 node, 1 link');
  });
});
