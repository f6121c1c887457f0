import { useCallback, useEffect, useRef } from 'react';
import type { Key } from 'ink';
import { checkpointsToRestore, rewindQuestion, rewindable, type RegressedCall } from '../../core/regressions.js';
import { findingText } from '../../core/verification.js';
import type { NoticeTone, UiState } from '../state.js';
import type { TurnView } from '../views.js';

/** The calls of a turn whose verification regressed (inject mode's report-only ones aside), with what each checkpointed. */
export function regressedCalls(turn: TurnView): RegressedCall[] {
  return turn.items.flatMap((it) =>
    it.kind === 'tool' && it.call.verification?.status === 'regressed' && !it.call.verification.report_only
      ? [
          {
            id: it.call.id,
            name: it.call.name,
            verification: it.call.verification,
            ...rewindable(it.call.checkpoints ?? []),
          },
        ]
      : [],
  );
}

export interface RegressionPromptOptions {
  entries: UiState['entries'];
  /** rewinds these devices to these checkpoints (each taken just before the regressed call), through the approval box */
  rewind: (devices: string[], checkpoints: number[]) => void;
  notice: (text: string, tone?: NoticeTone) => void;
}

/**
 * After a turn whose configuration change regressed the lab: the question
 * "R2 lost OSPF neighbour 10.255.255.1: rewind R2, R3? y/n"; y rewinds the devices the
 * regressed calls changed to the checkpoint taken just before the regressed call (an earlier
 * call's change stays; the /rewind machinery, each call asked in the approval box), n or Esc keeps it.
 */
export function useRegressionPrompt({ entries, rewind, notice }: RegressionPromptOptions) {
  const pending = useRef<{ devices: string[]; checkpoints: number[] } | null>(null);
  const seen = useRef(entries.length);

  useEffect(() => {
    const fresh = entries.slice(Math.min(seen.current, entries.length));
    seen.current = entries.length;
    const turn = fresh.findLast((e) => e.kind === 'turn');
    if (turn?.kind !== 'turn') return;
    const calls = regressedCalls(turn.turn);
    if (calls.length === 0) return;
    const devices = [...new Set(calls.flatMap((c) => c.devices))];
    if (devices.length === 0) {
      const first = calls[0]!.verification.regressions[0];
      notice(
        `✗ ${first ? findingText(first) : 'the change regressed'}: nothing was checkpointed to rewind to; the regression is kept`,
        'warn',
      );
      return;
    }
    pending.current = { devices, checkpoints: checkpointsToRestore(calls) };
    notice(rewindQuestion(calls, devices), 'warn');
  }, [entries, notice]);

  const isPending = useCallback(() => pending.current !== null, []);
  const onKey = useCallback(
    (input: string, key: Key) => {
      const asked = pending.current;
      if (!asked) return;
      const k = input.toLowerCase();
      if (k === 'y') {
        pending.current = null;
        rewind(asked.devices, asked.checkpoints);
      } else if (k === 'n' || key.escape) {
        pending.current = null;
        notice(`regression kept: ${asked.devices.join(', ')} not rewound (/rewind can still undo the request)`);
      }
    },
    [rewind, notice],
  );
  return { isPending, onKey };
}
