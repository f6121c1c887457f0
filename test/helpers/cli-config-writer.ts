/**
 * A separate process hammering the user config: `node --import tsx
 * cli-config-writer.ts <file> <prefix> <count>` adds keys <prefix>0..<count-1>
 * one update at a time through the optimistic-locking writer.
 */
import { updateUserConfig } from '../../src/config/store.js';

const [file, prefix, count] = process.argv.slice(2) as [string, string, string];
let retries = 0;
for (let i = 0; i < Number(count); i++) {
  const r = await updateUserConfig((c) => ({ ...c, [`${prefix}${i}`]: i }), file);
  retries += r.retries;
}
process.stdout.write(JSON.stringify({ retries }));
