/**
 * What each built-in tool call touches (`ToolDef.targets`, the shapes in
 * src/core/targets.ts): the devices whose consoles it uses (with the lines it sends),
 * the nodes and links it acts on, and whether it changes device configuration or the
 * topology. The dispatch checkpoints what a change touches before it runs; the TUI and
 * the approval prompt show the same targets. Pure and free of zod, so the UI can import
 * it: the arguments are the model's, not yet validated, and anything malformed is left out.
 */
import type { ToolName } from '../core/modes.js';
import type { TargetsFn, ToolTargets } from '../core/targets.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A command as the model sent it: a string as it is, anything else as JSON. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** `{device_configs:[{device_name, <key>:[…]}]}`: the device tools. */
function deviceConfigs(key: 'commands' | 'config_commands', changesConfig: boolean, baseline = false): TargetsFn {
  return (args) => ({
    devices: list(args.device_configs)
      .filter(isObj)
      .map((d) => {
        const cmds = d[key];
        return {
          name: str(d.device_name) ?? '?',
          commands: Array.isArray(cmds) ? cmds.map(textOf) : cmds === undefined ? [] : [textOf(cmds)],
        };
      }),
    ...(changesConfig ? { changesConfig } : {}),
    ...(baseline ? { baseline } : {}),
  });
}

/**
 * A change set: what its template rendered for each device (`rendered`, put there by the
 * dispatch's prepare step: src/tools/changeset/prepare.ts); before that, the devices named.
 */
const changeSet: TargetsFn = (args) => {
  const rendered = isObj(args.rendered) ? list(args.rendered.devices).filter(isObj) : undefined;
  return {
    devices: rendered
      ? rendered.map((d) => ({ name: str(d.device_name) ?? '?', commands: list(d.commands).map(textOf) }))
      : list(args.devices)
          .map(str)
          .filter((n): n is string => n !== undefined && !/[*?[]/.test(n))
          .map((name) => ({ name, commands: [] })),
    changesConfig: true,
    ...(args.verify === 'none' ? {} : { baseline: true }),
  };
};

/**
 * start/stop/suspend: nodes by name or id. A stop or suspend also loses the running
 * configuration a device did not save, so its devices are checkpointed like a config change.
 */
function power(changesConfig: boolean): TargetsFn {
  return (args) => {
    const names = list(args.nodes)
      .map(str)
      .filter((n): n is string => n !== undefined);
    return {
      nodes: names.map((name) => ({ name })),
      ...(changesConfig ? { devices: names.map((name) => ({ name, commands: [] })), changesConfig } : {}),
      changesTopology: true,
    };
  };
}

const createNodes: TargetsFn = (args) => ({
  nodes: list(args.nodes)
    .filter(isObj)
    .map((n) => ({ ...(str(n.name) ? { name: str(n.name) } : {}), ...(str(n.template) ? { template: str(n.template) } : {}) })),
  changesTopology: true,
});

const renameNodes: TargetsFn = (args) => ({
  nodes: list(args.nodes)
    .filter(isObj)
    .map((n) => ({ ...(str(n.node) ? { name: str(n.node) } : {}), ...(str(n.new_name) ? { newName: str(n.new_name) } : {}) })),
  changesTopology: true,
});

const createLinks: TargetsFn = (args) => ({
  links: list(args.links)
    .filter(isObj)
    .map((l) => ({
      a: [str(l.node_a), str(l.port_a)].filter(Boolean).join(' '),
      b: [str(l.node_b), str(l.port_b)].filter(Boolean).join(' '),
    })),
  changesTopology: true,
});

const packetFilter: TargetsFn = (args) => {
  const link = str(args.link);
  const action = str(args.action);
  return { links: link ? [{ a: link }] : [], ...(action === 'set' || action === 'clear' ? { changesTopology: true } : {}) };
};

/** The built-in tools' declarations; each tool's definition carries its own (ToolDef.targets). */
export const TOOL_TARGETS = {
  execute_multiple_device_commands: deviceConfigs('commands', false),
  execute_vpcs_commands: deviceConfigs('commands', true),
  // verified against a baseline (src/tools/changeset/verified-change.ts)
  execute_multiple_device_config_commands: deviceConfigs('config_commands', true, true),
  apply_config_template: changeSet,
  create_gns3_node: createNodes,
  update_gns3_node_name: renameNodes,
  create_gns3_link: createLinks,
  start_gns3_node: power(false),
  stop_gns3_node: power(true),
  suspend_gns3_node: power(true),
  manage_gns3_packet_filter: packetFilter,
} satisfies Partial<Record<ToolName, TargetsFn>>;

/** A built-in tool's targets, for views that have only the name (the TUI, a resumed transcript). */
export function targetsOf(name: string, args: Record<string, unknown>): ToolTargets | undefined {
  return (TOOL_TARGETS as Record<string, TargetsFn | undefined>)[name]?.(args);
}
