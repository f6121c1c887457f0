import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { COMMANDS, completeCommand, findCommand, helpText, splitCommandLine, type SlashCommand } from '../../src/ui/slash/index.js';
import { parseModeArg } from '../../src/ui/slash/modeCommand.js';
import { parseLimitsArgs } from '../../src/ui/slash/limitsCommand.js';
import { mount } from './harness.js';
import { until } from './helpers/scripted-session.js';

const limits = (line: string) => parseLimitsArgs(line.split(/\s+/).filter(Boolean));

describe('slash commands', () => {
  it('parses modes, limits and arguments', () => {
    expect(parseModeArg('lab')).toEqual({ mode: 'lab_automation_assistant' });
    expect(parseModeArg('troubleshooting_injection')).toEqual({ mode: 'troubleshooting_injection' });
    expect(parseModeArg('bogus')).toEqual({ invalid: 'bogus' });
    expect(parseModeArg('')).toEqual({});
    expect(limits('iterations=5 tools=3')).toEqual({ kind: 'limits', iterations: 5, tools: 3, errors: [] });
    expect(limits('tools=off')).toEqual({ kind: 'limits', tools: null, errors: [] });
    expect(limits('cost=0.25')).toEqual({ kind: 'limits', cost: 0.25, errors: [] });
    expect(limits('cost=off')).toEqual({ kind: 'limits', cost: null, errors: [] });
    expect(limits('cost=0')).toMatchObject({ errors: [expect.stringMatching(/^cost must be .* or off$/)] });
    expect(limits('time=60 tool=device_skills:2 on-limit=continue parallel=3 retries=2 config=off diagnostic=4')).toEqual({
      kind: 'limits',
      time: 60,
      toolLimits: { device_skills: 2 },
      onLimit: 'continue',
      parallel: 3,
      retries: 2,
      configCalls: null,
      diagnosticCalls: 4,
      errors: [],
    });
    expect(limits('time=0 retries=6 tool=device_skills')).toMatchObject({
      errors: [
        'time must be an integer 1..86400 or off',
        'retries must be an integer 0..5',
        'tool must be tool=<name>:<n> (n 1..1000 or off)',
      ],
    });
    expect(limits('iterations=0')).toMatchObject({ errors: ['iterations must be an integer 1..100'] });
    expect(limits('tool=device_skills:0 on-limit=stop')).toMatchObject({
      errors: ['tool device_skills must be an integer 1..1000 or off', 'on-limit must be one of fail|warn|continue'],
    });
    expect(splitCommandLine('/delete abc')).toEqual({ name: 'delete', args: 'abc' });
    expect(splitCommandLine('  /rename OSPF lab day 1 ')).toEqual({ name: 'rename', args: 'OSPF lab day 1' });
    expect(findCommand(COMMANDS, 'exit')?.name).toBe('quit');
    expect(findCommand(COMMANDS, '?')?.name).toBe('help');
    expect(findCommand(COMMANDS, 'MODE')?.name).toBe('mode');
    expect(findCommand(COMMANDS, 'frobnicate')).toBeUndefined();
  });

  it('completes with Tab', () => {
    expect(completeCommand(COMMANDS, '/mo')).toEqual({ line: '/mode', candidates: ['mode', 'model'] });
    expect(completeCommand(COMMANDS, '/top').line).toBe('/topology ');
    expect(completeCommand(COMMANDS, '/mode l').line).toBe('/mode lab');
    expect(completeCommand(COMMANDS, '/p')).toEqual({ line: '/p', candidates: ['project', 'pin'] });
    expect(completeCommand(COMMANDS, '/c').candidates).toEqual(['checkpoint', 'context', 'clear']);
    expect(completeCommand(COMMANDS, '/checkpoint r').line).toBe('/checkpoint restore');
    expect(completeCommand(COMMANDS, '/model g').line).toBe('/model g');
    expect(completeCommand(COMMANDS, 'hello').line).toBe('hello');
  });

  it('lists every command file once, with unique names and aliases', async () => {
    const dir = join(import.meta.dirname, '../../src/ui/slash');
    const exported: SlashCommand[] = [];
    for (const f of readdirSync(dir).filter((f) => f.endsWith('Command.ts'))) {
      const mod = (await import(join(dir, f))) as Record<string, unknown>;
      for (const v of Object.values(mod)) if (v && typeof v === 'object' && 'run' in v && 'name' in v) exported.push(v as SlashCommand);
    }
    expect(exported.length).toBeGreaterThanOrEqual(15);
    for (const c of exported) expect(COMMANDS, `${c.name} is not listed in src/ui/slash/index.ts`).toContain(c);
    const names = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('the command list drives /help, Tab and dispatch', () => {
  afterEach(() => cleanup());

  const seen: string[] = [];
  const ping: SlashCommand = {
    name: 'ping',
    usage: '<node>',
    description: 'ping a node from the lab host',
    complete: (prefix) => ['R1', 'R2', 'SW1'].filter((n) => n.toLowerCase().startsWith(prefix)),
    run(args, ctx) {
      seen.push(args);
      ctx.notice(`pinging ${args} in ${ctx.state.projectName ?? '?'}`);
    },
  };
  const withPing = [...COMMANDS, ping];

  it('a new command object shows in the help text and completes, name and argument', () => {
    expect(helpText(COMMANDS)).not.toContain('/ping');
    expect(helpText(withPing)).toMatch(/\/ping <node>\s+ping a node from the lab host/);
    expect(completeCommand(withPing, '/pi')).toEqual({ line: '/pin', candidates: ['pin', 'ping'] });
    expect(completeCommand(withPing, '/pin').candidates).toEqual(['pin', 'ping']);
    expect(completeCommand(withPing, '/ping s').line).toBe('/ping SW1');
  });

  it('in the TUI: /help lists it, Tab completes it and Enter runs it', async () => {
    const t = mount({ commands: withPing });
    await t.ready();
    await t.type('/help');
    await t.waitFor('ping a node from the lab host');
    await t.type('/ping s', false);
    await t.press('\t');
    await t.waitFor('/ping SW1');
    await t.press('\r');
    await t.waitFor('pinging SW1 in ospf-lab');
    expect(seen).toEqual(['SW1']);
  });
});

describe('commands in the TUI', () => {
  afterEach(() => cleanup());

  it('/q (an alias) exits with 0 and closes the session', async () => {
    const t = mount();
    await t.ready();
    await t.type('/q');
    await until(() => t.exitCode() !== undefined);
    expect(t.exitCode()).toBe(0);
    expect(t.services.session.closed).toBe(true);
    expect(t.services.closed).toBe(true);
  });

  it('commands that replace the session wait for the running turn; others run during it', async () => {
    const t = mount({ scripts: [[{ type: 'content', delta: 'thinking' }, { type: 'hang' }]] });
    await t.ready();
    await t.type('hello');
    await t.waitFor('thinking');
    for (const c of ['/new', '/model other', '/project bgp-lab', '/sessions']) {
      await t.type(c);
      await t.waitFor(`${c.split(' ')[0]} waits for the running turn (Esc aborts it)`);
    }
    expect(t.services.sessionsMade).toHaveLength(1);
    await t.type('/mode lab');
    await t.waitFor('Mode → lab (lab_automation_assistant) from the next request');
    await t.type('/tree');
    await t.waitFor('No task tree yet: send a message first');
  });
});
