/**
 * `checkpoint save` and `checkpoint restore --yes` of 1 and of 20 real FRR routers, timed on the
 * commands' own path: a fake v3 controller lists the routers (test/fakes/gns3), withProjectLab
 * opens the project, saveLabCheckpoint captures and stores, restoreNamed plans from a fresh
 * capture, asks the gate (the approval `--yes` gives), sends through the one dispatch and reads
 * every device back. Before each restore the routers it restores are changed out of band
 * (an interface description), so every run has one change per router to put back.
 */
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsSchema } from '../src/config/schema.js';
import { memoryTokenStore } from '../src/gns3/auth.js';
import { createGns3Client } from '../src/gns3/client.js';
import type { Topology } from '../src/gns3/types.js';
import { nullLogger } from '../src/log.js';
import { SessionStore } from '../src/sessions/store.js';
import { saveLabCheckpoint } from '../src/checkpoints/named-save.js';
import { restoreIncomplete, restoreNamed } from '../src/undo/named-restore.js';
import { withProjectLab, type ProjectLab } from '../src/undo/project-lab.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { frrLabNode } from '../test/fakes/gns3/nodes.js';
import { ADMIN } from '../test/gns3/helpers.js';
import type { Lab } from '../test/lab/lab.js';
import { median } from './table.js';

export interface SaveRestoreTimes {
  saveOne: number;
  saveAll: number;
  restoreOne: number;
  restoreAll: number;
}

/**
 * What a restore has to put back: `change(names)` is a step that gives each named router of `lab`
 * a new description on `lo` out of band (vtysh), another one every time it runs.
 */
export function outOfBandChange(lab: Lab): (names: string[]) => () => void {
  let changes = 0;
  return (names) => () => {
    changes++;
    for (const r of names) lab.vtysh(r, 'configure terminal', 'interface lo', `description bench change ${changes}`);
  };
}

async function timed(fn: () => Promise<void>, before: () => void, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    before();
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/**
 * Medians of `runs` of: a save of a 1-router project and of the 20-router one, a restore of one
 * router (`--device r1`) and of all of them, over the consoles `consoles` names (the lab's own, or
 * forwarders in front of them).
 */
export async function saveRestoreTimes(lab: Lab, routers: string[], consoles: Topology, runs: number): Promise<SaveRestoreTimes> {
  const gns3 = await startFakeGns3({ api: 'v3', users: { [ADMIN.username]: ADMIN.password } });
  gns3.addProject({ name: 'one' });
  gns3.addProject({ name: 'all' });
  for (const n of consoles.nodes) {
    const device = { name: n.name, consoleHost: n.console_host ?? '127.0.0.1', consolePort: n.console! };
    if (n.name === routers[0]) gns3.addNode({ ...frrLabNode(device), project: 'one' });
    gns3.addNode({ ...frrLabNode(device), project: 'all' });
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gns3-copilot-bench-'));
  const sessions = await SessionStore.open(dataDir);
  const settings = settingsSchema.parse({ server: gns3.url, connect_timeout_ms: 10_000, command_timeout_ms: 20_000, verify_quiet: 0 });
  const client = createGns3Client({ settings, log: nullLogger, credentials: async () => ADMIN, tokenStore: memoryTokenStore() });
  const signal = new AbortController().signal;
  const inProject = <T>(project: string, body: (lab: ProjectLab) => Promise<T>) =>
    withProjectLab(client, settings, project, sessions, signal, nullLogger, body);
  const change = outOfBandChange(lab);
  const save = (project: string) =>
    inProject(project, async (l) => {
      const r = await saveLabCheckpoint({ ctx: l.ctx, store: l.store, controller: l.controller }, { name: 'bench', replace: true });
      const missing = r.devices.filter((d) => d.status !== 'saved');
      if (missing.length) throw new Error(`bench save did not capture ${missing.map((d) => d.name).join(', ')}`);
    });
  const restore = (devices?: string[]) =>
    inProject('all', async (l) => {
      const r = await restoreNamed(l, {
        name: 'bench',
        ...(devices ? { devices } : {}),
        mode: settings.mode,
        policy: 'ask',
        approvalTools: settings.approval_tools,
        approver: () => Promise.resolve({ kind: 'allow_once' as const }),
        interactive: false,
      });
      const restored = r.devices.filter((d) => d.status === 'restored').length;
      const left = restoreIncomplete(r);
      if (r.blocked || left.length || restored !== (devices ?? routers).length)
        throw new Error(`bench restore: ${r.blocked?.reason ?? ''} ${left.join(', ')} (${restored} restored)`);
    });
  try {
    // warm-up: the code paths, the fake's token, sessions.db; the checkpoint every restore goes back to
    await save('one');
    await save('all');
    const nothing = () => undefined;
    return {
      saveOne: await timed(() => save('one'), nothing, runs),
      saveAll: await timed(() => save('all'), nothing, runs),
      restoreOne: await timed(() => restore([routers[0]!]), change([routers[0]!]), runs),
      restoreAll: await timed(() => restore(), change(routers), runs),
    };
  } finally {
    await client.close();
    sessions.close();
    await gns3.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
