/**
 * Test plumbing for `gns3-copilot mcp`: a fake GNS3 controller whose project
 * points at a real FRR router (test/lab) and at a scripted console that hangs
 * on `show hang` (and records the Ctrl-C the engine sends when a run is
 * cancelled), and the SDK's own client on the built binary over stdio or HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, isolatedEnv } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { fakeConsole, type FakeConsole } from '../devices/helpers.js';
import type { Lab } from '../lab/lab.js';

export interface McpLab {
  fake: FakeGns3;
  hung: FakeConsole & { ctrlC: boolean; hungLines: number };
  projectId: string;
  close(): Promise<void>;
}

export async function startMcpLab(lab: Lab): Promise<McpLab> {
  const fake = await startFakeGns3({ api: 'v2' });
  const state = { ctrlC: false, hungLines: 0 };
  const console_ = await fakeConsole('HUNG# ', (line, sock) => {
    if (line.trim() !== 'show hang') return '';
    state.hungLines++;
    sock.on('data', (d: Buffer) => {
      if (d.includes(3)) state.ctrlC = true;
    });
    return null; // never answers: a hung command
  });
  const hung = Object.assign(console_, state);
  Object.defineProperty(hung, 'ctrlC', { get: () => state.ctrlC });
  Object.defineProperty(hung, 'hungLines', { get: () => state.hungLines });
  const projectId = fake.addProject({ name: 'mcp-lab' });
  fake.addNode(telnetNode('R1', lab.device('R1').consolePort, { template_name: 'FRR 8.4', project: 'mcp-lab' }));
  fake.addNode(telnetNode('HUNG', hung.port, { tags: ['device_type:cisco_ios_telnet'], project: 'mcp-lab' }));
  return {
    fake,
    hung,
    projectId,
    close: async () => {
      await hung.close();
      await fake.close();
    },
  };
}

export function mcpEnv(extra: Record<string, string> = {}): Record<string, string> {
  return isolatedEnv({ GNS3_COPILOT_KEYCHAIN: 'off', ...extra });
}

export function serverArgs(fake: FakeGns3, mode: string, extra: string[] = []): string[] {
  return [BIN, 'mcp', '-s', fake.url, '--project', 'mcp-lab', '-m', mode, ...extra];
}

/** The SDK client on `gns3-copilot mcp` over stdio. */
export async function stdioClient(
  args: string[],
  env: Record<string, string>,
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** Starts `gns3-copilot mcp --http …` and resolves with the URL it prints (or its exit). */
export function startHttpBinary(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url?: string; code?: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s: ${stderr}`)), 20_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, code, stderr });
    });
  });
}

export function structured(r: unknown): any {
  return (r as { structuredContent?: unknown }).structuredContent;
}

export function text(r: unknown): string {
  return ((r as { content?: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');
}
