/**
 * The agent-driven inject mode is told which scenarios a project has had, so it does not
 * repeat them either: injection_skills (in inject mode, with the session's ledger) leaves
 * them out of its list and says so, and a lookup by id says it was used. A real sessions.db.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.js';
import { SessionStore } from '../../src/sessions/store.js';
import { FaultStore } from '../../src/faults/store.js';
import { skillTools } from '../../src/tools/skills/index.js';
import { outcomeText } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/types.js';
import type { ProjectScope } from '../../src/gns3/types.js';
import type { Logger } from '../../src/log.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-used-'));
let sessions: SessionStore;
let store: FaultStore;
const log: Logger = { error() {}, warn() {}, info() {}, debug() {} };

beforeAll(async () => {
  sessions = await SessionStore.open(dir);
  store = new FaultStore(sessions.db);
  const base = {
    session_id: 's1',
    project_name: 'lab',
    target_kind: 'device' as const,
    applied: ['interface eth0', 'shutdown'],
    restore: { tool: 'execute_multiple_device_config_commands' as const, args: {} },
    repair_check: { interface: { device: 'R1', name: 'eth0', state: 'up' as const } },
    category: 'interface',
    difficulty: 'easy',
  };
  store.markRestored(store.record({ ...base, project_id: 'p1', target: 'R1', scenario: 'interface_shutdown' }).id);
  store.record({ ...base, project_id: 'p2', target: 'R1', scenario: 'ospf_cost_detour', category: 'ospf' });
});
afterAll(() => {
  sessions.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctx = (mode: ToolContext['mode'], projectId = 'p1'): ToolContext => ({
  settings: settingsSchema.parse({}),
  signal: new AbortController().signal,
  log,
  project: () => Promise.resolve({ projectId, projectName: 'lab' } as ProjectScope),
  services: new Map(),
  mode,
  faults: { sessionId: 's2', store },
});

async function lookup(args: Record<string, unknown>, c: ToolContext): Promise<any> {
  const t = skillTools.find((x) => x.name === 'injection_skills')!;
  return JSON.parse(outcomeText(await t.run(t.schema.parse(args), c)));
}

describe('injection_skills in inject mode', () => {
  it("leaves out the project's used scenarios (restored ones too) and names them", async () => {
    const r = await lookup({ category: 'interface' }, ctx('troubleshooting_injection'));
    expect(r.scenarios.map((s: { id: string }) => s.id)).not.toContain('interface_shutdown');
    expect(r.scenarios.length).toBeGreaterThan(0);
    expect(r.used_in_project).toEqual({
      scenarios: ['interface_shutdown'],
      note: 'not listed: this project had them already; do not repeat them',
    });
    // another project's faults are not this one's
    const other = await lookup({ category: 'interface' }, ctx('troubleshooting_injection', 'p2'));
    expect(other.scenarios.map((s: { id: string }) => s.id)).toContain('interface_shutdown');
    expect(other.used_in_project.scenarios).toEqual(['ospf_cost_detour']);
  });

  it('a lookup by id of a used scenario says so', async () => {
    const r = await lookup({ id: 'interface_shutdown' }, ctx('troubleshooting_injection'));
    expect(r.status).toBe('success');
    expect(r.used_in_project).toBe('used in this project already (fault #1): choose another scenario');
    expect((await lookup({ id: 'ospf_cost_detour' }, ctx('troubleshooting_injection'))).used_in_project).toBeUndefined();
  });

  it('outside inject mode nothing is held back', async () => {
    const r = await lookup({ category: 'interface' }, ctx('lab_automation_assistant'));
    expect(r.scenarios.map((s: { id: string }) => s.id)).toContain('interface_shutdown');
    expect(r.used_in_project).toBeUndefined();
  });
});
