/**
 * ProjectScope behaviour: topology mapping and cache, addressing, capture on
 * v2 and v3 (seconds / packet limits, always stopping), rendering.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { topologyNode } from '../helpers/topology.js';
import { PcapCounter } from '../../src/gns3/pcap.js';
import { matchPort, summarizePorts } from '../../src/gns3/ports.js';
import { renderTopologyText } from '../../src/gns3/render.js';
import { openProjectScope } from '../../src/gns3/client.js';
import { makePcap, rig, type Rig } from './helpers.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('port matching', () => {
  const eth = ['Ethernet0', 'Ethernet1', 'Ethernet2'].map((name, i) => ({ name, short_name: `e${i}`, adapter_number: i, port_number: 0 }));
  const cisco = ['GigabitEthernet0/0', 'GigabitEthernet0/1'].map((name, i) => ({
    name,
    short_name: `Gi0/${i}`,
    adapter_number: i,
    port_number: 0,
  }));
  const sw = Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, short_name: `e${i}`, adapter_number: 0, port_number: i }));
  it.each([
    [eth, 'e1', 'Ethernet1'],
    [eth, 'ETHERNET2', 'Ethernet2'],
    [eth, 'eth0', 'Ethernet0'],
    [eth, 'Gi1', 'Ethernet1'],
    [eth, '2/0', 'Ethernet2'],
    [cisco, 'gi0/1', 'GigabitEthernet0/1'],
    [cisco, 'GigabitEthernet 0/0', 'GigabitEthernet0/0'],
    [cisco, 'g0/1', 'GigabitEthernet0/1'],
    [sw, '0/5', 'Ethernet5'],
    [sw, 'eth7', 'Ethernet7'],
  ])('case %#', (ports, wanted, expected) => {
    expect(matchPort(ports, wanted)?.name).toBe(expected);
  });
  it('refuses unknown ports', () => {
    expect(matchPort(eth, 'e5')).toBeUndefined();
    expect(matchPort(eth, 'serial0')).toBeUndefined();
    expect(matchPort(cisco, 'Gi0/2')).toBeUndefined();
  });
  it('summarizes runs of ports', () => {
    expect(summarizePorts(sw)).toBe('e0-e7');
    expect(summarizePorts([sw[0]!, sw[2]!, sw[3]!, sw[4]!])).toBe('e0,e2-e4');
    expect(summarizePorts([])).toBe('none');
  });
});

describe('renderTopologyText', () => {
  const node = (name: string, host: string | null, port: number | null, type: string | null) =>
    topologyNode(name, { console: port, console_host: host, console_type: type });
  it('states the common console host once and shows the exceptions in full', () => {
    const text = renderTopologyText({
      project_id: 'p',
      project_name: 'mixed',
      links: [],
      nodes: [
        node('A', '10.0.0.5', 5000, 'telnet'),
        node('B', '10.0.0.5', 5001, 'telnet'),
        node('C', '10.0.0.9', 5902, 'vnc'),
        node('D', null, null, null),
      ],
    });
    expect(text.split('\n')).toEqual([
      'Project mixed: 4 nodes, 0 links',
      'Nodes: name (platform) status console-port, then links port-peer:port (each once), then free ports. Unless shown a node is (qemu), started, telnet console on 10.0.0.5',
      'A 5000',
      'B 5001',
      'C vnc 10.0.0.9:5902',
      'D',
    ]);
  });
});

describe('renderTopologyText: one word per name', () => {
  it('quotes a name with a space or a newline, so no name breaks its line or starts one of its own', () => {
    const port = { name: 'Ethernet0', short_name: 'e0', adapter_number: 0, port_number: 0, link_id: 'l1' };
    const end = (n: string) => ({ node_id: n, node_name: n, adapter_number: 0, port_number: 0, port_name: 'e0' });
    const text = renderTopologyText({
      project_id: 'p',
      project_name: 'names',
      nodes: [topologyNode('Core 1', { ports: [port] }), topologyNode('R2\nR9 5000', { console: 5001, ports: [port] })],
      links: [
        { link_id: 'l1', link_type: 'ethernet', ends: [end('Core 1'), end('R2\nR9 5000')], filters: {}, suspend: false, capturing: false },
      ],
    });
    expect(text.split('\n').slice(2)).toEqual(['"Core 1" 5000 e0-"R2\\nR9 5000":e0', '"R2\\nR9 5000" 5001']);
  });
  it('keeps a link to a node the read did not list (a lab changing mid-read), with both ends named', () => {
    const end = (n: string) => ({ node_id: n, node_name: n, adapter_number: 0, port_number: 0, port_name: 'e0' });
    const text = renderTopologyText({
      project_id: 'p',
      project_name: 'mid-change',
      nodes: [],
      links: [{ link_id: 'l1', link_type: 'ethernet', ends: [end('GONE'), end('ALSO')], filters: {}, suspend: true, capturing: false }],
    });
    expect(text.split('\n')).toEqual(['Project mid-change: 0 nodes, 1 link', 'Other links: GONE:e0-ALSO:e0[suspended]']);
  });
});

describe('pcap counting', () => {
  it('counts complete records across chunk boundaries and cuts at N packets', () => {
    const pcap = Buffer.from(makePcap(4));
    const c = new PcapCounter();
    for (let i = 0; i < pcap.length; i += 7) c.push(pcap.subarray(i, i + 7));
    expect(c.packets).toBe(4);
    expect(c.slice(2).length).toBe(24 + 2 * (16 + 60));
  });
  it('flags data that is not a pcap', () => {
    const c = new PcapCounter();
    c.push(Buffer.from('<html>not a capture stream at all</html>'));
    expect(c.invalid).toBe(true);
  });
});

describe.each(['v2', 'v3'] as const)('project scope on %s', (api) => {
  async function lab() {
    current = await rig(api);
    current.fake.addProject({ name: 'cap' });
    current.fake.addNode({ name: 'PC1', node_type: 'vpcs', console_host: '0.0.0.0', console: 5100, status: 'started' });
    current.fake.addNode({ name: 'SW1', node_type: 'ethernet_switch' });
    const link = current.fake.addLink({ a: 'PC1:e0', b: 'SW1:e3' });
    const project = await openProjectScope(current.client, 'cap');
    return { project, link };
  }

  it('maps nodes and links; wildcard console hosts become the controller host', async () => {
    const { project, link } = await lab();
    const t = await project.getTopology();
    const pc = t.nodes.find((n) => n.name === 'PC1')!;
    expect(pc).toMatchObject({ node_type: 'vpcs', status: 'started', console: 5100, console_host: '127.0.0.1', console_type: 'telnet' });
    expect(pc.ports).toEqual([{ name: 'Ethernet0', short_name: 'e0', adapter_number: 0, port_number: 0, link_id: link.link_id }]);
    expect(t.links[0]!.ends.map((e) => `${e.node_name}:${e.port_name}`)).toEqual(['PC1:e0', 'SW1:e3']);
  });

  it('caches reads briefly and drops the cache on writes', async () => {
    const { project } = await lab();
    await project.getTopology();
    await project.getTopology();
    const listCalls = () => current!.fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/nodes')).length;
    expect(listCalls()).toBe(1);
    const { link } = { link: (await project.getTopology()).links[0]! };
    expect(listCalls()).toBe(1);
    await project.putFilters(link.link_id, { packet_loss: [5] });
    const t = await project.getTopology();
    expect(listCalls()).toBe(2);
    expect(t.links[0]!.filters).toEqual({ packet_loss: [5] });
  });

  it('resolves links by id, ports and node pair', async () => {
    const { project, link } = await lab();
    expect((await project.resolveLink(link.link_id)).link_id).toBe(link.link_id);
    expect((await project.resolveLink('pc1:e0 <-> sw1:Ethernet3')).link_id).toBe(link.link_id);
    expect((await project.resolveLink('SW1 PC1')).link_id).toBe(link.link_id);
    await expect(project.resolveLink('PC1:e0 SW1:e4')).rejects.toThrow('No link between PC1 and SW1 matches "PC1:e0 SW1:e4"');
  });

  it('captures until N packets, then stops the capture', async () => {
    const { project, link } = await lab();
    current!.fake.setLinkPcap(link.link_id, makePcap(10), { packetIntervalMs: 20 });
    const t0 = Date.now();
    const bytes = await project.capture('PC1 SW1', { seconds: 10, packets: 3 });
    expect(Date.now() - t0).toBeLessThan(3000);
    const c = new PcapCounter();
    c.push(bytes);
    expect(c.packets).toBe(3);
    expect(bytes.length).toBe(24 + 3 * 76);
    expect(current!.fake.project().links.get(link.link_id)!.capturing).toBe(false);
    const paths = current!.fake.requests
      .map((r) => `${r.method} ${r.path.replace(/^.*\/links\/[^/]+/, '')}`)
      .filter((p) => !p.includes('/'.repeat(2)));
    const expected =
      api === 'v2'
        ? ['POST /start_capture', 'GET /pcap', 'POST /stop_capture']
        : ['POST /capture/start', 'GET /capture/stream', 'POST /capture/stop'];
    expect(paths.filter((p) => expected.includes(p))).toEqual(expected);
    if (api === 'v3') {
      const start = current!.fake.requests.find((r) => r.path.endsWith('/capture/start'))!;
      expect(start.body).toBe('{}');
    }
  });

  it('captures for N seconds when the stream stays open', async () => {
    const { project, link } = await lab();
    current!.fake.setLinkPcap(link.link_id, makePcap(2));
    const t0 = Date.now();
    const bytes = await project.capture(link.link_id, { seconds: 0.6 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(3000);
    expect(bytes.length).toBe(24 + 2 * 76);
    expect(current!.fake.project().links.get(link.link_id)!.capturing).toBe(false);
  });

  it('reads a capture someone else started and leaves it running', async () => {
    const { project, link } = await lab();
    await project.getTopology(); // cached: not capturing
    const startPath = api === 'v2' ? 'start_capture' : 'capture/start';
    await project.client.call('POST', `/projects/${project.projectId}/links/${link.link_id}/${startPath}`, { body: {} });
    current!.fake.setLinkPcap(link.link_id, makePcap(1));
    const bytes = await project.capture('PC1 SW1', { seconds: 5, packets: 1 });
    expect(bytes.length).toBe(24 + 76);
    expect(current!.fake.project().links.get(link.link_id)!.capturing).toBe(true);
  });

  it('a capture with no traffic returns a valid empty pcap', async () => {
    const { project } = await lab();
    const bytes = await project.capture('PC1 SW1', { seconds: 0.3 });
    expect(Buffer.from(bytes).readUInt32LE(0)).toBe(0xa1b2c3d4);
    expect(bytes.length).toBe(24);
  });

  it('stops the capture even when the stream fails', async () => {
    const { project, link } = await lab();
    current!.fake.inject({
      path: new RegExp(`/links/${link.link_id}/(pcap|capture/stream)$`),
      status: 500,
      body: 'Internal Server Error',
      contentType: 'text/plain',
    });
    await expect(project.capture('PC1 SW1', { seconds: 1 })).rejects.toThrow(/Internal Server Error \(HTTP 500 on GET/);
    expect(current!.fake.project().links.get(link.link_id)!.capturing).toBe(false);
  });

  it('reports the 409 of a stream without an active capture', async () => {
    const { project, link } = await lab();
    const pathStream = api === 'v2' ? 'pcap' : 'capture/stream';
    const res = await project.client.openStream(`/projects/${project.projectId}/links/${link.link_id}/${pathStream}`);
    expect(res.status).toBe(409);
    expect(JSON.parse(await res.body.text()).message).toBe('This link has no active packet capture');
  });

  it('renders a compact text topology', async () => {
    const { project } = await lab();
    await project.call('PUT', `/links/${(await project.resolveLink('PC1 SW1')).link_id}`, {
      body: { filters: { delay: [50, 5], bpf: ['icmp\nudp'] } },
    });
    const text = renderTopologyText(await project.getTopology());
    expect(text).toBe(
      [
        'Project cap: 2 nodes, 1 link',
        'Nodes: name (platform) status console-port, then links port-peer:port (each once), then free ports. Unless shown a node is (vpcs), started, telnet console on 127.0.0.1',
        'PC1 5100 e0-SW1:e3[delay=50,5;bpf=icmp | udp]',
        'SW1 (ethernet_switch) free e0-e2,e4-e7',
      ].join('\n'),
    );
  });
});
