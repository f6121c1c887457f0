/**
 * A device batch where every device fails is a failed call everywhere: the real
 * registry and device tool against the fake GNS3 controller, whose nodes'
 * consoles are closed ports on 127.0.0.1, driven by the fake LLM over HTTP.
 * The TUI (the real App on the real services) marks it ✗ and `--json` (the real
 * one-shot runner) reports `status: "error"`; one item of two failing is `partial`.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/App.js';
import { createRealServices } from '../../src/ui/services.js';
import { stripAnsi } from '../../src/ui/style.js';
import { nullLogger } from '../../src/log.js';
import { runOneShot } from '../../src/commands/oneshot.js';
import { sessionOpener } from '../../src/commands/agent-session.js';
import type { FakeLlm } from '../fakes/llm/server.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { captureStdout, collect, ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { startGns3Node } from '../../src/tools/gns3/node-power.js';
import { tuiInvocation } from '../ui/helpers/fake-services.js';
import { until } from '../ui/helpers/scripted-session.js';
import { jsonResultSchema } from '../e2e/oneshot-schema.js';
import type { ToolDef } from '../../src/tools/types.js';

const { tmp, startLlm } = useFakeLlm('gc-batch-');

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

let gns3: FakeGns3;
beforeEach(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'lab' });
  for (const name of ['R1', 'R2']) {
    gns3.addNode(telnetNode(name, await closedPort(), { template_name: 'FRR 8.4' }));
  }
});
afterEach(async () => {
  await gns3.close();
});

const showOn = (...devices: string[]) => ({
  id: 'c1',
  name: 'execute_multiple_device_commands',
  args: { device_configs: devices.map((device_name) => ({ device_name, commands: ['show ip route'] })) },
});
const settingsFor = (llm: FakeLlm) => testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', connect_timeout_ms: 2_000 });

describe('a device batch where every device fails', () => {
  it('ends with status error and a display line naming the failure; the model reads status error', async () => {
    const llm = await startLlm([{ tool_calls: [showOn('R1', 'R2')] }, { text: 'Both consoles are unreachable.' }]);
    const s = await session(settingsFor(llm), [executeMultipleDeviceCommands] as ToolDef[]);
    const ev = await collect(s.send('show routes on R1 and R2'));
    await s.close();
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end.status).toBe('error');
    expect(end.display).toMatch(/^all 2 devices failed: R1: 127\.0\.0\.1:\d+: /);
    const out = JSON.parse(end.output) as { status: string; devices: { device_name: string; status: string }[] };
    expect(out.status).toBe('error');
    expect(out.devices.map((d) => [d.device_name, d.status])).toEqual([
      ['R1', 'error'],
      ['R2', 'error'],
    ]);
    const toModel = llm.requests.filter((r) => r.purpose === null)[1]!.body.messages.find((m) => m.role === 'tool')!;
    expect(String(toModel.content)).toMatch(/^\{"status":"error","devices":/);
  });

  it('a GNS3 batch with one item of two failing is partial, for the model too', async () => {
    gns3.addNode({ name: 'PC1', node_type: 'vpcs', status: 'stopped' });
    const llm = await startLlm([
      { tool_calls: [{ id: 's1', name: 'start_gns3_node', args: { nodes: ['PC1', 'NOPE'] } }] },
      { text: 'done' },
    ]);
    const s = await session(settingsFor(llm), [startGns3Node] as ToolDef[]);
    const ev = await collect(s.send('start PC1 and NOPE'));
    await s.close();
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end.status).toBe('partial');
    expect(end.display).toMatch(/^1 of 2 nodes failed: /);
    expect(JSON.parse(end.output)).toMatchObject({
      status: 'partial',
      results: [
        { node: 'PC1', status: 'success' },
        { node: 'NOPE', status: 'error' },
      ],
    });
  });

  it('--json: the call is status "error" with its display line', async () => {
    const llm = await startLlm([{ tool_calls: [showOn('R1', 'R2')] }, { text: 'Both consoles are unreachable.' }]);
    let code: number | undefined;
    const stdout = await captureStdout(async () => {
      code = await runOneShot(settingsFor(llm), {
        prompt: 'show routes on R1 and R2',
        output: 'json',
        continueLatest: false,
        interactive: false,
      });
    });
    expect(code).toBe(0);
    const result = jsonResultSchema.parse(JSON.parse(stdout));
    expect(result.tool_calls).toHaveLength(1);
    expect(result.tool_calls[0]).toMatchObject({ name: 'execute_multiple_device_commands', status: 'error' });
    expect(result.tool_calls[0]!.display).toMatch(/^all 2 devices failed: /);
  });

  it('the TUI marks the call ✗ and each device row as error', async () => {
    const llm = await startLlm([{ tool_calls: [showOn('R1', 'R2')] }, { text: 'Both consoles are unreachable.' }]);
    const r = render(
      <App
        settings={settingsFor(llm)}
        invocation={tuiInvocation()}
        services={createRealServices(nullLogger, sessionOpener)}
        color={false}
        onExit={() => undefined}
        retryMs={150}
        flushMs={5}
      />,
    );
    const frame = () => stripAnsi(r.lastFrame() ?? '');
    try {
      await until(() => frame().includes('›'), 10_000, `the prompt\n${frame()}`);
      r.stdin.write('show routes on R1 and R2');
      await new Promise((resolve) => setTimeout(resolve, 25));
      r.stdin.write('\r');
      // the finished turn (with its per-device table) is printed when `done` arrives
      await until(
        () => frame().includes('Both consoles are unreachable.') && !frame().includes('working…'),
        20_000,
        `the finished turn\n${frame()}`,
      );
      const f = frame();
      expect(f).toContain('✗ execute_multiple_device_commands R1, R2: show ip route');
      expect(f).not.toContain('✓ execute_multiple_device_commands');
      expect(f).toMatch(/│ R1\s+error\s+/);
      expect(f).toMatch(/│ R2\s+error\s+/);
    } finally {
      r.stdin.write('\u0004');
      r.unmount();
    }
  });
});
