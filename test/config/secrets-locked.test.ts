import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';
import { openSecretStore, KeychainUnavailableError } from '../../src/config/secrets.js';

// A running Secret Service whose login keyring was never unlocked.
let ss: SecretService;
beforeAll(async () => {
  ss = await startSecretService({ unlock: false });
  Object.assign(process.env, ss.env);
});
afterAll(async () => {
  await ss?.stop();
});

describe('keychain store with a locked Secret Service', () => {
  it('refuses to store, fast, and says the keyring is locked', async () => {
    const t0 = Date.now();
    const err = await openSecretStore({ env: {} })
      .set('llm_api_key', 'sk-x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainUnavailableError);
    expect((err as Error).message).toMatch(/no unlocked keyring.*nothing was stored/);
    expect(Date.now() - t0).toBeLessThan(3_500);
  });
});
