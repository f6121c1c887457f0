/**
 * The controller client the product uses: credentials from the keychain (or the
 * environment), and the session token cached in the keychain per server URL.
 */
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log.js';
import { openSecretStore, resolveGns3Credentials } from '../config/secrets.js';
import { createGns3Client, type Gns3Client } from './client.js';

export function createKeychainGns3Client(settings: Settings, log: Logger): Gns3Client {
  const secrets = openSecretStore();
  const account = `gns3_token:${settings.server}` as const;
  return createGns3Client({
    settings,
    log,
    credentials: () => resolveGns3Credentials(secrets),
    tokenStore: {
      get: () => secrets.get(account).catch(() => undefined),
      set: (token: string) => secrets.set(account, token).catch(() => undefined),
    },
  });
}
