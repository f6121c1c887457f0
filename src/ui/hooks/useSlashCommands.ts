import type { AgentSession } from '../../core/api.js';
import { runCommandLine, type CommandContext, type SlashCommand } from '../slash/index.js';
import type { UiState } from '../state.js';
import { useEvent } from './useEvent.js';

export type SlashCommandDeps = Omit<CommandContext, 'state' | 'session' | 'commands' | 'needsIdle'> & {
  commands: readonly SlashCommand[];
  /** the UI state now (between renders) */
  state: () => UiState;
  session: () => AgentSession | null;
};

/** Runs a `/command` line with a context built from the App's parts as they are at that moment. */
export function useSlashCommands(deps: SlashCommandDeps): (line: string) => Promise<void> {
  return useEvent((line: string) => {
    const needsIdle = (what: string) => {
      if (!deps.turnRunning()) return false;
      deps.notice(`${what} waits for the running turn (Esc aborts it)`, 'warn');
      return true;
    };
    return runCommandLine(line, { ...deps, state: deps.state(), session: deps.session(), needsIdle });
  });
}
