/**
 * The session's check file in a change's verification: which checks count as regressions
 * (passed before, not passing now; a check failing already is not one), the place a check is
 * reported at, and the check file read at startup — a file that cannot be read or parsed is one
 * line and exit 2 before any request reaches the model.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkRegressions, loadSessionChecks } from '../../src/check/verify-checks.js';
import { summarize, type CheckResult } from '../../src/check/run.js';
import { parseCheckText } from '../../src/check/load.js';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';

const { checks } = parseCheckText(
  `checks:
  - name: R2 sees R1
    ospf_neighbor: {device: R2, neighbor: 10.255.255.1}
  - route: {device: R1, prefix: 10.255.255.3/32}
  - link: {a: "R1:eth0", b: "R2:eth0"}
  - node: {name: R3}
`,
  'inline',
);

const result = (name: string, status: CheckResult['status'], evidence: string): CheckResult => ({
  name,
  kind: 'ospf_neighbor',
  status,
  evidence,
  points: 1,
  duration_ms: 1,
});
const report = (statuses: CheckResult['status'][]) =>
  summarize(
    'p',
    statuses.map((s, i) => result(`c${i}`, s, `evidence ${i} ${s}`)),
  );

describe('checkRegressions', () => {
  it('a check that passed before and fails or errs now is a regression of kind check; one failing before is not', () => {
    const before = report(['pass', 'fail', 'pass', 'pass']);
    const after = report(['fail', 'fail', 'error', 'pass']);
    expect(checkRegressions(checks, before, after)).toEqual([
      { device: 'R2', kind: 'check', what: 'c0', before: 'pass: evidence 0 pass', after: 'fail: evidence 0 fail' },
      { device: 'R1', kind: 'check', what: 'c2', before: 'pass: evidence 2 pass', after: 'error: evidence 2 error' },
    ]);
  });

  it('nothing regressed when every passing check still passes (a check that now passes is no regression either)', () => {
    expect(checkRegressions(checks, report(['pass', 'fail', 'pass', 'pass']), report(['pass', 'pass', 'pass', 'pass']))).toEqual([]);
  });

  it('a node check is reported at its node', () => {
    const r = checkRegressions(checks, report(['fail', 'fail', 'fail', 'pass']), report(['fail', 'fail', 'fail', 'fail']));
    expect(r.map((x) => [x.device, x.what])).toEqual([['R3', 'c3']]);
  });
});

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-verify-checks-000' });

describe('the check file at startup', () => {
  it('no setting: nothing is read', async () => {
    expect(await loadSessionChecks({})).toBeUndefined();
  });

  it('an unreadable or invalid --checks file (or checks setting) is one line and exit 2; the model is never asked', async () => {
    const e = scope.fresh();
    const bad = join(e.home, 'bad.yaml');
    writeFileSync(bad, 'checks:\n  - interface: {device: R1, name: eth0, state: sideways}\n');
    const llm = await scope.startLlm([{ text: 'never' }]);
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['--checks', join(e.home, 'missing.yaml')], {}, `error: cannot read check file ${join(e.home, 'missing.yaml')}: ENOENT`],
      [['--checks', bad], {}, `error: ${bad}:2: checks[0].interface.state:`],
      [[], { GNS3_COPILOT_CHECKS: bad }, `error: ${bad}:2: checks[0].interface.state:`],
    ];
    for (const [flags, extra, first] of cases) {
      const r = await runCli(['-p', 'hi', ...flags, ...llmFlags(llm.url)], { ...e.env, ...extra });
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.startsWith(first), lines[0]).toBe(true);
    }
    expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(0);
  });

  it('mcp reads it before serving: a bad checks setting is one line and exit 2', async () => {
    const e = scope.fresh();
    const r = await runCli(['mcp', '-m', 'lab'], { ...e.env, GNS3_COPILOT_CHECKS: join(e.home, 'missing.yaml') });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([`error: cannot read check file ${join(e.home, 'missing.yaml')}: ENOENT`]);
  });

  it('a classroom lock of checks holds against --checks (exit 2 naming the lock)', async () => {
    const e = scope.fresh();
    const good = join(e.home, 'class.yaml');
    writeFileSync(good, 'checks:\n  - node: {name: R1}\n');
    const sys = join(e.home, 'system.json');
    writeFileSync(sys, JSON.stringify({ checks: good, locked: ['checks'] }));
    const llm = await scope.startLlm([{ text: 'never' }]);
    const r = await runCli(['-p', 'hi', '--checks', join(e.home, 'mine.yaml'), ...llmFlags(llm.url)], {
      ...e.env,
      GNS3_COPILOT_SYSTEM_CONFIG: sys,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: --checks: "checks" is locked to ".*class\.yaml" by the system config .*\(classroom lock\)/);
  });
});

describe('apply_config_template verify "checks"', () => {
  it('without a check file the call is refused before anything is rendered or sent', async () => {
    const { applyConfigTemplate } = await import('../../src/tools/changeset/apply-template.js');
    const { settingsSchema } = await import('../../src/config/schema.js');
    const { nullLogger } = await import('../../src/log.js');
    let opened = 0;
    const ctx = {
      settings: settingsSchema.parse({}),
      signal: new AbortController().signal,
      log: nullLogger,
      project: () => {
        opened++;
        return Promise.reject(new Error('no project in this test'));
      },
      services: new Map<string, unknown>(),
    };
    const r = await applyConfigTemplate.prepare!({ template: 'interface lo', devices: ['R1'], verify: 'checks' }, ctx);
    expect(r).toMatchObject({ error: { status: 'error' } });
    expect(JSON.stringify(r)).toMatch(/verify \\"checks\\" needs a check file \(--checks FILE or the checks setting\): nothing was sent/);
    expect(opened).toBe(0);
  });
});
