/**
 * What every MCP session of one `gns3-copilot mcp` process shares: the settings,
 * the tool registry, the GNS3 project (opened by checkStart, once) and the long-lived
 * services of tool calls — above all the device pool, so consoles stay open
 * across calls and across clients — and the server's one session in sessions.db,
 * where the clients' changes are checkpointed and, in inject mode, their faults
 * recorded. close() shuts all of it down.
 */
import type { Settings } from '../../config/schema.js';
import { MODE_SHORT_NAME } from '../../core/modes.js';
import type { ProjectScope } from '../../gns3/types.js';
import type { Gns3Client } from '../../gns3/client.js';
import type { Logger } from '../../log.js';
import type { ToolContext, ToolDef } from '../../tools/types.js';
import { ToolRegistry } from '../../tools/registry.js';
import { PromptLibrary } from '../../agent/prompts.js';
import { ControllerError } from '../../errors.js';
import { closeServices } from '../../tools/services.js';
import type { BatchCall, Checkpointer } from '../../checkpoints/batch.js';
import type { FaultLedger } from '../../faults/store.js';
import type { SessionStore } from '../../sessions/store.js';

export interface McpRuntimeOptions {
  settings: Settings;
  log: Logger;
  /** test seams */
  tools?: ToolDef[];
  projectScope?: () => Promise<ProjectScope>;
}

export class McpRuntime {
  readonly settings: Settings;
  readonly log: Logger;
  readonly registry: ToolRegistry;
  readonly prompts = new PromptLibrary();
  readonly services = new Map<string, unknown>();
  private projectPromise: Promise<ProjectScope> | undefined;
  private client: Gns3Client | undefined;

  private constructor(opts: McpRuntimeOptions, tools: ToolDef[]) {
    this.settings = opts.settings;
    this.log = opts.log;
    this.registry = new ToolRegistry(tools);
    if (opts.projectScope) this.openProject = opts.projectScope;
  }

  static async create(opts: McpRuntimeOptions): Promise<McpRuntime> {
    const tools = opts.tools ?? (await import('../../tools/index.js')).allTools();
    return new McpRuntime(opts, tools);
  }

  get hasProject(): boolean {
    return this.settings.project !== undefined || this.projectPromise !== undefined;
  }

  /** The configured project, opened on first use; a failed open is retried next time. */
  openProject = (): Promise<ProjectScope> => {
    const name = this.settings.project;
    if (!name)
      return Promise.reject(
        new ControllerError('no GNS3 project selected: start the server with --project <name|id> (or set GNS3_PROJECT)'),
      );
    this.projectPromise ??= (async () => {
      const { openProjectScope } = await import('../../gns3/client.js');
      return openProjectScope(await this.gns3Client(), name);
    })();
    this.projectPromise.catch(() => (this.projectPromise = undefined));
    return this.projectPromise;
  };

  /**
   * Run before the server answers a client: the controller answers, the login works and
   * the project exists (opening it proves all three). Without a project, listing the
   * projects proves the first two. An MCP client then shows the server as failed, with
   * the reason, instead of "connected" and an error at the first tool call.
   */
  async checkStart(signal?: AbortSignal): Promise<void> {
    if (this.settings.project !== undefined) {
      await this.openProject();
      return;
    }
    await (await this.gns3Client()).listProjects(signal);
  }

  private async gns3Client(): Promise<Gns3Client> {
    if (!this.client) {
      const { createKeychainGns3Client } = await import('../../gns3/keychain-client.js');
      this.client = createKeychainGns3Client(this.settings, this.log);
    }
    return this.client;
  }

  /**
   * The compact topology text the agent's system prompt carries, up to topology_inline_max
   * nodes; a larger lab is the prompt's summary (the client reads parts with
   * gns3_topology_reader's `nodes`). `resource`: the topology resource, which also lists each
   * node's free ports (a client reads it once; the prompt pays every token on every call).
   */
  async topologyText(signal?: AbortSignal, { resource = false }: { resource?: boolean } = {}): Promise<string> {
    const project = await this.openProject();
    const { renderPromptTopology } = await import('../../gns3/render.js');
    return renderPromptTopology(await project.getTopology(signal), this.settings.topology_inline_max, { freePorts: resource });
  }

  toolContext(signal: AbortSignal, progress?: ToolContext['progress']): ToolContext {
    return {
      settings: this.settings,
      signal,
      log: this.log,
      project: () => this.openProject(),
      services: this.services,
      mode: this.settings.mode,
      ...(progress ? { progress } : {}),
    };
  }

  /**
   * The context of one client call of `def`. In inject mode a configuration tool records
   * the fault it applies in the server session's ledger (so `gns3-copilot faults` sees
   * it, and a second fault of a category on a target is refused across calls and clients).
   */
  async callContext(def: ToolDef, signal: AbortSignal, progress?: ToolContext['progress']): Promise<ToolContext> {
    const ctx = this.toolContext(signal, progress);
    if (this.settings.mode !== 'troubleshooting_injection' || def.risk !== 'config') return ctx;
    return { ...ctx, faults: await this.faultLedger() };
  }

  /**
   * The one session of this server process in sessions.db: the clients' checkpoints and
   * faults are kept under it. Created on first need (the first change), never at start-up,
   * so a server that only reads leaves sessions.db alone. It runs in the server's mode and,
   * when the project opens, carries it (so `sessions list --project`, `rewind` and `faults`
   * find it).
   */
  private serverSession(): Promise<{ store: SessionStore; id: string }> {
    this.session ??= (async () => {
      const { SessionStore } = await import('../../sessions/store.js');
      const project = this.hasProject ? await this.openProject().catch(() => undefined) : undefined;
      const store = await SessionStore.open(this.settings.data_dir);
      this.sessionStore = store;
      const row = store.create({
        copilot_mode: this.settings.mode,
        agent_mode: 'flat',
        ...(project ? { project_id: project.projectId, project_name: project.projectName } : {}),
      });
      // no model names it: say whose it is in `sessions list` (which shows when it started)
      store.setTitle(row.id, `MCP server (${MODE_SHORT_NAME[this.settings.mode]})`);
      return { store, id: row.id };
    })();
    this.session.catch(() => (this.session = undefined));
    return this.session;
  }
  private session: Promise<{ store: SessionStore; id: string }> | undefined;
  private sessionStore: { close(): void } | undefined;

  /** The fault ledger of the server session: one FaultStore, so calls in flight see each other's admitted faults. */
  private faultLedger(): Promise<FaultLedger> {
    this.ledger ??= (async () => {
      const [{ store, id }, { FaultStore }] = await Promise.all([this.serverSession(), import('../../faults/store.js')]);
      return { sessionId: id, store: new FaultStore(store.db) };
    })();
    this.ledger.catch(() => (this.ledger = undefined));
    return this.ledger;
  }
  private ledger: Promise<FaultLedger> | undefined;

  /**
   * Checkpoints of the MCP clients' changes: kept under the server session, each
   * checkpointed tool call a request of its own — a user line in the session's log
   * (`MCP client: <tool> <targets>`), so `sessions show`, `diff`, `rewind` and a rewind
   * run from another process number the requests as they do an agent's prompts.
   */
  readonly checkpoints: Checkpointer = async (calls, signal, known) => {
    this.checkpointer ??= (async () => {
      const [{ store, id }, { CheckpointStore }, { sessionCheckpointer }, { HumanMessage }] = await Promise.all([
        this.serverSession(),
        import('../../checkpoints/store.js'),
        import('../../checkpoints/batch.js'),
        import('@langchain/core/messages'),
      ]);
      const checkpoints = new CheckpointStore(store.db);
      const nextRequest = store.db.transaction((text: string): number => {
        store.saver.log.append(id, store.saver.log.head(id).count, [new HumanMessage(text)]);
        return checkpoints.currentRequestNo(id);
      });
      return sessionCheckpointer({
        store: checkpoints,
        sessionId: id,
        requestNo: (batch) => nextRequest.immediate(mcpRequestText(batch)),
        context: (s) => this.toolContext(s),
      });
    })();
    this.checkpointer.catch(() => (this.checkpointer = undefined));
    return (await this.checkpointer)(calls, signal, known);
  };
  private checkpointer: Promise<Checkpointer> | undefined;

  async close(): Promise<void> {
    this.sessionStore?.close();
    await closeServices(this.services);
    await this.client?.close().catch(() => undefined);
  }
}

/** The request line of a client call in the server session: the tool and what it changes. */
function mcpRequestText(calls: BatchCall[]): string {
  return calls
    .map((c) => {
      const t = c.targets;
      const what: string[] = [
        ...(t.devices ?? []).map((d) => d.name),
        ...(t.nodes ?? []).map((n) => n.name ?? `new ${n.template ?? 'node'}`),
        ...(t.links ?? []).map((l) => (l.b ? `${l.a} – ${l.b}` : l.a)),
      ];
      return `MCP client: ${c.name}${what.length ? ` (${what.join(', ')})` : ''}`;
    })
    .join('; ');
}
