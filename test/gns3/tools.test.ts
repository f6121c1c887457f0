/**
 * Every GNS3 tool against the fake controller over real HTTP, on v2 and v3.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { gns3Tools } from '../../src/tools/gns3/index.js';
import type { Gns3Project } from '../../src/gns3/project.js';
import type { ToolDef } from '../../src/tools/types.js';
import { rig, runTool, toolCtx, type Rig } from './helpers.js';

const tool = (name: string): ToolDef => {
  const t = gns3Tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

it('exports every GNS3 tool with its risk', () => {
  expect(Object.fromEntries(gns3Tools.map((t) => [t.name, t.risk]))).toEqual({
    get_gns3_templates: 'read',
    create_gns3_node: 'lab',
    create_gns3_link: 'lab',
    start_gns3_node: 'lab',
    stop_gns3_node: 'config',
    suspend_gns3_node: 'config',
    update_gns3_node_name: 'lab',
    gns3_topology_reader: 'read',
    get_gns3_node_console: 'read',
    manage_gns3_packet_filter: 'config',
  });
});

it('reports a scope that is not a GNS3 project as a JSON error', async () => {
  const ctx = toolCtx({} as never, async () => ({
    projectId: 'x',
    projectName: 'x',
    getTopology: async () => ({}) as never,
    capture: async () => new Uint8Array(),
  }));
  const out = await runTool(tool('gns3_topology_reader'), {}, ctx);
  expect(out.status).toBe('error');
  expect(out.error).toMatch(/needs a project opened through the GNS3 client/);
});

describe.each(['v2', 'v3'] as const)('GNS3 tools on %s', (api) => {
  async function lab(fakeOpts: Parameters<typeof rig>[1] = {}) {
    current = await rig(api, fakeOpts);
    current.fake.addProject({ name: 'lab' });
    current.fake.addNode({ name: 'R1', node_type: 'qemu', template_name: 'FRR', tags: ['device_type:frr'], x: 0, y: 0 });
    current.fake.addNode({ name: 'R2', node_type: 'qemu', template_name: 'FRR', x: 200, y: 0 });
    current.fake.addNode({ name: 'SW1', node_type: 'ethernet_switch', x: 100, y: 200 });
    current.fake.addLink({ a: 'R1:e0', b: 'R2:e0' });
    const project = await current.client.openProject('lab');
    return { project, ctx: toolCtx(current.settings, async () => project) };
  }

  it('get_gns3_templates lists the builtins with type and category; hides infrastructure on request', async () => {
    const { ctx } = await lab();
    const all = await runTool(tool('get_gns3_templates'), {}, ctx);
    expect(all.status).toBe('success');
    const vpcs = all.templates.find((t: { name: string }) => t.name === 'VPCS');
    expect(vpcs).toEqual({
      name: 'VPCS',
      template_id: api === 'v2' ? '19021f99-e36f-394d-b4a1-8aaa902ab9cc' : '52136454-1f50-590a-94e4-816bd02d1062',
      template_type: 'vpcs',
      category: 'guest',
    });
    expect(all.count).toBe(8); // 7 builtins + FRR
    const lean = await runTool(tool('get_gns3_templates'), { hide_infrastructure: true }, ctx);
    expect(lean.templates.map((t: { name: string }) => t.name)).toEqual(['Ethernet switch', 'FRR', 'VPCS']);
    const switches = await runTool(tool('get_gns3_templates'), { category: 'Switch' }, ctx);
    expect(switches.templates.map((t: { name: string }) => t.name)).toEqual([
      'ATM switch',
      'Ethernet hub',
      'Ethernet switch',
      'Frame Relay switch',
    ]);
  });

  it('two computes: listed by get_gns3_templates and in the topology text; create_gns3_node places by name, id, template or refuses to guess', async () => {
    const computes = [
      { compute_id: 'local', name: 'laptop', host: '127.0.0.1' },
      { compute_id: 'c2', name: 'gns3vm', host: '127.0.0.2' },
    ];
    const { ctx, project } = await lab({ computes });
    current!.fake.addTemplate({ name: 'vIOS', template_type: 'qemu', compute_id: 'c2' });
    const listed = await runTool(tool('get_gns3_templates'), {}, ctx);
    expect(listed.computes).toEqual([
      { compute_id: 'local', name: 'laptop', host: '127.0.0.1', connected: true },
      { compute_id: 'c2', name: 'gns3vm', host: '127.0.0.2', connected: true },
    ]);
    expect(listed.templates.find((t: { name: string }) => t.name === 'vIOS')).toMatchObject({ compute_id: 'c2' });
    const out = await runTool(
      tool('create_gns3_node'),
      {
        nodes: [
          { template: 'VPCS', name: 'PCVM', compute: 'GNS3VM' },
          { template: 'VPCS', name: 'PCL', compute: 'local' },
          { template: 'vIOS', name: 'R9' },
          { template: 'VPCS', name: 'PC?' },
          { template: 'VPCS', name: 'PCX', compute: 'mars' },
        ],
      },
      ctx,
    );
    const [vm, local, byTemplate, ambiguous, unknown] = out.results;
    expect(vm).toMatchObject({ status: 'success', name: 'PCVM', compute_id: 'c2' });
    expect(vm.console).toMatch(/127\.0\.0\.2:/); // the console is on the compute
    expect(local).toMatchObject({ status: 'success', compute_id: 'local' });
    expect(byTemplate).toMatchObject({ status: 'success', compute_id: 'c2' });
    expect(ambiguous).toMatchObject({ status: 'error' });
    expect(ambiguous.error).toBe(
      'template "VPCS" has no compute of its own and 2 computes are connected: name one with compute (computes: local "laptop" 127.0.0.1 connected; c2 "gns3vm" 127.0.0.2 connected)',
    );
    expect(unknown.error).toMatch(/^compute "mars" not found \(computes: local "laptop"/);
    expect(current!.fake.node('PCVM').compute_id).toBe('c2');
    const text = await runTool(tool('gns3_topology_reader'), {}, ctx);
    const { renderTopologyText } = await import('../../src/gns3/render.js');
    const rendered = renderTopologyText(await project.getTopology());
    expect(rendered).toContain('Computes (id "name" host): local "laptop" 127.0.0.1; c2 "gns3vm" 127.0.0.2');
    // the compute of most nodes is said once; a node elsewhere says where it runs, its console there
    expect(rendered).toMatch(/Unless shown a node is \(vpcs\), stopped, telnet console on 127\.0\.0\.1, @local$/m);
    expect(rendered).toMatch(/^PCVM telnet 127\.0\.0\.2:\d+ @c2 /m);
    expect(rendered).toMatch(/^PCL \d+ free e0$/m);
    expect(text.status).toBe('success');
  });

  it('one compute (or none listed, as GNS3 3.x does): no compute noise, nodes go to it', async () => {
    const { ctx, project } = await lab();
    const listed = await runTool(tool('get_gns3_templates'), {}, ctx);
    expect(listed.computes).toEqual(api === 'v2' ? [{ compute_id: 'local', name: 'vm', host: '127.0.0.1', connected: true }] : []);
    const out = await runTool(tool('create_gns3_node'), { nodes: [{ template: 'VPCS', name: 'PC1' }] }, ctx);
    expect(out.results[0]).toMatchObject({ status: 'success', compute_id: 'local' });
    const { renderTopologyText } = await import('../../src/gns3/render.js');
    expect(renderTopologyText(await project.getTopology())).not.toMatch(/Computes|@local/);
  });

  it('create_gns3_node places nodes clear of others, reports de-duplicated names and per-item errors', async () => {
    const { ctx, project } = await lab();
    const out = await runTool(
      tool('create_gns3_node'),
      {
        nodes: [
          { template: 'vpcs', name: 'PC1' },
          { template: '  VPCS', name: 'PC1' },
          { template: 'VPCS' },
          { template: 'Juniper' },
          { template: 'FRR', name: 'R3', x: 500, y: 500 },
        ],
      },
      ctx,
    );
    expect(out.status).toBe('partial');
    const [a, b, c, d, e] = out.results;
    expect(a).toMatchObject({ status: 'success', name: 'PC1', node_type: 'vpcs', node_status: 'stopped', ports: 'e0' });
    expect(b).toMatchObject({ status: 'success', name: 'PC2', requested_name: 'PC1' });
    expect(b.note).toMatch(/the server named it PC2/);
    expect(c).toMatchObject({ status: 'success', name: 'PC3' });
    expect(d).toMatchObject({ status: 'error', template: 'Juniper' });
    expect(d.error).toMatch(/^Template "Juniper" not found \(templates: ATM switch, Cloud/);
    expect(e).toMatchObject({ status: 'success', name: 'R3', x: 500, y: 500 });
    // automatic spots: 100 px clear of every existing node and of each other
    const topo = await project.getTopology();
    const placed = topo.nodes.filter((n) => ['PC1', 'PC2', 'PC3'].includes(n.name));
    for (const p of placed) {
      for (const o of topo.nodes) {
        if (o === p) continue;
        expect(Math.abs(o.x - p.x) >= 100 || Math.abs(o.y - p.y) >= 100).toBe(true);
      }
    }
    // v2 needs compute_id; both got it
    const creates = current!.fake.requests.filter((r) => r.method === 'POST' && r.path.includes('/templates/'));
    for (const r of creates) expect(JSON.parse(r.body).compute_id).toBe('local');
    if (api === 'v3') {
      // v3 ignores the name on create: the client renames with PUT
      expect(current!.fake.requests.some((r) => r.method === 'PUT' && JSON.parse(r.body || '{}').name === 'R3')).toBe(true);
    }
  });

  it('create_gns3_link accepts port aliases and lists free ports on unknown or used ports', async () => {
    const { ctx } = await lab();
    const out = await runTool(
      tool('create_gns3_link'),
      {
        links: [
          { node_a: 'r1', port_a: 'eth1', node_b: 'SW1', port_b: 'Ethernet0' },
          { node_a: 'R2', port_a: '1/0', node_b: 'sw1', port_b: 'e1' },
          { node_a: 'R2', port_a: 'e0', node_b: 'SW1', port_b: 'e2' },
          { node_a: 'R1', port_a: 'Gi0/7', node_b: 'SW1', port_b: 'e3' },
          { node_a: 'R9', port_a: 'e0', node_b: 'SW1', port_b: 'e3' },
        ],
      },
      ctx,
    );
    expect(out.status).toBe('partial');
    expect(out.results[0]).toMatchObject({ status: 'success', a: 'R1:e1', b: 'SW1:e0' });
    expect(out.results[1]).toMatchObject({ status: 'success', a: 'R2:e1', b: 'SW1:e1' });
    expect(out.results[2]).toMatchObject({ status: 'error', error: 'Port e0 on R2 is already used; free ports: e2,e3' });
    expect(out.results[3]).toMatchObject({ status: 'error', error: 'Port "Gi0/7" not found on R1; free ports: e2,e3' });
    expect(out.results[4].error).toBe('Node "R9" not found (nodes: R1, R2, SW1)');
  });

  it('create_gns3_link reports the server 409 when another client took the port meanwhile', async () => {
    const { ctx, project } = await lab();
    await project.getTopology(); // cached snapshot says e1 is free
    current!.fake.addLink({ a: 'R1:e1', b: 'SW1:e5' });
    const out = await runTool(tool('create_gns3_link'), { links: [{ node_a: 'R1', port_a: 'e1', node_b: 'SW1', port_b: 'e0' }] }, ctx);
    expect(out.results[0].status).toBe('error');
    expect(out.results[0].error).toBe('Port is already used; free ports: R1 e2,e3, SW1 e0-e4,e6,e7');
  });

  it('start_gns3_node polls until the delayed status change and reports consoles', async () => {
    const { ctx } = await lab({ statusDelayMs: 400 });
    const t0 = Date.now();
    const out = await runTool(tool('start_gns3_node'), { nodes: ['R1', 'r2'] }, ctx);
    const took = Date.now() - t0;
    expect(out.status).toBe('success');
    for (const r of out.results) {
      expect(r.node_status).toBe('started');
      expect(r.console).toMatch(/^telnet 127\.0\.0\.1:\d+$/);
    }
    expect(took).toBeGreaterThanOrEqual(380);
    expect(took).toBeLessThan(3000);
    // several status reads happened (polling), not one sleep
    const gets = current!.fake.requests.filter((r) => r.method === 'GET' && /\/nodes\/[0-9a-f-]{36}$/.test(r.path));
    expect(gets.length).toBeGreaterThanOrEqual(4);
    if (api === 'v3') {
      const starts = current!.fake.requests.filter((r) => r.path.endsWith('/start'));
      for (const s of starts) expect(s.body).toBe('{}');
    }
  });

  it('start_gns3_node gives up at the deadline with a note', async () => {
    const { ctx } = await lab({ statusDelayMs: 5_000 });
    const out = await runTool(tool('start_gns3_node'), { nodes: ['R1'], wait_seconds: 1 }, ctx);
    expect(out.status).toBe('error');
    expect(out.results[0]).toMatchObject({ status: 'error', node_status: 'stopped', error: 'still stopped after 1 s (wanted started)' });
  });

  it('stop_gns3_node reports an error when the node is still started after the deadline', async () => {
    const { ctx } = await lab({ statusDelayMs: 150 });
    await runTool(tool('start_gns3_node'), { nodes: ['R1'] }, ctx);
    current!.fake.statusDelayMs = 5_000;
    const out = await runTool(tool('stop_gns3_node'), { nodes: ['R1'], wait_seconds: 1 }, ctx);
    expect(out.status).toBe('error');
    expect(out.results[0]).toMatchObject({
      status: 'error',
      node: 'R1',
      node_status: 'started',
      error: 'still started after 1 s (wanted stopped)',
    });
  });

  it('a 500 in the middle of a bulk start fails only that node', async () => {
    const { ctx } = await lab();
    const r2 = current!.fake.node('R2');
    current!.fake.inject({
      method: 'POST',
      path: new RegExp(`/nodes/${r2.node_id}/start$`),
      status: 500,
      body: 'Internal Server Error',
      contentType: 'text/plain',
    });
    const out = await runTool(tool('start_gns3_node'), { nodes: ['R1', 'R2'] }, ctx);
    expect(out.status).toBe('partial');
    expect(out.results[0]).toMatchObject({ status: 'success', node: 'R1', node_status: 'started' });
    expect(out.results[1]).toMatchObject({ status: 'error', node: 'R2', error: 'Internal Server Error (HTTP 500)' });
  });

  it('stop and suspend report the final status; switches and VPCS explain no-ops', async () => {
    const { ctx, project } = await lab({ statusDelayMs: 150 });
    await runTool(tool('start_gns3_node'), { nodes: ['R1'] }, ctx);
    const stop = await runTool(tool('stop_gns3_node'), { nodes: ['R1', 'SW1', 'nope'] }, ctx);
    expect(stop.status).toBe('partial');
    expect(stop.results[0]).toMatchObject({ status: 'success', node_status: 'stopped' });
    expect(stop.results[1]).toMatchObject({
      status: 'success',
      node_status: 'started',
      note: 'ethernet_switch nodes are always running; stop has no effect',
    });
    expect(stop.results[2]).toMatchObject({ status: 'error', node: 'nope' });
    await runTool(tool('start_gns3_node'), { nodes: ['R1'] }, ctx);
    const susp = await runTool(tool('suspend_gns3_node'), { nodes: ['R1'] }, ctx);
    expect(susp.results[0]).toMatchObject({ status: 'success', node_status: 'suspended' });
    current!.fake.addNode({ name: 'PC1', node_type: 'vpcs', status: 'started' });
    project.invalidate();
    const vpcs = await runTool(tool('suspend_gns3_node'), { nodes: ['PC1'] }, ctx);
    expect(vpcs.results[0]).toMatchObject({
      status: 'success',
      node_status: 'started',
      note: 'vpcs nodes cannot be suspended; it keeps running',
    });
  });

  it('get_gns3_node_console gives each node its console host, port and type; an unknown node is its item error', async () => {
    const { ctx, project } = await lab();
    const topo = await project.getTopology();
    const r1 = topo.nodes.find((n) => n.name === 'R1')!;
    const out = await runTool(tool('get_gns3_node_console'), { nodes: ['r1', 'SW1', 'R9'] }, ctx);
    expect(out.status).toBe('partial');
    expect(out.results[0]).toEqual({
      status: 'success',
      node: 'R1',
      console_type: r1.console_type,
      host: r1.console_host,
      port: r1.console,
    });
    expect(r1.console).toEqual(expect.any(Number));
    expect(out.results[1]).toMatchObject({ status: 'success', node: 'SW1' });
    expect(out.results[2]).toMatchObject({ status: 'error', node: 'R9' });
    expect(out.results[2].error).toMatch(/R9/);
  });

  it('update_gns3_node_name verifies the stored name; v3 refuses running nodes clearly', async () => {
    const { ctx } = await lab();
    const out = await runTool(
      tool('update_gns3_node_name'),
      {
        nodes: [
          { node: 'R2', new_name: 'Core 2' },
          { node: 'R1', new_name: 'Core2' },
        ],
      },
      ctx,
    );
    expect(out.results[0]).toMatchObject({ status: 'success', old_name: 'R2', name: 'Core2' });
    expect(out.results[0].note).toMatch(/spaces removed/);
    expect(out.results[1]).toMatchObject({ status: 'success', old_name: 'R1', name: 'Core1' });
    await runTool(tool('start_gns3_node'), { nodes: ['Core1'] }, ctx);
    const running = await runTool(tool('update_gns3_node_name'), { nodes: [{ node: 'core1', new_name: 'Edge' }] }, ctx);
    if (api === 'v3') {
      expect(running.results[0]).toMatchObject({ status: 'error' });
      expect(running.results[0].error).toBe(
        'Sorry, it is not possible to rename a node that is already powered on — stop the node first, then rename it',
      );
    } else {
      expect(running.results[0]).toMatchObject({ status: 'success', name: 'Edge' });
    }
  });

  it('gns3_topology_reader gives nodes, consoles, port usage and links; text format too', async () => {
    const { ctx } = await lab();
    const out = await runTool(tool('gns3_topology_reader'), {}, ctx);
    expect(out.status).toBe('success');
    expect(out.project).toBe('lab');
    const r1 = out.nodes.find((n: { name: string }) => n.name === 'R1');
    expect(r1).toMatchObject({ type: 'qemu', template: 'FRR', status: 'stopped', tags: ['device_type:frr'] });
    expect(r1.console).toMatch(/^telnet 127\.0\.0\.1:\d+$/);
    expect(r1.ports).toEqual({ e0: 'R2:e0', e1: null, e2: null, e3: null });
    expect(out.links).toEqual([{ link_id: expect.any(String), a: 'R1:e0', b: 'R2:e0', filters: {} }]);
    const sw = out.nodes.find((n: { name: string }) => n.name === 'SW1');
    expect(sw.console).toBeNull(); // console_type "none"
    const text = await runTool(tool('gns3_topology_reader'), { format: 'text' }, ctx);
    expect(text.topology).toMatch(/^R1 .*e0-R2:e0/m);
  });

  it('gns3_topology_reader with nodes reads only the named and globbed nodes and the links touching them', async () => {
    const { ctx } = await lab();
    current!.fake.addNode({ name: 'R10', node_type: 'qemu', template_name: 'FRR', x: 400, y: 0 });
    current!.fake.addLink({ a: 'R2:e1', b: 'SW1:e0' });
    current!.fake.addLink({ a: 'R10:e0', b: 'SW1:e1' });
    const out = await runTool(tool('gns3_topology_reader'), { nodes: ['R[1-2]'] }, ctx);
    expect(out.status).toBe('success');
    expect(out.nodes.map((n: { name: string }) => n.name)).toEqual(['R1', 'R2']);
    // R1–R2 and R2–SW1 touch the picked nodes; R10–SW1 does not
    expect(out.links.map((l: { a: string; b: string }) => `${l.a} ${l.b}`)).toEqual(['R1:e0 R2:e0', 'R2:e1 SW1:e0']);
    expect(out.selected).toEqual({ nodes: ['R[1-2]'], of_nodes: 4 });
    const text = await runTool(tool('gns3_topology_reader'), { nodes: ['sw1', 'R1*'], format: 'text' }, ctx);
    const lines = text.topology.split('\n');
    expect(lines[0]).toBe('Project lab: sw1, R1*: 3 of 4 nodes, 3 links');
    expect(lines.filter((l: string) => /^(R1|R10|SW1|R2) /.test(l)).map((l: string) => l.split(' ')[0])).toEqual(['R1', 'SW1', 'R10']);
    expect(text.topology).not.toMatch(/^R2 /m);
    expect(text.topology).toMatch(/^R1 .*e0-R2:e0/m);
    const unknown = await runTool(tool('gns3_topology_reader'), { nodes: ['X*'] }, ctx);
    expect(unknown).toMatchObject({ status: 'error', error: 'device pattern "X*" matches no node (nodes: R1, R2, SW1, R10)' });
  });

  it('manage_gns3_packet_filter validates against available filters, merges on set, clears', async () => {
    const { ctx } = await lab();
    const pf = tool('manage_gns3_packet_filter');
    const avail = await runTool(pf, { link: 'R1 R2', action: 'get_available' }, ctx);
    expect(avail.link).toBe('R1:e0 <-> R2:e0');
    expect(avail.available.map((f: { type: string }) => f.type)).toEqual(['frequency_drop', 'packet_loss', 'delay', 'corrupt', 'bpf']);
    expect(avail.available[1].parameters[0]).toEqual({ name: 'Chance', type: 'int', min: 0, max: 100, unit: '%' });

    const bad = await runTool(
      pf,
      { link: 'R1:e0 R2:e0', action: 'set', filters: { packet_loss: [150], jitter: [1], delay: [1, 2, 3] } },
      ctx,
    );
    expect(bad.status).toBe('error');
    expect(bad.error).toBe(
      'packet_loss Chance must be between 0 and 100 %, got 150; unknown filter "jitter" (available: frequency_drop, packet_loss, delay, corrupt, bpf); delay takes 1 to 2 values (Latency, Jitter (-/+))',
    );
    // nothing was sent
    expect(current!.fake.requests.some((r) => r.method === 'PUT')).toBe(false);

    const set1 = await runTool(pf, { link: 'R2 R1', action: 'set', filters: { packet_loss: 30, bpf: ['icmp', 'udp port 53'] } }, ctx);
    expect(set1).toMatchObject({ status: 'success', filters: { packet_loss: [30], bpf: ['icmp\nudp port 53'] } });
    const set2 = await runTool(pf, { link: 'R1 R2', action: 'set', filters: { delay: ['100', 10] } }, ctx);
    expect(set2.filters).toEqual({ packet_loss: [30], bpf: ['icmp\nudp port 53'], delay: [100, 10] });
    const got = await runTool(pf, { link: 'R1 R2', action: 'get' }, ctx);
    expect(got.filters).toEqual(set2.filters);
    const some = await runTool(pf, { link: 'R1 R2', action: 'clear', filters: { bpf: [] } }, ctx);
    expect(some.filters).toEqual({ packet_loss: [30], delay: [100, 10] });
    const none = await runTool(pf, { link: 'R1 R2', action: 'clear' }, ctx);
    expect(none.filters).toEqual({});
    const unknownLink = await runTool(pf, { link: 'R1 SW1', action: 'get' }, ctx);
    expect(unknownLink).toEqual({ status: 'error', error: 'No link between R1 and SW1 matches "R1 SW1"' });
  });

  it('re-opens a project the server closed (auto_close) and carries on', async () => {
    const { ctx } = await lab();
    current!.fake.project().data.status = 'closed';
    const out = await runTool(tool('create_gns3_node'), { nodes: [{ template: 'VPCS', name: 'PC1' }] }, ctx);
    expect(out.results[0]).toMatchObject({ status: 'success', name: 'PC1' });
    expect(current!.fake.project().data.status).toBe('opened');
    expect(current!.fake.requests.filter((r) => r.path.endsWith('/open'))).toHaveLength(1);
  });

  it('tools report an unreachable controller as JSON, not a throw', async () => {
    const { ctx } = await lab();
    await current!.fake.close();
    const out = await runTool(tool('gns3_topology_reader'), {}, ctx);
    expect(out.status).toBe('error');
    expect(out.error).toMatch(/^GNS3 controller at http:\/\/127\.0\.0\.1:\d+ is unreachable: connection refused$/);
    current = { ...current!, close: () => current!.client.close() };
  });

  it('project scopes are typed for the tools', async () => {
    const { project } = await lab();
    const p: Gns3Project = project;
    expect(p.projectName).toBe('lab');
  });
});
