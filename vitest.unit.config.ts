// `npm run test:unit`: the quick loop. The whole suite minus the files that
// need root or a lab peer (network namespaces, FRR, VPCS, sshd, tmux, tshark,
// a Secret Service keychain). `npm test` still runs everything.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Test files that need root or a system peer; a new one goes here. */
export const PEER_TESTS = [
  'test/lab/**', // network namespaces, FRR, VPCS, sshd
  'test/check/check-lab.test.ts', // lab (FRR, VPCS)
  'test/checkpoints/capture.test.ts', // FRR + VPCS lab
  'test/undo/rewind-lab.test.ts', // FRR + VPCS lab
  'test/devices/faults.test.ts', // FRR lab (the scripted-console faults are in console-faults.test.ts)
  'test/devices/frr-vpcs.test.ts',
  'test/devices/via-gns3.test.ts',
  'test/e2e/oneshot-ospf.test.ts',
  'test/e2e/tree-ospf.test.ts',
  'test/e2e/load.test.ts', // FRR lab
  'test/e2e/tui.test.ts', // tmux + lab
  'test/mcp/http.test.ts', // lab + keychain
  'test/mcp/server.test.ts', // lab
  'test/tools/allowance-per-device-lab.test.ts', // VPCS lab
  'test/tools/config-retry-lab.test.ts', // FRR lab
  'test/commands/auth.test.ts', // keychain
  'test/commands/config.test.ts', // root: a root-owned system config (locks)
  'test/cli/flags.test.ts', // root: a root-owned system config (mode lock)
  'test/security/locks.test.ts', // root: root-owned system configs
  'test/commands/auth-prompt.test.ts', // keychain + tmux
  'test/config/secrets.test.ts', // keychain
  'test/config/secrets-locked.test.ts', // keychain
  'test/security/sanitize.test.ts', // tmux (the one-shot and sessions sinks are in sanitize-cli.test.ts)
  'test/skills/content.test.ts', // tshark
  'test/skills/injection-frr.test.ts', // FRR in a namespace
  'test/scenarios/inject-lab.test.ts', // FRR lab
  'test/skills/packet-analysis.test.ts', // netns + tshark
  'test/skills/packet-analysis-gns3.test.ts', // netns + tshark
];

export default mergeConfig(base, defineConfig({ test: { exclude: ['**/node_modules/**', ...PEER_TESTS] } }));
