/**
 * MCP round trip vs the in-process tool call, median of 30 each:
 * `execute_multiple_device_commands` (1 FRR router, `show ip route`) through the
 * fake GNS3 controller onto the real lab console, with a warm device session.
 *
 * - in-process: the registry's executeTool, as the agent's graph runs it
 * - MCP stdio: the SDK client → `gns3-copilot mcp` (own process) → the same tool
 *
 * Goal: MCP <= 1.5x in-process + 2 ms. Needs root and the lab packages.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { settingsSchema } from '../src/config/schema.js';
import { nullLogger } from '../src/log.js';
import { createGns3Client } from '../src/gns3/client.js';
import { memoryTokenStore } from '../src/gns3/auth.js';
import { executeTool } from '../src/tools/registry.js';
import { executeMultipleDeviceCommands } from '../src/tools/devices/commands.js';
import type { ToolContext } from '../src/tools/types.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { startLab } from '../test/lab/lab.js';
import { fmtMs, median, type BenchTable } from './table.js';

const N = 30;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] };

async function timed(n: number, call: () => Promise<string>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const text = await call();
    out.push(performance.now() - t0);
    if (!text.includes('10.255.255.1/32')) throw new Error(`unexpected result: ${text.slice(0, 300)}`);
  }
  return out;
}

export async function run(): Promise<BenchTable> {
  const lab = await startLab({ routers: ['R1'], links: [] });
  const fake = await startFakeGns3({ api: 'v2' });
  const services = new Map<string, unknown>();
  const client = new Client({ name: 'bench', version: '0' });
  const gns3 = createGns3Client({ settings: settingsSchema.parse({ server: fake.url }), log: nullLogger, tokenStore: memoryTokenStore() });
  try {
    fake.addProject({ name: 'bench' });
    fake.addNode({
      name: 'R1',
      node_type: 'qemu',
      console_host: '127.0.0.1',
      console: lab.device('R1').consolePort,
      console_type: 'telnet',
      status: 'started',
      template_name: 'FRR 8.4',
      project: 'bench',
    });
    const settings = settingsSchema.parse({ server: fake.url, project: 'bench' });
    const project = await gns3.openProject('bench');
    const ctx: ToolContext = { settings, signal: new AbortController().signal, log: nullLogger, project: async () => project, services };
    const inProcess = () => executeTool(executeMultipleDeviceCommands, args, ctx, 16_000).then((r) => r.output);

    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/cli.ts', 'mcp', '-s', fake.url, '--project', 'bench', '-m', 'teaching'],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          GNS3_COPILOT_KEYCHAIN: 'off',
          GNS3_COPILOT_SYSTEM_CONFIG: '/nonexistent',
        },
        stderr: 'ignore',
      }),
    );
    const overMcp = async () => {
      const r = await client.callTool({ name: 'execute_multiple_device_commands', arguments: args });
      return JSON.stringify(r.structuredContent);
    };
    // warm: sessions open, JIT, topology caches
    await timed(3, inProcess);
    await timed(3, overMcp);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < N; i++) {
      a.push(...(await timed(1, inProcess)));
      b.push(...(await timed(1, overMcp)));
    }
    const ma = median(a);
    const mb = median(b);
    const goal = 1.5 * ma + 2;
    return {
      title: 'MCP round trip (execute_multiple_device_commands, 1 FRR router, show ip route, warm session)',
      columns: ['path', `median of ${N}`, 'vs in-process', 'goal'],
      rows: [
        ['in-process tool call (executeTool)', fmtMs(ma), '1.00x', ''],
        [
          'MCP stdio: SDK client → gns3-copilot mcp',
          fmtMs(mb),
          `${(mb / ma).toFixed(2)}x (+${fmtMs(mb - ma)})`,
          `<= ${fmtMs(goal)}: ${mb <= goal ? 'met' : 'NOT met'}`,
        ],
      ],
      notes: ['Both paths fetch the topology from the fake controller over HTTP and run the command on a pooled console session.'],
    };
  } finally {
    await client.close().catch(() => undefined);
    for (const s of services.values()) (s as { close?: () => void }).close?.();
    await gns3.close();
    await fake.close();
    await lab.stop();
  }
}
