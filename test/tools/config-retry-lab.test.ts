/**
 * Retries of configuration on a real FRR router (test/lab), through the agent's tools node:
 * the fake LLM over HTTP, the fake controller whose node R1's console is a counting relay in
 * front of the router's console, so the test sees every line the router received.
 *
 * - a config push that timed out after its first line is not sent again, even with
 *   retry_on_tool_error on: the router received that line once and never the lines after it;
 * - a console that refused the connection (nothing sent) is retried, with the default settings,
 *   and the push then lands once.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { allTools } from '../../src/tools/index.js';
import type { AgentEvent } from '../../src/core/events.js';

process.env.GNS3_COPILOT_TOOL_RETRY_MS = '400';
const { tmp, startLlm } = useFakeLlm('gc-cfg-retry-');
let lab: Lab;

beforeAll(async () => {
  lab = await startLab({ routers: ['R1'], links: [] });
});
afterAll(async () => {
  await lab?.stop();
});

/** A TCP relay to the router's console that counts the lines it passes on (telnet bytes left out). */
interface Relay {
  port: number;
  /** every line the router was sent, in order */
  lines: string[];
  listen(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function stripTelnet(d: Buffer): string {
  const out: number[] = [];
  for (let i = 0; i < d.length; i++) {
    const b = d[i]!;
    if (b !== 255) out.push(b);
    else if (d[i + 1]! >= 251 && d[i + 1]! <= 254) i += 2;
    else i += 1;
  }
  return Buffer.from(out).toString('latin1');
}

/** The relay on a port nobody listens on yet (connections are refused until listen()). */
async function relayTo(target: number): Promise<Relay> {
  const port = await freePort();
  const lines: string[] = [];
  const sockets = new Set<net.Socket>();
  let pending = '';
  const server = net.createServer((client) => {
    const up = net.connect(target, '127.0.0.1');
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        up.destroy();
      });
    }
    up.on('data', (d: Buffer) => client.write(d));
    client.on('data', (d: Buffer) => {
      up.write(d);
      pending += stripTelnet(d);
      let m: RegExpExecArray | null;
      while ((m = /\r\n|\r\0|\n|\r/.exec(pending))) {
        lines.push(pending.slice(0, m.index));
        pending = pending.slice(m.index + m[0].length);
      }
    });
  });
  return {
    port,
    lines,
    listen: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return r();
        server.close(() => r());
      }),
  };
}

const push = (id: string, lines: string[]) => ({
  id,
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R1', config_commands: lines }] },
});

async function withController<T>(relay: Relay, fn: (gns3: FakeGns3) => Promise<T>): Promise<T> {
  const gns3 = await startFakeGns3({ api: 'v2' });
  try {
    gns3.addProject({ name: 'retry-lab' });
    gns3.addNode(frrLabNode({ ...lab.device('R1'), consolePort: relay.port }, { project: 'retry-lab' }));
    return await fn(gns3);
  } finally {
    await gns3.close();
  }
}

describe('retries of configuration on a real router', () => {
  it('a push that timed out after its first line is not sent again, even with retry_on_tool_error on', async () => {
    const relay = await relayTo(lab.device('R1').consolePort);
    await relay.listen();
    try {
      await withController(relay, async (gns3) => {
        const first = 'ip prefix-list RETRY-HALF seq 5 permit 192.0.2.0/24';
        const last = 'ip prefix-list RETRY-HALF seq 10 permit 198.51.100.0/24';
        // the second line never gives the prompt back (ping runs until Ctrl-C): the push times out there
        const llm = await startLlm([{ tool_calls: [push('p1', [first, 'do ping 127.0.0.1', last])] }, { text: 'R1 timed out.' }]);
        const s = await session(
          testSettings(llm.url, tmp.dir, {
            server: gns3.url,
            project: 'retry-lab',
            mode: 'lab',
            approve: 'config',
            command_timeout_ms: 1_500,
            retry_on_tool_error: true,
            max_retries_per_tool: 3,
          }),
          allTools(),
        );
        try {
          const ev: AgentEvent[] = [];
          for await (const e of s.send('add the prefix list')) ev.push(e);
          expect(ofType(ev, 'tool_retry')).toHaveLength(0);
          const end = ofType(ev, 'tool_end')[0]!;
          expect(end.status).toBe('partial');
          const device = (JSON.parse(end.output) as { devices: { results: { command: string; status: string }[] }[] }).devices[0]!;
          expect(device.results.map((r) => r.status)).toEqual(['success', 'timeout', 'aborted']);
          // what the router received: the first line once, the line after the timeout never
          expect(relay.lines.filter((l) => l === first)).toHaveLength(1);
          expect(relay.lines.filter((l) => l === 'do ping 127.0.0.1')).toHaveLength(1);
          expect(relay.lines).not.toContain(last);
          const running = lab.vtysh('R1', 'show running-config');
          expect(running).toContain('ip prefix-list RETRY-HALF seq 5 permit 192.0.2.0/24');
          expect(running).not.toContain('seq 10 permit 198.51.100.0/24');
        } finally {
          await s.close();
        }
      });
    } finally {
      await relay.close();
    }
  });

  it('a console that refused the connection before anything was sent is retried (default settings) and the push lands once', async () => {
    const relay = await relayTo(lab.device('R1').consolePort);
    try {
      await withController(relay, async (gns3) => {
        const line = 'ip prefix-list RETRY-REFUSED seq 5 permit 203.0.113.0/24';
        const llm = await startLlm([{ tool_calls: [push('p2', [line])] }, { text: 'Done on the second try.' }]);
        const s = await session(
          testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'retry-lab', mode: 'lab', approve: 'config' }),
          allTools(),
        );
        try {
          const ev: AgentEvent[] = [];
          for await (const e of s.send('add the prefix list')) {
            ev.push(e);
            // the console comes up while the call waits for its retry
            if (e.type === 'tool_retry') await relay.listen();
          }
          const retries = ofType(ev, 'tool_retry');
          expect(retries).toHaveLength(1);
          expect(retries[0]!.error).toMatch(/ECONNREFUSED/);
          expect(ofType(ev, 'tool_end')[0]).toMatchObject({ id: 'p2', status: 'success' });
          expect(relay.lines.filter((l) => l === line)).toHaveLength(1);
          expect(lab.vtysh('R1', 'show running-config')).toContain(line);
        } finally {
          await s.close();
        }
      });
    } finally {
      await relay.close();
    }
  });
});
