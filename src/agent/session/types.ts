/** What createAgentSession (../session.ts) takes and gives: its options and the session it returns. */
import type { InvocationOptions, Settings } from '../../config/schema.js';
import type { AgentSession, Approver, LabView, LimitAsker, StopOutcome } from '../../core/api.js';
import type { AgentMode } from '../../core/events.js';
import type { ProjectScope, Topology } from '../../gns3/types.js';
import type { Logger } from '../../log.js';
import type { AgentNodeRow, TreeRow } from '../../sessions/tree-store.js';
import type { SessionRow } from '../../sessions/store.js';
import type { TranscriptEntry } from '../../sessions/transcript.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ToolDef } from '../../tools/types.js';
import type { TreeUsage } from '../tree/ledger.js';
import type { AgentView, ResourceUsage } from '../tree/view.js';
import type { RequestEstimate } from './estimate.js';

/**
 * Adds tools that live outside the core (the user's MCP servers) to a session's registry.
 * The composition root above the agent hands it in, so the core does not reach up into a
 * client. It runs in the background; a request waits for it before the model sees the tools.
 * Whatever it registers in `services` is closed with the session. Its notices go out with
 * the request.
 */
export type ToolAttacher = (target: {
  registry: ToolRegistry;
  settings: Settings;
  log: Logger;
  services: Map<string, unknown>;
  /** names of the servers still connecting: the attacher adds each at start and deletes it once it is up or failed */
  connecting: Set<string>;
}) => Promise<{ notices: string[] } | undefined>;

export interface CreateAgentSessionOptions {
  settings: Settings;
  invocation?: InvocationOptions;
  approver?: Approver;
  sessionId?: string;
  continueLatest?: boolean;
  log?: Logger;
  /**
   * settings.project was asked for explicitly (--project, the TUI's project picker):
   * it wins over a resumed session's own project. Settings cannot tell a typed flag
   * from GNS3_PROJECT or a config file, so callers that know say so here.
   */
  projectExplicit?: boolean;
  /** branch the resumed session into a new id (--fork) */
  fork?: boolean;
  /** asks the user to raise a limit the running request reached (the TUI); absent: on_limit decides */
  limitAsker?: LimitAsker;
  /** tools from outside the core (src/commands/agent-session.ts hands in the MCP servers') */
  attachTools?: ToolAttacher;
  /** test seams (compatible extensions of the contract) */
  tools?: ToolDef[];
  projectScope?: () => Promise<ProjectScope>;
  env?: NodeJS.ProcessEnv;
}

/**
 * A session of the agent core in this process: the AgentSession every front end renders,
 * plus what the commands that own it read (its row, its transcript, its task tree).
 */
export interface CopilotSession extends AgentSession {
  readonly agentMode: AgentMode;
  readonly resumed: boolean;
  readonly model: string;
  /** the session's lab, live from the notification stream where it listens (opens the project); undefined without a project */
  lab(): Promise<LabView<Topology> | undefined>;
  /** the session row (title, usage) as stored now */
  info(): SessionRow | undefined;
  /** the checkpointed conversation, e.g. to redraw a resumed session in the TUI */
  transcript(): Promise<TranscriptEntry[]>;
  /** one-line notices for the user (a classroom lock changed the mode, an agent mode asked for that a resumed tree did not apply) */
  readonly notices: readonly string[];
  /** the sub-agent tree: the root's record and every child */
  tree(): { root: TreeRow | undefined; agents: AgentNodeRow[] };
  /** the tree for --json (`agents`, `resource_usage`), `/tree` and the status bar */
  treeView(): { agents: AgentView[]; resource_usage: ResourceUsage | null };
  /** the tree budget's usage (recursive trees) */
  usage(): TreeUsage | undefined;
  stopAgent(agentId: string): StopOutcome;
  /** --estimate: the first LLM call of `prompt` prepared and counted, nothing sent, no tool run */
  estimate(prompt: string, signal?: AbortSignal): Promise<RequestEstimate>;
}
