/**
 * Copilot modes and the tool set each one may use (docs/tools.md). The set is both
 * what the model is shown and what dispatch allows.
 */
export const COPILOT_MODES = ['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection'] as const;
export type CopilotMode = (typeof COPILOT_MODES)[number];

const SHORT_NAMES: Record<string, CopilotMode> = {
  teaching: 'teaching_assistant',
  lab: 'lab_automation_assistant',
  inject: 'troubleshooting_injection',
};

export const MODE_SHORT_NAME: Record<CopilotMode, string> = {
  teaching_assistant: 'teaching',
  lab_automation_assistant: 'lab',
  troubleshooting_injection: 'inject',
};

/** Accepts both spellings (`lab` and `lab_automation_assistant`); undefined when unknown. */
export function parseMode(value: string): CopilotMode | undefined {
  const v = value.trim().toLowerCase();
  if ((COPILOT_MODES as readonly string[]).includes(v)) return v as CopilotMode;
  return SHORT_NAMES[v];
}

export const MODE_CHOICES_TEXT = 'teaching|lab|inject (or teaching_assistant|lab_automation_assistant|troubleshooting_injection)';

export const TOOL_NAMES = [
  'get_gns3_templates',
  'create_gns3_node',
  'create_gns3_link',
  'start_gns3_node',
  'update_gns3_node_name',
  'stop_gns3_node',
  'suspend_gns3_node',
  'execute_multiple_device_commands',
  'execute_multiple_device_config_commands',
  'execute_vpcs_commands',
  'apply_config_template',
  'packet_analysis',
  'packet_analysis_skills',
  'device_skills',
  'manage_gns3_packet_filter',
  'injection_skills',
  'gns3_topology_reader',
  'get_gns3_node_console',
  'verify_lab',
  'agent',
  // the recursive task protocol's own tools; registered only in recursive sessions
  'read_context_ref',
  'review_task',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The tools of every mode, last in each: reading the lab, checking it, and sub-agents. */
const EVERY_MODE: readonly ToolName[] = [
  // read-only; docs/tools.md lists the reader as a tool students may use too
  'gns3_topology_reader',
  'get_gns3_node_console',
  // read-only checks (src/check): lab mode verifies its work, teaching shows what is still wrong
  'verify_lab',
  'agent',
  'read_context_ref',
  'review_task',
];

const TEACHING: readonly ToolName[] = [
  'get_gns3_templates',
  'create_gns3_node',
  'create_gns3_link',
  'start_gns3_node',
  'update_gns3_node_name',
  'execute_multiple_device_commands',
  'packet_analysis',
  'packet_analysis_skills',
  'device_skills',
  ...EVERY_MODE,
];

export const MODE_TOOLS: Record<CopilotMode, readonly ToolName[]> = {
  teaching_assistant: TEACHING,
  lab_automation_assistant: [
    ...TEACHING,
    'stop_gns3_node',
    'suspend_gns3_node',
    'execute_multiple_device_config_commands',
    'execute_vpcs_commands',
    'apply_config_template',
  ],
  troubleshooting_injection: [
    'execute_multiple_device_commands',
    'execute_multiple_device_config_commands',
    'manage_gns3_packet_filter',
    'injection_skills',
    ...EVERY_MODE,
  ],
};

/**
 * What undoing the session's own changes sends (a rewind, a fault restore): device configuration
 * of routers and PCs, link filters, node power and names. The CLI's restores may send these in
 * any mode — a VPCS fault inject mode applied is restored with the VPCS tool, which inject mode
 * does not offer its model — and still go through the gate (approval policy, `--yes`).
 */
export const RESTORE_TOOLS: readonly ToolName[] = [
  'execute_multiple_device_config_commands',
  'execute_vpcs_commands',
  'manage_gns3_packet_filter',
  'start_gns3_node',
  'stop_gns3_node',
  'suspend_gns3_node',
  'update_gns3_node_name',
];

export function toolAllowed(mode: CopilotMode, tool: string): boolean {
  return (MODE_TOOLS[mode] as readonly string[]).includes(tool);
}
