/** A row of the sessions table, as the store returns it. */
import type { AgentMode } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';

export interface SessionRow {
  id: string;
  project_id: string | null;
  project_name: string | null;
  copilot_mode: CopilotMode;
  agent_mode: AgentMode;
  title: string | null;
  pinned: boolean;
  created_at: string;
  updated_at: string;
  message_count: number;
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}
