/**
 * The pure parts of eval: how an answer is scored (whole-word device names, keyword or
 * category), the per-model summary (rates, medians, a spend that is unknown when one run's
 * price is), the JUnit XML (one testcase per run, failures naming the stages missed, text
 * escaped) and the flags' own checks (usage errors before any controller is asked).
 */
import { describe, expect, it } from 'vitest';
import { names, scoreAnswer } from '../../src/eval/score.js';
import { median, summarize } from '../../src/eval/summary.js';
import { junitXml } from '../../src/eval/report.js';
import { checkOptions, type EvalCommandOptions } from '../../src/commands/eval.js';
import type { RunResult } from '../../src/eval/types.js';

const fault = { devices: ['R1'], category: 'ospf', keywords: ['hello', 'hello-interval', 'timer'] };

describe('scoreAnswer', () => {
  it('detected: the device named as a whole word; localized: and a keyword or the category', () => {
    expect(scoreAnswer('R1 has its hello-interval set to 25 on eth0.', fault)).toEqual({ detected: true, localized: true });
    expect(scoreAnswer('The OSPF process on r1 is misconfigured.', fault)).toEqual({ detected: true, localized: true });
    expect(scoreAnswer('Something is wrong on R1.', fault)).toEqual({ detected: true, localized: false });
    expect(scoreAnswer('R10 has a hello timer mismatch.', fault)).toEqual({ detected: false, localized: false });
    expect(scoreAnswer('No idea, sorry.', fault)).toEqual({ detected: false, localized: false });
  });

  it('a link fault is detected by naming either end', () => {
    const link = { devices: ['R1', 'R2'], category: 'link', keywords: ['loss'] };
    expect(scoreAnswer('Packet loss between R2 and its neighbour', link)).toEqual({ detected: true, localized: true });
    expect(names('PC1-R2 link', 'R2')).toBe(true);
    expect(names('R22', 'R2')).toBe(false);
  });
});

const run = (over: Partial<RunResult>): RunResult => ({
  scenario: 's',
  category: 'ospf',
  model: 'm',
  run: 1,
  target: 'R1',
  fault_id: 1,
  detected: true,
  localized: true,
  repaired: true,
  regressions: 0,
  tool_calls: 1,
  llm_calls: 2,
  input_tokens: 90,
  output_tokens: 10,
  tokens: 100,
  cost_usd: 0.01,
  wall_s: 2,
  stages: { inject_s: 0.5, agent_s: 1, check_s: 0.3, restore_s: 0.2 },
  stopped_reason: 'done',
  answer: 'R1: hello',
  ...over,
});

describe('summarize', () => {
  it('rates in percent, the medians, regressions added up; repaired over the runs scored on it', () => {
    const runs = [
      run({}),
      run({ detected: false, localized: false, repaired: false, regressions: null, tokens: 300, wall_s: 4 }),
      run({ repaired: null, regressions: 2, tokens: 200, wall_s: 3, cost_usd: 0.02 }),
    ];
    expect(summarize(['m'], runs)).toEqual([
      {
        model: 'm',
        runs: 3,
        detected: 66.7,
        localized: 66.7,
        repaired: 50,
        regressions: 2,
        tokens_median: 200,
        cost_usd: 0.04,
        wall_s_median: 3,
      },
    ]);
  });

  it('a spend is unknown when one run has no price; nothing scored on repair is null', () => {
    const [s] = summarize(['m'], [run({ cost_usd: null, repaired: null })]);
    expect(s).toMatchObject({ cost_usd: null, repaired: null });
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('junitXml', () => {
  it('one testcase per run: a pass, a failure naming what was missed, an error; text escaped', () => {
    const xml = junitXml([
      run({ model: 'a<b' }),
      run({ detected: false, localized: false, repaired: false, answer: 'no "idea" & <none>\u0001' }),
      run({ error: 'provider: 500' }),
    ]);
    expect(xml).toContain('<testsuite name="gns3-copilot eval" tests="3" failures="1" errors="1" time="6.000">');
    expect(xml).toContain('<testcase classname="eval.a&lt;b" name="s on R1 run 1" time="2.000"/>');
    expect(xml).toContain('<failure message="not detected, not localized, not repaired">no &quot;idea&quot; &amp; &lt;none&gt;</failure>');
    expect(xml).toContain('<error message="provider: 500"/>');
  });
});

describe('checkOptions', () => {
  const base: EvalCommandOptions = { models: [], json: false, yes: false, estimate: false, resume: false };
  it('usage errors for flags that cannot go together or values out of range', () => {
    expect(checkOptions(base)).toEqual({ runs: 1, mode: 'lab' });
    expect(checkOptions({ ...base, runs: '3', mode: 'teaching' })).toEqual({ runs: 3, mode: 'teaching' });
    expect(() => checkOptions({ ...base, json: true, junit: 'x.xml' })).toThrow('--json and --junit: give one of them');
    expect(() => checkOptions({ ...base, scenarios: ['a'], category: 'ospf' })).toThrow(
      '--scenarios and --category: choose the scenarios one way',
    );
    expect(() => checkOptions({ ...base, runs: '0' })).toThrow('--runs: must be an integer 1..100 (got "0")');
    expect(() => checkOptions({ ...base, mode: 'inject' })).toThrow('--mode: eval runs in lab');
    expect(() => checkOptions({ ...base, resume: true, from: 'cp' })).toThrow('--resume restores the lab');
  });
});
