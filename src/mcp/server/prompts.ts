/** Prompts: the three copilot mode prompts, with the current topology filled in when there is one. */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { COPILOT_MODES, parseMode } from '../../core/modes.js';
import { errorMessage } from '../../errors.js';
import type { McpRuntime } from './runtime.js';

const TITLES: Record<(typeof COPILOT_MODES)[number], string> = {
  teaching_assistant: 'GNS3 teaching assistant: explain and check a lab without breaking it',
  lab_automation_assistant: 'GNS3 lab automation: build and configure a lab',
  troubleshooting_injection: 'GNS3 fault injection: break the lab for students to troubleshoot',
};

export function listPrompts(): Prompt[] {
  return COPILOT_MODES.map((m) => ({ name: m, description: TITLES[m] }));
}

export async function getPrompt(rt: McpRuntime, name: string, signal: AbortSignal): Promise<GetPromptResult | undefined> {
  const mode = parseMode(name);
  if (!mode) return undefined;
  let topo: string | undefined;
  if (rt.hasProject) {
    try {
      topo = await rt.topologyText(signal);
    } catch (err) {
      rt.log.warn('mcp: topology for prompt failed', { error: errorMessage(err) });
    }
  }
  return { description: TITLES[mode], messages: [{ role: 'user', content: { type: 'text', text: rt.prompts.system(mode, topo) } }] };
}
