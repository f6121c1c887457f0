import { useEffect } from 'react';
import { isCommand } from '../slash/index.js';
import type { NoticeTone } from '../state.js';
import type { AgentParts } from './useAgentParts.js';
import { useEvent } from './useEvent.js';
import type { LabParts } from './useLabParts.js';
import type { PhaseControl } from './usePhase.js';
import { useRefState } from './useRefState.js';

export interface PromptLineOptions {
  /** a prompt entered on the first frame, before Ink was up */
  entered: string | undefined;
  phase: PhaseControl;
  agent: Pick<AgentParts, 'sessions' | 'turn'>;
  lab: LabParts;
  runCommand: (line: string) => Promise<void>;
  notice: (text: string, tone?: NoticeTone) => void;
}

/**
 * Where an entered line goes: a `/command`, a turn, or a warning while a turn, rewind or restore
 * runs. A prompt entered while start-up still runs waits and is sent once the session is open.
 */
export function usePromptLine({ entered, phase, agent, lab, runCommand, notice }: PromptLineOptions) {
  const { sessions, turn } = agent;
  const { rewind, labCheckpoint, pickers } = lab;
  const [queued, setQueued, queuedRef] = useRefState<string | undefined>(entered);
  const submit = useEvent((line: string): boolean => {
    if (!line) return true;
    if (phase.current().kind !== 'ready') {
      setQueued(line);
      return true;
    }
    if (isCommand(line)) void runCommand(line);
    else if (turn.turnRunning()) notice('A turn is running: wait, or Esc to abort it', 'warn');
    else if (rewind.rewindRunning()) notice('A rewind is running: wait, or Esc to abort it', 'warn');
    else if (labCheckpoint.restoreRunning()) notice('A checkpoint restore is running: wait, or Esc to abort it', 'warn');
    else void turn.runTurn(line);
    return true;
  });
  const sendQueued = useEvent(() => {
    const line = queuedRef.current;
    if (line === undefined || phase.current().kind !== 'ready' || pickers.pickerOpen() || !sessions.session()) return;
    setQueued(undefined);
    submit(line);
  });
  // Runs on every phase change: openSession sets `ready` again once the session exists.
  useEffect(() => sendQueued(), [phase.phase, pickers.picker, sendQueued]);
  return { queued, submit };
}
