import { describe, expect, it } from 'vitest';
import { resolveInvocation, applyApprovalPolicy } from '../../src/commands/main.js';
import { settingsSchema } from '../../src/config/schema.js';
import { UsageError } from '../../src/errors.js';

const base = {
  stdinIsTTY: true,
  stdoutIsTTY: true,
  readStdin: async () => {
    throw new Error('stdin must not be read');
  },
};

describe('resolveInvocation', () => {
  it('is interactive with no prompt on a terminal', async () => {
    expect(await resolveInvocation(base)).toEqual({ output: 'text', continueLatest: false, interactive: true });
  });

  it('uses -p and never reads stdin when a prompt is given', async () => {
    const inv = await resolveInvocation({ ...base, stdinIsTTY: false, prompt: 'show ip route', json: true });
    expect(inv).toEqual({ prompt: 'show ip route', output: 'json', continueLatest: false, interactive: false });
  });

  it('reads the prompt from piped stdin', async () => {
    const inv = await resolveInvocation({
      ...base,
      stdinIsTTY: false,
      readStdin: async () => '  why is R2 down?\n',
      streamJson: true,
      resumeId: 'abc',
    });
    expect(inv).toEqual({ prompt: 'why is R2 down?', output: 'stream-json', continueLatest: false, resumeId: 'abc', interactive: false });
  });

  it('refuses to start without a prompt and without a terminal', async () => {
    await expect(resolveInvocation({ ...base, stdinIsTTY: false, readStdin: async () => '\n' })).rejects.toThrow(/no prompt/);
    await expect(resolveInvocation({ ...base, stdoutIsTTY: false })).rejects.toThrow(/no prompt/);
  });

  it('rejects one-shot output formats for the TUI and conflicting options', async () => {
    await expect(resolveInvocation({ ...base, json: true })).rejects.toThrow('--json is a one-shot output format');
    await expect(resolveInvocation({ ...base, prompt: 'x', continueLatest: true, resumeId: 'a' })).rejects.toBeInstanceOf(UsageError);
  });
});

describe('applyApprovalPolicy', () => {
  const oneShot = { prompt: 'x', output: 'text' as const, continueLatest: false, interactive: false };
  const ask = settingsSchema.parse({ approve: 'ask' });
  it('refuses --approve ask in one-shot', () => {
    expect(() => applyApprovalPolicy(ask, oneShot, 'flag --approve')).toThrow(/^--approve: "ask" needs the interactive TUI/);
    expect(() => applyApprovalPolicy(ask, oneShot, 'env GNS3_COPILOT_APPROVE')).toThrow(/^GNS3_COPILOT_APPROVE: "ask"/);
  });
  it('turns a configured ask into never for one-shot, keeps it for the TUI', () => {
    expect(applyApprovalPolicy(ask, oneShot, 'user /x/config.json').approve).toBe('never');
    expect(applyApprovalPolicy(ask, { ...oneShot, interactive: true }, 'flag --approve').approve).toBe('ask');
  });
});
