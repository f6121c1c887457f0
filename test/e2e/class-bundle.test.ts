/**
 * The class commands on the one-file bundle (src/boot/route.ts): `check`, `checkpoint` and
 * `faults` run from a code cache of their own kind and answer exactly as the code-split build
 * does (GNS3_COPILOT_CODE_CACHE=off); a `check` that ends with failing checks (exit 7) ran to its
 * end and writes its cache too. A private copy of the built package, so that the code cache
 * directory next to its bundle is this test's alone.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { ROOT, cliEnv, runCli, type CliResult } from './oneshot-cli.js';

const REPORT = { GNS3_COPILOT_CODE_CACHE: 'report' };
const OFF = { GNS3_COPILOT_CODE_CACHE: 'off' };

const env = cliEnv();
const pkg = mkdtempSync(join(tmpdir(), 'gcl-class-bundle-'));
const bin = join(pkg, 'bin', 'gns3-copilot.js');
let gns3: FakeGns3;

beforeAll(async () => {
  cpSync(join(ROOT, 'bin'), join(pkg, 'bin'), { recursive: true });
  mkdirSync(join(pkg, 'dist'));
  // the built files only: not the code caches (nor a build's staging directory) of the checkout
  for (const f of readdirSync(join(ROOT, 'dist')).filter((f) => !f.startsWith('.')))
    cpSync(join(ROOT, 'dist', f), join(pkg, 'dist', f), { recursive: true });
  for (const f of ['node_modules', 'package.json', 'skills', 'prompts']) symlinkSync(join(ROOT, f), join(pkg, f));
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'lab' });
  // node checks read the controller only: nothing listens on this console
  gns3.addNode({ ...telnetNode('R1', 9), project: 'lab' });
  writeFileSync(join(env.home, 'ok.yaml'), 'checks:\n  - node: {name: R1, status: started}\n');
  writeFileSync(join(env.home, 'bad.yaml'), 'checks:\n  - node: {name: R1, status: stopped}\n');
});

afterAll(async () => {
  await gns3?.close();
  rmSync(pkg, { recursive: true, force: true });
  env.cleanup();
});

const run = (args: string[], extra: NodeJS.ProcessEnv): Promise<CliResult> =>
  runCli([...args, '--server', gns3.url, '--project', 'lab'], { ...env.env, ...extra }, { bin });

/** The JSON a command printed, without what differs from one run to the next (timings). */
function shape(stdout: string): unknown {
  return JSON.parse(stdout, (key, value: unknown) => (/(^|_)(ms|at)$|duration/.test(key) ? undefined : value));
}

describe('class commands on the bundle', () => {
  it('check runs from its own cache, written by a run that ended with failing checks, and answers as the modules do', async () => {
    const first = await run(['check', join(env.home, 'bad.yaml'), '--json'], REPORT);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/^code cache: cold \(.*-check\.v8\)$/m);
    const second = await run(['check', join(env.home, 'bad.yaml'), '--json'], REPORT);
    expect(second.code).toBe(7);
    expect(second.stderr).toMatch(/^code cache: used \(.*-check\.v8\)$/m);
    const modules = await run(['check', join(env.home, 'bad.yaml'), '--json'], OFF);
    expect(modules.code).toBe(7);
    expect(modules.stderr).not.toContain('code cache');
    expect(shape(second.stdout)).toEqual(shape(modules.stdout));
    expect(shape(first.stdout)).toEqual(shape(modules.stdout));

    const ok = await run(['check', join(env.home, 'ok.yaml')], REPORT);
    const okModules = await run(['check', join(env.home, 'ok.yaml')], OFF);
    expect([ok.code, okModules.code]).toEqual([0, 0]);
    expect(ok.stderr).toMatch(/^code cache: used \(.*-check\.v8\)$/m);
    const table = (s: string) => s.replace(/\d+(\.\d+)? ?m?s\b/g, 'T');
    expect(table(ok.stdout)).toEqual(table(okModules.stdout));
  });

  it('checkpoint and faults take the bundle too, each with its cache, and print what the modules print', async () => {
    for (const args of [
      ['checkpoint', 'list', '--json'],
      ['faults', 'list', '--json'],
    ]) {
      const bundled = await run(args, REPORT);
      const modules = await run(args, OFF);
      expect([bundled.code, modules.code], `${bundled.stderr}\n${modules.stderr}`).toEqual([0, 0]);
      expect(bundled.stderr).toMatch(new RegExp(`^code cache: (cold|used) \\(.*-${args[0]}\\.v8\\)$`, 'm'));
      expect(shape(bundled.stdout)).toEqual(shape(modules.stdout));
    }
    // a usage error is the same one line and exit code on both builds
    const [b, m] = [await run(['checkpoint', 'restore'], {}), await run(['checkpoint', 'restore'], OFF)];
    expect(b.code).toBe(2);
    expect([b.code, b.stderr, b.stdout]).toEqual([m.code, m.stderr, m.stdout]);
  });
});
