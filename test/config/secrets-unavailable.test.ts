import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSecretStore, resolveLlmApiKey, resolveGns3Credentials, KeychainUnavailableError } from '../../src/config/secrets.js';

// No Secret Service: the bus address points at a socket that does not exist.
beforeAll(() => {
  process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(mkdtempSync(join(tmpdir(), 'gns3c-nobus-')), 'nothing')}`;
});

describe('keychain store without a Secret Service', () => {
  it('reports unavailable quickly with a readable reason', async () => {
    const t0 = Date.now();
    const a = await openSecretStore({ env: {} }).available();
    expect(a.ok).toBe(false);
    expect(a.reason).toBe('no Secret Service on the D-Bus session bus');
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it('reads fall back to env, writes and deletes fail with the env hint', async () => {
    const store = openSecretStore({ env: {} });
    expect(await store.get('llm_api_key')).toBeUndefined();
    expect(await resolveLlmApiKey(store, { OPENAI_API_KEY: 'sk-openai' })).toBe('sk-openai');
    expect(await resolveLlmApiKey(store, { OPENAI_API_KEY: 'sk-openai', GNS3_COPILOT_API_KEY: 'sk-own' })).toBe('sk-own');
    expect(await resolveLlmApiKey(store, {})).toBeUndefined();
    expect(await resolveGns3Credentials(store, { GNS3_USER: 'u', GNS3_PASSWORD: 'p' })).toEqual({ username: 'u', password: 'p' });
    expect(await resolveGns3Credentials(store, { GNS3_USER: 'u' })).toBeUndefined();
    const err = await store.set('llm_api_key', 'sk-never-written').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainUnavailableError);
    expect((err as Error).message).toMatch(/nothing was stored.*GNS3_COPILOT_API_KEY/);
    await expect(store.delete('llm_api_key')).rejects.toBeInstanceOf(KeychainUnavailableError);
  });
});
