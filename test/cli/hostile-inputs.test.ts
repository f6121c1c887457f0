/**
 * Hostile inputs a tester threw at the built CLI, re-run on every CI: each is a bad input that
 * must end in one line and a documented exit code, quickly and in bounded memory, before any
 * lab is touched — never a hang, a stack trace or a gigabyte.
 *
 * - check files: over the size cap, over the check count, an alias bomb, nesting a parser
 *   recurses into, a FIFO (which once hung past Ctrl-C and SIGTERM), a directory; the same
 *   loader guards for the agent's verify_lab; `--junit` somewhere it cannot write, refused
 *   before the run instead of after it.
 * - the fault ledger across processes: two `faults restore N` at once restore once (the
 *   loser exits 2); two `mcp --mode inject` servers, one client each, applying a fault of one
 *   category on one link at once apply one (the slot is reserved in sessions.db).
 *
 * The controller is a fake GNS3 (test/fakes/gns3) that records every request: "before the lab
 * is read" means it saw none. Fault-ledger cases use link faults, whose repair check reads
 * only the controller, on a real sessions.db shared by the processes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';
import { BIN } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { stdioClient, structured, text } from '../mcp/helpers.js';
import { SessionStore } from '../../src/sessions/store.js';
import { FaultStore } from '../../src/faults/store.js';
import { verifyLab } from '../../src/tools/check/verify-lab.js';
import { MAX_CHECKS } from '../../src/check/schema.js';
import { ctxFor, settingsWith } from '../devices/helpers.js';

const scope = cliScope();
let gns3: FakeGns3;

let projectId: string;

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  projectId = gns3.addProject({ name: 'hostile' });
  for (const [name, x] of [
    ['R1', 0],
    ['R2', 200],
  ] as const)
    gns3.addNode({ name, node_type: 'qemu', template_name: 'FRR', x, y: 0, project: 'hostile' });
});
afterAll(async () => {
  await gns3?.close();
});

const nodeChecks = (n: number) => Array.from({ length: n }, (_, i) => `  - node: {name: R${i}, status: started}\n`).join('');

/** The CLI's stderr is one `error:` line; the fake controller saw nothing. */
function oneLine(r: { code: number | null; stderr: string }, code: number, text: string | RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  if (typeof text === 'string') expect(lines[0]).toContain(text);
  else expect(lines[0]).toMatch(text);
  expect(lines[0]).not.toMatch(/internal error|\n\s+at /);
}

describe('check files are bounded: exit 2 naming the problem, before the lab is read', () => {
  const check = async (file: string, extra: string[] = []) => {
    const e = scope.fresh();
    const before = gns3.requests.length;
    const r = await runCli(['check', file, '--project', 'hostile', '-s', gns3.url, ...extra], e.env, { timeoutMs: 60_000 });
    expect(gns3.requests.length, 'the controller was asked').toBe(before);
    return r;
  };

  it('a 10 MB file is refused by its size, never parsed', async () => {
    const e = scope.fresh();
    const file = join(e.home, 'big.yaml');
    const line = '  - node: {name: R1, status: started}\n';
    writeFileSync(file, `checks:\n${line.repeat(Math.ceil((10 * 1024 * 1024) / line.length))}`);
    oneLine(await check(file), 2, `check file ${file} is 10.0 MB: a check file is at most 1.0 MB`);
  }, 90_000);

  it(`${MAX_CHECKS + 1} checks are a bad file naming the count; ${MAX_CHECKS} are fine`, async () => {
    const e = scope.fresh();
    const many = join(e.home, 'many.yaml');
    writeFileSync(many, `checks:\n${nodeChecks(MAX_CHECKS + 1)}`);
    oneLine(await check(many), 2, `${many}:2: checks: at most ${MAX_CHECKS} checks in a file (this one has ${MAX_CHECKS + 1})`);

    // the largest file allowed loads and the run reaches the lab (the fake project has no R0: exit 7)
    const most = join(e.home, 'most.yaml');
    writeFileSync(most, `checks:\n${nodeChecks(MAX_CHECKS)}`);
    const r = await runCli(['check', most, '--project', 'hostile', '-s', gns3.url, '--json'], e.env, { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout).checks).toHaveLength(MAX_CHECKS);
  }, 180_000);

  it('a YAML alias bomb is a bad file, not an internal error', async () => {
    const e = scope.fresh();
    const file = join(e.home, 'bomb.yaml');
    let text = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n';
    let prev = 'a';
    for (const k of 'bcdefghij') {
      text += `${k}: &${k} [${Array(10).fill(`*${prev}`).join(', ')}]\n`;
      prev = k;
    }
    writeFileSync(file, `${text}checks: *j\n`);
    oneLine(await check(file), 2, `${file}: YAML aliases expand too much (at most 100 expansions)`);
  });

  it('nesting deeper than the limit is refused by line before the parser recurses into it', async () => {
    const e = scope.fresh();
    const brackets = join(e.home, 'brackets.yaml');
    writeFileSync(brackets, `checks:\n  - node: {name: R1}\n  - command: ${'['.repeat(500_000)}${']'.repeat(500_000)}\n`);
    oneLine(await check(brackets), 2, `${brackets}:3: nested deeper than 64 levels`);
    const dashes = join(e.home, 'dashes.yaml');
    writeFileSync(dashes, `checks:\n${'- '.repeat(400_000)}x\n`);
    oneLine(await check(dashes), 2, `${dashes}:2: nested deeper than 64 levels`);
  });

  it('a FIFO is refused at once (it used to hang past Ctrl-C and SIGTERM); so is a directory', async () => {
    const e = scope.fresh();
    const fifo = join(e.home, 'checks.fifo');
    execFileSync('mkfifo', [fifo]);
    oneLine(await check(fifo), 2, `check file ${fifo} is a FIFO: a check file is a regular file`);
    const dir = join(e.home, 'checks.d');
    mkdirSync(dir);
    oneLine(await check(dir), 2, `check file ${dir} is a directory: a check file is a regular file`);
  });

  it('--junit to a folder or a missing folder is exit 2 before any check runs', async () => {
    const e = scope.fresh();
    const file = join(e.home, 'ok.yaml');
    writeFileSync(file, 'checks:\n  - node: {name: R1, status: started}\n');
    const dir = join(e.home, 'reports');
    mkdirSync(dir);
    oneLine(await check(file, ['--junit', dir]), 2, `--junit ${dir}: cannot write the report there (EISDIR)`);
    const missing = join(e.home, 'no-such-dir', 'r.xml');
    oneLine(await check(file, ['--junit', missing]), 2, `--junit ${missing}: cannot write the report there (ENOENT)`);
  });

  it('verify_lab reads a check file through the same guards: a FIFO or an oversized file is the tool error', async () => {
    const e = scope.fresh();
    const fifo = join(e.home, 'agent.fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(e.home, 'agent-big.yaml');
    writeFileSync(big, `checks:\n${nodeChecks(40_000)}`);
    const ctx = ctxFor(settingsWith(), { project_id: 'p', project_name: 'hostile', nodes: [], links: [] });
    const mb = (statSync(big).size / 1024 / 1024).toFixed(1);
    for (const [file, want] of [
      [fifo, `check file ${fifo} is a FIFO: a check file is a regular file`],
      [big, `check file ${big} is ${mb} MB: a check file is at most 1.0 MB`],
    ] as const) {
      const out = await verifyLab.run(verifyLab.schema.parse({ file }), ctx);
      expect(out.status).toBe('error');
      expect(out.display).toBe(want);
    }
  });
});

describe('the fault ledger holds across processes', () => {
  /** A link of its own for each case, so the cases do not see each other's filters. */
  let port = 0;
  const newLink = (filters: Record<string, unknown[]> = {}) => {
    const p = `e${++port}`;
    const l = gns3.addLink({ a: `R1:${p}`, b: `R2:${p}`, filters, project: 'hostile' });
    return { id: l.link_id, label: `R1:${p} <-> R2:${p}`, ref: `R1:${p} R2:${p}` };
  };
  const filtersOf = (id: string) => gns3.project('hostile').links.get(id)!.filters;
  const filterPuts = (id: string) => gns3.requests.filter((q) => q.method === 'PUT' && q.path.endsWith(`/links/${id}`)).length;
  const ledger = async (dataDir: string) => {
    const sessions = await SessionStore.open(dataDir);
    try {
      return new FaultStore(sessions.db).list();
    } finally {
      sessions.close();
    }
  };

  it('two `faults restore N` at once: one restores, the other exits 2 "restored already"; the filter is cleared once', async () => {
    const e = scope.fresh();
    const dataDir = join(e.home, 'ledger');
    const link = newLink({ packet_loss: [30] });
    const sessions = await SessionStore.open(dataDir);
    try {
      new FaultStore(sessions.db).record({
        session_id: 's-restore',
        project_id: projectId,
        project_name: 'hostile',
        target_kind: 'link',
        target: link.label,
        scenario: 'link_packet_loss_30',
        category: 'link',
        difficulty: 'medium',
        applied: { packet_loss: [30] },
        restore: { tool: 'manage_gns3_packet_filter', args: { link: link.id, action: 'clear', filters: { packet_loss: [] } } },
        repair_check: { link: { a: link.label.split(' <-> ')[0]!, b: link.label.split(' <-> ')[1]!, clean: true } },
      });
    } finally {
      sessions.close();
    }
    // the controller answers the filter change slowly, so both restores are in flight together
    gns3.inject({ method: 'PUT', path: new RegExp(`/links/${link.id}$`), delayMs: 1500, times: Infinity });
    try {
      const env = { ...e.env, GNS3_COPILOT_DATA_DIR: dataDir };
      const restore = () => runCli(['faults', 'restore', '1', '--yes', '-s', gns3.url], env, { timeoutMs: 60_000 });
      const both = await Promise.all([restore(), restore()]);
      const codes = both.map((r) => r.code).sort();
      expect(codes, both.map((r) => r.stderr).join('\n')).toEqual([0, 2]);
      const loser = both.find((r) => r.code === 2)!;
      expect(loser.stderr).toMatch(/^error: fault #1 (is being restored already by process \d+|was restored already \(.+\))\n$/);
      expect(filterPuts(link.id)).toBe(1);
      expect(filtersOf(link.id)).toEqual({});
      expect((await ledger(dataDir)).map((f) => f.state)).toEqual(['restored_unfixed']);
    } finally {
      gns3.clearInjections();
    }
  }, 120_000);

  describe('two `mcp --mode inject` servers, one client each', () => {
    const clients: Client[] = [];
    afterAll(async () => {
      for (const c of clients) await c.close().catch(() => undefined);
    });
    const e = scope.fresh();
    const dataDir = join(e.home, 'ledger');
    const server = async () => {
      const env = Object.fromEntries(
        Object.entries({ ...e.env, GNS3_COPILOT_DATA_DIR: dataDir }).filter((x): x is [string, string] => x[1] !== undefined),
      );
      const c = await stdioClient([BIN, 'mcp', '-s', gns3.url, '--project', 'hostile', '-m', 'inject', '--approve', 'config'], env);
      clients.push(c.client);
      return c.client;
    };
    const setFault = (client: Client, link: string, filters: Record<string, unknown>, scenario: string) =>
      client.callTool({ name: 'manage_gns3_packet_filter', arguments: { link, action: 'set', filters, fault: { scenario } } });

    it('apply one category on one link at once: one fault is applied, the other refused before anything is sent', async () => {
      const [a, b] = await Promise.all([server(), server()]);
      const link = newLink();
      // the controller takes its time with the filter change, so both calls are in flight together
      gns3.inject({ method: 'PUT', path: new RegExp(`/links/${link.id}$`), delayMs: 1000, times: Infinity });
      try {
        const results = await Promise.all([
          setFault(a, link.ref, { packet_loss: [30] }, 'link_packet_loss_30'),
          setFault(b, link.ref, { corrupt: [20] }, 'link_corruption'),
        ]);
        const won = results.filter((r) => !r.isError);
        const lost = results.filter((r) => r.isError);
        expect([won.length, lost.length], results.map(text).join('\n')).toEqual([1, 1]);
        expect(structured(lost[0]).error).toMatch(
          new RegExp(
            `^fault refused, nothing was applied: (another call \\(.+, process \\d+\\) is applying a link fault on ${link.label}|fault #\\d+ .* is still open)`,
          ),
        );
        expect(filterPuts(link.id)).toBe(1);
        expect(filtersOf(link.id)).toEqual(structured(won[0]).filters);
        const faults = (await ledger(dataDir)).filter((f) => f.target === link.label);
        expect(faults.map((f) => f.state)).toEqual(['open']);
      } finally {
        gns3.clearInjections();
      }
    }, 120_000);
  });
});
