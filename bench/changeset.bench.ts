/**
 * Change sets (apply_config_template): the tokens the model must write (tool-call arguments,
 * o200k) to configure OSPF on 20 routers — per-device commands in one
 * execute_multiple_device_config_commands call against one template with facts — and what
 * rendering that template for 20 routers costs. Goal: the template ≤ 10% of the per-device
 * commands. The per-device lines are the ones the template renders, so both configure the same.
 * Then on 20 real FRR routers (./changeset-apply.ts): the set's apply against the slowest single
 * router's (goal ≤ 1.5×) and a verification's reads (goal ≤ 2 s), behind consoles 10 ms away and
 * on the local lab with the copilot's CPU share.
 */
import { performance } from 'node:perf_hooks';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { getEncoder } from '../src/agent/tokens.js';
import { renderFor, renderedLines, type DeviceFacts } from '../src/tools/changeset/render.js';
import { measureApply } from './changeset-apply.js';

const N = 20;
const ROUTERS = Array.from({ length: N }, (_, i) => `R${i + 1}`);

/** The same template the FRR lab test applies: every addressed interface in the area, fast hellos on the links. */
const TEMPLATE = `router ospf
 ospf router-id 10.255.255.{{ device.index }}
{% for i in device.interfaces %}{% if i.network != "" %} network {{ i.network }} area {{ area }}
{% endif %}{% endfor %}exit
{% for i in device.interfaces %}{% if i.name != "lo" and i.prefix_length == 24 %}interface {{ i.name }}
 ip ospf network point-to-point
 ip ospf hello-interval {{ hello }}
 ip ospf dead-interval {{ hello | times: 4 }}
exit
{% endif %}{% endfor %}`;

/** A chain of 20 routers as test/lab numbers it: link k is 10.0.<k+1>.0/24, the loopback 10.255.255.<i+1>/32. */
function factsOf(i: number): DeviceFacts {
  const iface = (name: string, address: string, len: number, network: string) => ({
    name,
    address,
    prefix_length: len,
    network,
    state: 'up',
  });
  const interfaces = [];
  if (i > 0) interfaces.push(iface(`eth${interfaces.length}`, `10.0.${i}.2`, 24, `10.0.${i}.0/24`));
  if (i < N - 1) interfaces.push(iface(`eth${interfaces.length}`, `10.0.${i + 1}.1`, 24, `10.0.${i + 1}.0/24`));
  interfaces.push(iface('lo', `10.255.255.${i + 1}`, 32, `10.255.255.${i + 1}/32`));
  return { name: ROUTERS[i]!, index: i + 1, platform: 'frr', interfaces };
}

export async function run(): Promise<BenchTable> {
  const enc = await getEncoder('o200k_base');
  const input = { template: TEMPLATE, vars: { area: 0, hello: 1 }, device_vars: {} };
  const rendered = ROUTERS.map((_, i) => {
    const r = renderFor(input, factsOf(i));
    if (!r.ok) throw new Error(r.error);
    return renderedLines(r.text);
  });
  const perDevice = {
    device_configs: ROUTERS.map((device_name, i) => ({ device_name, config_commands: rendered[i]! })),
  };
  const template = { template: TEMPLATE, devices: ['R*'], vars: { area: 0, hello: 1 } };
  const perDeviceTokens = enc.count(JSON.stringify(perDevice));
  const templateTokens = enc.count(JSON.stringify(template));
  const times: number[] = [];
  for (let k = 0; k < 20; k++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) renderFor(input, factsOf(i));
    times.push(performance.now() - t0);
  }
  const share = templateTokens / perDeviceTokens;
  const lab = await measureApply();
  return {
    title: `Change sets: OSPF on ${N} routers (tool-call arguments in o200k tokens; apply and verification on FRR)`,
    columns: ['what', 'value', 'goal'],
    rows: [
      ['per-device commands (execute_multiple_device_config_commands)', `${perDeviceTokens} tokens`, ''],
      ['template + facts (apply_config_template)', `${templateTokens} tokens`, ''],
      ['template / per-device', `${(share * 100).toFixed(1)} %`, `≤ 10 % ${share <= 0.1 ? '✓' : '✗'}`],
      [`render for ${N} routers (median of 20)`, fmtMs(median(times)), ''],
      ...lab.rows,
    ],
    notes: [
      `Both calls configure the same ${rendered.flat().length} lines; the per-device lines are the template's own rendering.`,
      ...lab.notes,
    ],
  };
}
