import { useCallback, useEffect, useRef } from 'react';
import type { Key } from 'ink';
import { rewindQuestion, type RegressedCall } from '../../core/regressions.js';
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
            devices: (it.call.checkpointed ?? []).filter((d) => d !== 'topology' && d !== 'all'),
          },
        ]
      : [],
  );
}

export interface RegressionPromptOptions {
  entries: UiState['entries'];
  /** rewinds these devices to just before the request that has just ended, through the approval box */
  rewind: (devices: string[]) => void;
  notice: (text: string, tone?: NoticeTone) => void;
}

/**
 * After a turn whose configuration change regressed the lab: the question
 * "R2 lost OSPF neighbour 10.255.255.1: rewind R2, R3? y/n"; y rewinds the devices the
 * regressed calls changed (the /rewind machinery, each call asked in the approval box), n or Esc keeps it.
 */
export function useRegressionPrompt({ entries, rewind, notice }: RegressionPromptOptions) {
  const pending = useRef<string[] | null>(null);
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
    pending.current = devices;
    notice(rewindQuestion(calls, devices), 'warn');
  }, [entries, notice]);

  const isPending = useCallback(() => pending.current !== null, []);
  const onKey = useCallback(
    (input: string, key: Key) => {
      const devices = pending.current;
      if (!devices) return;
      const k = input.toLowerCase();
      if (k === 'y') {
        pending.current = null;
        rewind(devices);
      } else if (k === 'n' || key.escape) {
        pending.current = null;
        notice(`regression kept: ${devices.join(', ')} not rewound (/rewind can still undo the request)`);
      }
    },
    [rewind, notice],
  );
  return { isPending, onKey };
}
