// setupFiles of the "shared" project (vitest.shared.ts): the files there share a process, so each
// starts from the same environment whatever ran before it in that worker — the one
// test/agent/helpers.ts sets when it is imported (no keychain, fast LLM retries, no agent-mode
// override from the caller's shell).
process.env.GNS3_COPILOT_KEYCHAIN = 'off';
process.env.GNS3_COPILOT_LLM_RETRY_MS = '20';
delete process.env.AGENT_MODE;
delete process.env.AGENT_RECURSION_ENABLED;
