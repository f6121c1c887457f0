/**
 * The tree budget's env aliases (src/config/agent-budget-env.ts) as tables: each AGENT_*
 * variable sets one field of `agent_budget`, blank is unset, and every bad value is refused
 * (exit 2, one line naming the variable). Through loadSettings: env over config files field by
 * field, and a classroom lock on agent_budget holds against them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentBudgetFromEnv } from '../../src/config/agent-budget-env.js';
import { loadSettings } from '../../src/config/load.js';
import { ExitCode, UsageError } from '../../src/errors.js';

/** agentBudgetFromEnv's error, or a failure when it returned. */
function refusal(env: NodeJS.ProcessEnv): UsageError {
  try {
    agentBudgetFromEnv(env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('agentBudgetFromEnv', () => {
  it('nothing when no variable is set', () => {
    expect(agentBudgetFromEnv({})).toBeUndefined();
  });

  const numeric: [string, string, string, number][] = [
    ['AGENT_MAX_TOTAL_AGENTS', 'max_total_agents', '7', 7],
    ['AGENT_MAX_LLM_CALLS', 'max_llm_calls', '40', 40],
    ['AGENT_MAX_TOTAL_TOKENS', 'max_total_tokens', ' 2000 ', 2000],
    ['AGENT_MAX_TOTAL_COST_USD', 'max_total_cost_usd', '2.5', 2.5],
    ['AGENT_MAX_DURATION_SECONDS', 'max_duration_seconds', '90', 90],
    ['AGENT_RESERVED_FINAL_CALLS', 'reserved_final_calls', '3', 3],
  ];
  for (const [env, key, raw, value] of numeric)
    it(`${env}=${JSON.stringify(raw)} sets ${key}`, () => {
      expect(agentBudgetFromEnv({ [env]: raw })).toStrictEqual({ fields: { [key]: value }, names: [env] });
    });

  it('an empty or blank variable is not set', () => {
    const blank = Object.fromEntries(numeric.map(([env], i) => [env, i % 2 ? '' : '  ']));
    expect(agentBudgetFromEnv({ ...blank, AGENT_RESOURCE_BUDGET_ENABLED: ' ' })).toBeUndefined();
    expect(agentBudgetFromEnv({ ...blank, AGENT_MAX_LLM_CALLS: '9' })).toStrictEqual({
      fields: { max_llm_calls: 9 },
      names: ['AGENT_MAX_LLM_CALLS'],
    });
  });

  const switches: [string, boolean][] = [
    ['1', true],
    ['true', true],
    ['YES', true],
    [' on ', true],
    ['0', false],
    ['False', false],
    ['no', false],
    ['OFF', false],
  ];
  for (const [raw, enabled] of switches)
    it(`AGENT_RESOURCE_BUDGET_ENABLED=${JSON.stringify(raw)} is ${enabled}`, () => {
      expect(agentBudgetFromEnv({ AGENT_RESOURCE_BUDGET_ENABLED: raw })!.fields.enabled).toBe(enabled);
    });

  for (const raw of ['maybe', 'button', 'onward', 'takeoff', 'nope', '2'])
    it(`AGENT_RESOURCE_BUDGET_ENABLED=${raw} is refused`, () => {
      const e = refusal({ AGENT_RESOURCE_BUDGET_ENABLED: raw });
      expect(e.message).toBe(`AGENT_RESOURCE_BUDGET_ENABLED must be true or false (got "${raw}")`);
      expect(e.exitCode).toBe(ExitCode.Usage);
    });

  const refused: [string, string, string][] = [
    ['AGENT_MAX_TOTAL_AGENTS', '2.5', 'integer'],
    ['AGENT_MAX_LLM_CALLS', '1.5', 'integer'],
    ['AGENT_MAX_TOTAL_TOKENS', '100.1', 'integer'],
    ['AGENT_MAX_DURATION_SECONDS', '0.5', 'integer'],
    ['AGENT_RESERVED_FINAL_CALLS', '0.5', 'integer'],
    ['AGENT_MAX_TOTAL_AGENTS', '0', 'integer'],
    ['AGENT_MAX_LLM_CALLS', '-3', 'integer'],
    ['AGENT_MAX_TOTAL_TOKENS', 'many', 'integer'],
    ['AGENT_MAX_DURATION_SECONDS', 'Infinity', 'integer'],
    ['AGENT_MAX_TOTAL_COST_USD', '0', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', ' -0.01 ', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', '1e400', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', '$5', 'number'],
  ];
  for (const [env, raw, kind] of refused)
    it(`${env}=${JSON.stringify(raw)} is refused (a positive ${kind})`, () => {
      const e = refusal({ [env]: raw });
      expect(e.message).toBe(`${env} must be a positive ${kind} (got "${raw}")`);
      expect(e.exitCode).toBe(ExitCode.Usage);
    });
});

describe('agent_budget through the settings', () => {
  let sys: string;
  let user: string;
  let cwd: string;
  beforeEach(() => {
    const root = mkdtempSync(join(tmpdir(), 'gc-budget-env-'));
    sys = join(root, 'etc.json');
    user = join(root, 'user.json');
    cwd = root;
  });
  const load = (env: NodeJS.ProcessEnv = {}) => loadSettings({ env, cwd, systemConfigFile: sys, userConfigFile: user });
  const write = (f: string, v: unknown) => writeFileSync(f, JSON.stringify(v));

  it('the variables set their fields over the config files, which keep the others (env > user > system)', async () => {
    write(sys, { agent_budget: { max_total_agents: 9, max_total_tokens: 5000 } });
    write(user, { agent_budget: { max_llm_calls: 40, max_total_agents: 8 } });
    const { settings, origins } = await load({ AGENT_MAX_TOTAL_AGENTS: '7', AGENT_RESOURCE_BUDGET_ENABLED: 'off' });
    expect(settings.agent_budget).toStrictEqual({ max_total_tokens: 5000, max_total_agents: 7, max_llm_calls: 40, enabled: false });
    expect(origins.agent_budget).toBe('env AGENT_RESOURCE_BUDGET_ENABLED, AGENT_MAX_TOTAL_AGENTS');
  });

  it('over GNS3_COPILOT_AGENT_BUDGET, the generic name of the whole object', async () => {
    const { settings } = await load({
      GNS3_COPILOT_AGENT_BUDGET: '{"max_llm_calls": 30, "max_total_agents": 4}',
      AGENT_MAX_LLM_CALLS: '20',
    });
    expect(settings.agent_budget).toStrictEqual({ max_llm_calls: 20, max_total_agents: 4 });
  });

  it('a bad variable is one line naming it, whatever the agent mode', async () => {
    await expect(load({ AGENT_MAX_LLM_CALLS: 'lots' })).rejects.toThrow(/^AGENT_MAX_LLM_CALLS must be a positive integer \(got "lots"\)$/);
    write(user, { agent_budget: { max_llm_calls: 0 } });
    await expect(load()).rejects.toThrow(/^agent_budget in .*user\.json: must be a JSON object with any of enabled/);
  });

  it('a classroom lock on agent_budget holds against the variables; repeating a locked field is accepted', async () => {
    write(sys, { agent_budget: { max_llm_calls: 40, max_total_agents: 5 }, locked: ['agent_budget'] });
    await expect(load({ AGENT_MAX_LLM_CALLS: '400' })).rejects.toThrow(
      `AGENT_MAX_LLM_CALLS: "agent_budget" is locked to {"max_total_agents":5,"max_llm_calls":40} by the system config ${sys} (classroom lock)`,
    );
    await expect(load({ AGENT_MAX_DURATION_SECONDS: '60' })).rejects.toThrow(/^AGENT_MAX_DURATION_SECONDS: "agent_budget" is locked/);
    write(user, { agent_budget: { max_total_agents: 6 } });
    await expect(load()).rejects.toThrow(/^agent_budget in .*user\.json: "agent_budget" is locked/);
    write(user, {});
    const { settings, origins } = await load({ AGENT_MAX_LLM_CALLS: '40' });
    expect(settings.agent_budget).toStrictEqual({ max_llm_calls: 40, max_total_agents: 5 });
    expect(origins.agent_budget).toBe(`system ${sys} (locked)`);
  });
});
