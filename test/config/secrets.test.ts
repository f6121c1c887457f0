import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';
import {
  openSecretStore,
  resolveLlmApiKey,
  resolveGns3Credentials,
  describeSecretSource,
  KeychainUnavailableError,
} from '../../src/config/secrets.js';

// The native binding reads DBUS_SESSION_BUS_ADDRESS when it connects, so this
// file points the process at a private bus before the first keychain call.
let ss: SecretService;
beforeAll(async () => {
  ss = await startSecretService();
  Object.assign(process.env, ss.env);
});
afterAll(async () => {
  await ss?.stop();
});

describe('keychain store (real gnome-keyring on a private bus)', () => {
  it('round-trips set/get/delete under service gns3-copilot', async () => {
    const store = openSecretStore({ env: {} });
    expect(await store.available()).toEqual({ ok: true });
    expect(await store.get('llm_api_key')).toBeUndefined();
    await store.set('llm_api_key', 'sk-test-roundtrip-1234');
    expect(await store.get('llm_api_key')).toBe('sk-test-roundtrip-1234');
    // a second store (new entries) sees the same item: it is in the keyring, not in memory
    expect(await openSecretStore({ env: {} }).get('llm_api_key')).toBe('sk-test-roundtrip-1234');
    expect(await store.delete('llm_api_key')).toBe(true);
    expect(await store.delete('llm_api_key')).toBe(false);
    expect(await store.get('llm_api_key')).toBeUndefined();
  });

  it('stores per-server tokens as separate accounts', async () => {
    const store = openSecretStore({ env: {} });
    await store.set('gns3_token:http://127.0.0.1:3080', 'tok-a');
    await store.set('gns3_token:http://127.0.0.1:3081', 'tok-b');
    expect(await store.get('gns3_token:http://127.0.0.1:3080')).toBe('tok-a');
    expect(await store.get('gns3_token:http://127.0.0.1:3081')).toBe('tok-b');
    await store.delete('gns3_token:http://127.0.0.1:3080');
    await store.delete('gns3_token:http://127.0.0.1:3081');
  });

  it('prefers the keychain over env for the LLM key and GNS3 credentials', async () => {
    const store = openSecretStore({ env: {} });
    const env = { GNS3_COPILOT_API_KEY: 'from-env', GNS3_USER: 'envuser', GNS3_PASSWORD: 'envpass' };
    expect(await resolveLlmApiKey(store, env)).toBe('from-env');
    await store.set('llm_api_key', 'from-keychain');
    await store.set('gns3_username', 'alice');
    await store.set('gns3_password', 'wonderland');
    expect(await resolveLlmApiKey(store, env)).toBe('from-keychain');
    expect(await resolveGns3Credentials(store, env)).toEqual({ username: 'alice', password: 'wonderland' });
    expect(await describeSecretSource(store, 'llm_api_key', env)).toEqual({ stored: true, source: 'keychain' });
    for (const a of ['llm_api_key', 'gns3_username', 'gns3_password'] as const) await store.delete(a);
    expect(await resolveGns3Credentials(store, env)).toEqual({ username: 'envuser', password: 'envpass' });
    expect(await describeSecretSource(store, 'llm_api_key', env)).toEqual({ stored: true, source: 'env GNS3_COPILOT_API_KEY' });
  });

  it('GNS3_COPILOT_KEYCHAIN=off disables the keychain even when one is running', async () => {
    const store = openSecretStore({ env: { GNS3_COPILOT_KEYCHAIN: 'off' } });
    const a = await store.available();
    expect(a.ok).toBe(false);
    expect(a.reason).toMatch(/GNS3_COPILOT_KEYCHAIN/);
    await expect(store.set('llm_api_key', 'x')).rejects.toBeInstanceOf(KeychainUnavailableError);
    expect(await resolveLlmApiKey(store, { OPENAI_API_KEY: 'sk-env' })).toBe('sk-env');
  });
});
