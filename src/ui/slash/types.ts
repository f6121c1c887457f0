/**
 * A slash command of the TUI is one object in one file (src/ui/slash/<name>Command.ts),
 * listed once in ./index.ts: /help, Tab completion and dispatch all read that list.
 */
import type { AgentSession } from '../../core/api.js';
import type { Settings } from '../../config/schema.js';
import type { PickerPurpose } from '../picker.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction, UiState } from '../state.js';

export interface OpenSessionOptions {
  sessionId?: string;
  continueLatest?: boolean;
  announce?: 'new' | 'resumed';
}

/** What a command may use. The App builds one per command line; it holds no agent logic itself. */
export interface CommandContext {
  /** the current session (null before the first one opened) */
  readonly session: AgentSession | null;
  /** the UI state when the line was entered */
  readonly state: UiState;
  readonly services: UiServices;
  /** every command, for /help */
  readonly commands: readonly SlashCommand[];
  /** the settings in effect now (commands may change them: /model, /project) */
  settings: () => Settings;
  updateSettings: (patch: Partial<Settings>) => void;
  dispatch: (action: UiAction) => void;
  notice: (text: string, tone?: NoticeTone) => void;
  /** whether a turn is running now */
  turnRunning: () => boolean;
  /** true, after saying so, when `what` has to wait for the running turn */
  needsIdle: (what: string) => boolean;
  /** opens (or resumes) a session and makes it current; null when that failed (already reported) */
  openSession: (opts?: OpenSessionOptions) => Promise<AgentSession | null>;
  openPicker: (purpose: PickerPurpose, query?: string) => Promise<unknown>;
  /** draws the session's lab (/map) until Esc */
  openMap: () => Promise<void>;
  /** makes `project` current with a new session */
  switchProject: (project: string) => Promise<void>;
  clearScreen: () => void;
  exit: (code: number) => void;
}

export interface SlashCommand {
  /** what follows the slash, lower case */
  name: string;
  /** other names that run it (`/exit`, `/q`) */
  aliases?: readonly string[];
  /** the arguments, as /help shows them: `[name]`, `<title>` */
  usage?: string;
  /** one line for /help */
  description: string;
  /** Tab completion of the argument: the words that start with `prefix` */
  complete?: (prefix: string) => string[];
  /** does it; `args` is the rest of the line, trimmed. Problems are notices, not throws. */
  run(args: string, ctx: CommandContext): void | Promise<void>;
}
