/**
 * The one schema for every persistent setting. Keys are snake_case because they
 * are what users write in config files and `config set KEY VALUE`. Layering and
 * locks live in ./load.ts; this file only says what a valid value is.
 */
import { z } from 'zod';
import { COPILOT_MODES, parseMode } from '../core/modes.js';
import { AGENT_MODES, parseAgentMode } from './agent-mode.js';
import { mcpServerSchema } from './mcp-servers.js';

const httpUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL')
  .refine(
    (v) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(v),
    'must not contain user:password@ (credentials belong in the keychain: gns3-copilot auth login)',
  );

const mode = z
  .string()
  .transform((v, ctx) => {
    const m = parseMode(v);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `must be one of teaching|lab|inject` });
      return z.NEVER;
    }
    return m;
  })
  .pipe(z.enum(COPILOT_MODES));

/** `flat` | `recursive`; `legacy`, the earlier name of `flat`, is read as `flat`. */
const agentMode = z
  .string()
  .transform((v, ctx) => {
    const m = parseAgentMode(v);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${AGENT_MODES.join('|')}` });
      return z.NEVER;
    }
    return m;
  })
  .pipe(z.enum(AGENT_MODES));

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const PROVIDERS = ['openai', 'deepseek', 'openrouter', 'ollama', 'lmstudio', 'vllm', 'custom'] as const;

/** Per-device overrides when the topology does not say enough (platform, SSH). */
export const deviceOverrideSchema = z.object({
  platform: z.string().optional(),
  transport: z.enum(['telnet', 'ssh']).optional(),
  host: z.string().optional(),
  port: z.coerce.number().int().min(1).max(65535).optional(),
  username: z.string().optional(),
  /** path to a private key file; passwords live in the keychain, never here */
  key_file: z.string().optional(),
});

export const settingsSchema = z.object({
  server: httpUrl.default('http://127.0.0.1:3080'),
  project: z.string().min(1).optional(),
  /** `auto` detects /v3 then /v2 */
  api_version: z.enum(['auto', 'v2', 'v3']).default('auto'),
  insecure: z.coerce.boolean().default(false),
  connect_timeout_ms: intIn(100, 120_000).default(5_000),
  request_timeout_ms: intIn(100, 600_000).default(30_000),
  /**
   * The project's notification stream (live topology, drift): `auto` listens only to a project
   * whose auto_close is off, `always` listens to any (the controller then closes an auto_close
   * project, stopping its nodes, 5 s after the copilot leaves unless another client listens),
   * `never` reads the topology over REST before every LLM call.
   */
  notifications: z.enum(['auto', 'always', 'never']).default('auto'),
  /** nodes up to which the system prompt lists the topology whole; a larger lab gets a summary (gns3_topology_reader has the rest) */
  topology_inline_max: intIn(0, 100_000).default(150),

  mode: mode.default('teaching_assistant'),
  max_iterations: intIn(1, 100).default(20),
  max_tool_calls: intIn(1, 50).optional(),
  max_time: intIn(1, 86_400).optional(),
  /** USD one request may spend on LLM calls (root and sub-agents); never soft */
  max_cost: z.coerce.number().min(0.001).max(1000).optional(),
  tool_limits: z.record(z.string(), intIn(1, 1000)).default({}),
  on_limit: z.enum(['fail', 'warn', 'continue']).default('warn'),
  /** tool calls of one LLM response that run at the same time */
  max_parallel_tools: intIn(1, 20).default(5),
  /** seconds a change's verification re-reads the devices until their state is stable (routing protocols converge) */
  verify_timeout: intIn(1, 600).default(30),
  /**
   * seconds two equal reads must wait for when a change moved an interface, adjacency or session
   * (OSPF floods the news that late: src/tools/changeset/verify.ts); 0 trusts the first two
   */
  verify_quiet: intIn(0, 120).default(12),
  /** one-shot: what a regression a change's verification found does — kept (exit 7) or rewound through the gate */
  on_regression: z.enum(['keep', 'rewind']).default('keep'),
  /** a check file (src/check) a change's verification also runs before and after; lock it in a classroom */
  checks: z.string().trim().min(1).optional(),
  /** retries of a call that failed transiently (connection refused/reset, timeout, controller 5xx; src/tools/retry.ts says which) */
  max_retries_per_tool: intIn(0, 5).default(1),
  /** retries of an LLM request that failed transiently (429, 5xx, connection drop); 0 = one attempt */
  llm_retries: intIn(0, 10).default(2),
  /**
   * also retry a call that failed after it may have reached its target (a timeout, a dropped
   * connection, a 5xx) — only calls that send no configuration; off as the runtime-limits design has it
   */
  retry_on_tool_error: z.coerce.boolean().default(false),
  /** named caps on tool groups per request: config-changing tools / read-only (diagnostic) tools */
  max_device_config_calls: intIn(1, 1000).optional(),
  max_diagnostic_calls: intIn(1, 1000).optional(),
  approve: z.enum(['never', 'ask', 'config', 'all']).optional(),
  /**
   * how a NEW session runs sub-agents: flat (the default when unset) or recursive task trees; a
   * session keeps the mode it was created with. Unset is not the same as flat: a resumed session
   * in the other mode says that the mode asked for was not applied only when one was asked for.
   */
  agent_mode: agentMode.optional(),
  /** sub-agents of one `agent` batch (agent_mode recursive): one after another, or up to max_parallel_children at once */
  child_execution_mode: z.enum(['sequential', 'parallel']).default('sequential'),
  max_parallel_children: intIn(1, 2).default(2),
  /** read-only tool calls the Validator of a sub-agent's report may run to re-observe the lab (agent_mode recursive) */
  validator_tool_calls: intIn(0, 10).default(3),
  /** times a recursive root's answer the root Validator failed goes back to the root with the findings (agent_mode recursive) */
  root_validation_rounds: intIn(0, 5).default(2),
  /**
   * a recursive tree's budget, snapshotted with each new root. Layers merge it field by field
   * (src/config/load.ts); the env aliases AGENT_MAX_* and AGENT_RESOURCE_BUDGET_ENABLED set
   * single fields (src/config/agent-budget-env.ts).
   */
  agent_budget: z
    .object({
      enabled: z.boolean(),
      max_total_agents: z.number().int().positive(),
      max_llm_calls: z.number().int().positive(),
      max_total_tokens: z.number().int().positive(),
      max_total_cost_usd: z.number().positive(),
      max_duration_seconds: z.number().int().positive(),
      reserved_final_calls: z.number().int().positive(),
    })
    .partial()
    .strict()
    .default({}),

  provider: z.enum(PROVIDERS).default('openai'),
  model: z.string().min(1).default('gpt-4o-mini'),
  base_url: httpUrl.optional(),
  temperature: z.coerce.number().min(0).max(2).optional(),
  max_tokens: intIn(1, 1_000_000).optional(),
  /** thousands of tokens; required unless the model has a known default */
  context_limit: intIn(1, 10_000).optional(),
  context_strategy: z.enum(['conservative', 'balanced', 'aggressive']).default('balanced'),
  /** no bytes from the LLM stream for this long → retry, then exit 4 naming this setting */
  llm_idle_timeout_ms: intIn(1_000, 3_600_000).default(120_000),
  /** summarize history that trimming would drop, instead of dropping it */
  context_summarize: z.coerce.boolean().default(true),
  /** tokens one tool result may carry into the history; a longer one is cut (head and tail) and stored whole for read_context_ref */
  tool_result_tokens: intIn(200, 1_000_000).default(2000),
  /** the last model turns whose tool results are sent whole; older long ones go as stubs naming their read_context_ref (0 = off) */
  history_full_turns: intIn(0, 1_000).default(2),
  /** USD per 1M tokens by model name, over the built-in table (src/agent/pricing.ts) */
  model_prices: z.record(z.string(), z.object({ input: z.coerce.number().min(0), output: z.coerce.number().min(0) })).default({}),

  /** inject mode: the exam level whose fault scenarios are offered (ccna: easy, ccnp: easy+medium, ccie: all) */
  inject_level: z.enum(['ccna', 'ccnp', 'ccie']).default('ccie'),

  device_concurrency: intIn(1, 256).default(32),
  command_timeout_ms: intIn(100, 600_000).default(20_000),
  session_timeout_ms: intIn(1_000, 3_600_000).default(120_000),
  forbidden_commands: z
    .array(z.string())
    .default(['traceroute', 'tracepath', 'tracert', 'ping -f', 'debug', 'test', 'reload', 'erase', 'write erase', 'format', 'delete']),
  /** commands whose interactive confirmation ([confirm], [yes/no]) may be answered yes */
  confirm_allow: z.array(z.string()).default(['write memory', 'copy running-config startup-config']),
  devices: z.record(z.string(), deviceOverrideSchema).default({}),

  /** tools that need approval in addition to config-changing ones, e.g. create_gns3_node in class */
  approval_tools: z.array(z.string()).default([]),
  color: z.coerce.boolean().default(true),
  log_level: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  data_dir: z.string().optional(),
  /** replaces the built-in skills directory (env GNS3_COPILOT_SKILLS_DIR); the user dir still merges over it */
  skills_dir: z.string().optional(),
  /**
   * `mcp --http`: an MCP session with no request in flight and no event stream open that no
   * request reached for this long is released (its client went away without ending it)
   */
  mcp_session_idle_s: intIn(5, 86_400).default(300),
  /** the user's MCP servers whose tools join the agent (Gemini CLI's mcpServers shape); lock it in the system config for classrooms */
  mcp_servers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'server names: letters, digits and -'), mcpServerSchema).default({}),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;
export const SETTING_KEYS = Object.keys(settingsSchema.shape) as SettingKey[];

/** Options of one invocation that are not persistent settings. */
export interface InvocationOptions {
  prompt?: string;
  output: 'text' | 'json' | 'stream-json';
  continueLatest: boolean;
  resumeId?: string;
  /** true when stdin/stdout are a TTY and no prompt was given */
  interactive: boolean;
  /** --project was typed on this command line: it wins over a resumed session's own project */
  projectExplicit?: boolean;
  /** --fork: branch the resumed session into a new id */
  fork?: boolean;
  /** --estimate: count the first LLM call and the worst-case cost, send nothing */
  estimate?: boolean;
}
