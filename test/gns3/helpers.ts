/** Shared setup for the GNS3 tests: a fake controller and a client pointed at it. */
import { settingsSchema, type Settings } from '../../src/config/schema.js';
import { memoryTokenStore, type TokenStore } from '../../src/gns3/auth.js';
import { createGns3Client, type Gns3Client } from '../../src/gns3/client.js';
import { emptyPcap } from '../../src/gns3/pcap.js';
import type { ProjectScope } from '../../src/gns3/types.js';
import { nullLogger } from '../../src/log.js';
import type { ToolContext, ToolDef } from '../../src/tools/types.js';
import { outcomeText } from '../../src/tools/registry.js';
import { startFakeGns3, type FakeGns3, type FakeGns3Options } from '../fakes/gns3/server.js';

export const ADMIN = { username: 'admin', password: 'admin-pass' };

export interface Rig {
  fake: FakeGns3;
  client: Gns3Client;
  settings: Settings;
  tokens: TokenStore;
  close(): Promise<void>;
}

export async function rig(
  api: 'v2' | 'v3',
  fakeOpts: Partial<FakeGns3Options> = {},
  settingsOver: Partial<Record<string, unknown>> = {},
  creds: { username: string; password: string } | null = ADMIN,
): Promise<Rig> {
  const fake = await startFakeGns3({ api, users: api === 'v3' ? { [ADMIN.username]: ADMIN.password } : undefined, ...fakeOpts });
  const settings = settingsSchema.parse({ server: fake.url, request_timeout_ms: 5_000, connect_timeout_ms: 2_000, ...settingsOver });
  const tokens = memoryTokenStore();
  const client = createGns3Client({
    settings,
    log: nullLogger,
    credentials: async () => creds ?? undefined,
    tokenStore: tokens,
    maxAttempts: 2,
  });
  return {
    fake,
    client,
    settings,
    tokens,
    async close() {
      await client.close();
      await fake.close();
    },
  };
}

export function toolCtx(settings: Settings, project: () => Promise<ProjectScope>): ToolContext {
  return { settings, signal: new AbortController().signal, log: nullLogger, project, services: new Map() };
}

/** Runs a tool and parses its JSON answer. */
export async function runTool(tool: ToolDef, args: unknown, ctx: ToolContext): Promise<any> {
  const parsed = tool.schema.parse(args);
  return JSON.parse(outcomeText(await tool.run(parsed, ctx)));
}

/** A classic pcap (little endian, Ethernet) with `n` small frames. */
export function makePcap(n: number): Uint8Array {
  const header = Buffer.from(emptyPcap());
  const recs: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const frame = Buffer.alloc(60, i);
    frame.fill(0xff, 0, 6); // broadcast dst
    frame.writeUInt16BE(0x0806, 12); // ARP
    const rh = Buffer.alloc(16);
    rh.writeUInt32LE(1_700_000_000 + i, 0);
    rh.writeUInt32LE(0, 4);
    rh.writeUInt32LE(frame.length, 8);
    rh.writeUInt32LE(frame.length, 12);
    recs.push(rh, frame);
  }
  return new Uint8Array(Buffer.concat([header, ...recs]));
}

/** Waits for a state (never a fixed sleep): polls every 5 ms, fails naming `what` after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
