/**
 * `doctor`'s line on where the copilot's topology comes from for the selected project:
 * the controller's notification stream (a live cache, drift as it happens) or a REST read
 * before every LLM call (drift from comparing reads). The project's auto_close decides it
 * with the `notifications` setting (src/gns3/live-policy.ts): the controller closes an
 * auto_close project — stopping its nodes — when its last listener leaves. The check only
 * reads: it neither opens the project nor listens to it.
 */
import type { Settings } from '../config/schema.js';
import type { CheckResult } from '../core/check-result.js';
import { errorMessage } from '../errors.js';
import { createLogger } from '../log.js';

export async function checkTopologySource(settings: Settings): Promise<CheckResult | undefined> {
  if (!settings.project) return undefined;
  const name = 'topology';
  const [{ createKeychainGns3Client }, { streamDecision }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../gns3/live-policy.js'),
  ]);
  const client = createKeychainGns3Client(settings, createLogger(settings.log_level));
  try {
    const raw = await client.findProject(settings.project);
    const d = streamDecision(settings.notifications, raw.auto_close);
    const source = d.subscribe ? 'notification stream' : 'topology reads';
    // listening where the controller closes the project when the copilot leaves is a consequence to see
    const warn = d.subscribe && raw.auto_close !== false;
    return {
      name,
      ok: !warn,
      required: false,
      detail: `project ${raw.name}: ${source} (notifications ${settings.notifications}, auto_close ${raw.auto_close === false ? 'off' : 'on'}) — ${d.reason}`,
    };
  } catch (err) {
    return { name, ok: false, required: false, detail: `project ${settings.project}: ${errorMessage(err)}` };
  } finally {
    await client.close();
  }
}
