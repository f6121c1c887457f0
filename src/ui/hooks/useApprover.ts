import { useCallback, useRef } from 'react';
import type { Key } from 'ink';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../core/api.js';
import type { UiAction } from '../state.js';
import { APPROVAL_CHOICES } from '../components/ApprovalPrompt.js';
import { useRefState } from './useRefState.js';
import { editLine, emptyEditor, type EditorState } from '../editor.js';
import { SessionAllowances } from '../../tools/allowances.js';
import { targetsOf } from '../../tools/targets.js';

export interface ApprovalUi {
  selected: number;
  /** the feedback line after "no, with feedback" (the input line's own editor); null while choosing */
  feedback: EditorState | null;
}

interface Pending {
  id: string;
  finish: (d: ApprovalDecision) => void;
}

/**
 * The Approver the core calls (stable for the App's lifetime) and the approval prompt's keys.
 * "Yes for this session" is remembered per tool and target (src/tools/allowances.ts, the
 * core's rule) until the session changes (`resetAllowed`).
 */
export function useApprover(dispatch: (a: UiAction) => void) {
  const [approvalUi, setApprovalUi, approvalUiRef] = useRefState<ApprovalUi>({ selected: 0, feedback: null });
  const pending = useRef<Pending | null>(null);
  const allowed = useRef(new SessionAllowances());

  const approver = useCallback<Approver>(
    (req: ApprovalRequest, signal: AbortSignal) => {
      if (allowed.current.covers(req.name, targetsOf(req.name, req.args)))
        return Promise.resolve<ApprovalDecision>({ kind: 'allow_session' });
      return new Promise<ApprovalDecision>((resolve) => {
        const onAbort = () => finish({ kind: 'deny' });
        const finish = (d: ApprovalDecision) => {
          if (pending.current?.id !== req.id) return;
          pending.current = null;
          // the turn's signal outlives this question: a listener left behind per approval adds up
          signal.removeEventListener('abort', onAbort);
          if (d.kind === 'allow_session') allowed.current.allow(req.name, targetsOf(req.name, req.args));
          dispatch({ type: 'approval_resolved', id: req.id, decision: d });
          resolve(d);
        };
        pending.current = { id: req.id, finish };
        setApprovalUi({ selected: 0, feedback: null });
        dispatch({ type: 'approval_request', request: req });
        if (signal.aborted) finish({ kind: 'deny' });
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    [dispatch, setApprovalUi],
  );

  const isPending = useCallback(() => pending.current !== null, []);
  /** whether the feedback line is open (Esc then closes it instead of aborting the turn) */
  const typingFeedback = useCallback(() => approvalUiRef.current.feedback !== null, [approvalUiRef]);
  const denyPending = useCallback(() => pending.current?.finish({ kind: 'deny' }), []);
  const resetAllowed = useCallback(() => allowed.current.clear(), []);

  const onApprovalKey = useCallback(
    (input: string, key: Key) => {
      const p = pending.current;
      if (!p) return;
      const ui = approvalUiRef.current;
      if (ui.feedback !== null) {
        if (key.escape) return setApprovalUi({ ...ui, feedback: null });
        // the main prompt's editor: a burst "text\r" (a paste, tmux send-keys) is the text, then Enter
        const r = editLine(ui.feedback, input, key);
        if (r.kind === 'edit') return setApprovalUi({ ...ui, feedback: r.state });
        if (r.kind !== 'submit') return;
        const fb = r.value.trim();
        setApprovalUi({ selected: 0, feedback: null });
        return p.finish(fb ? { kind: 'deny_with_feedback', feedback: fb } : { kind: 'deny' });
      }
      const choose = (i: number) => {
        const c = APPROVAL_CHOICES[i]!;
        if (c.kind === 'deny_with_feedback') return setApprovalUi({ selected: i, feedback: emptyEditor });
        p.finish({ kind: c.kind });
      };
      if (key.upArrow) return setApprovalUi({ ...ui, selected: Math.max(0, ui.selected - 1) });
      if (key.downArrow) return setApprovalUi({ ...ui, selected: Math.min(APPROVAL_CHOICES.length - 1, ui.selected + 1) });
      if (key.return) return choose(ui.selected);
      const byNumber = Number(input) - 1;
      if (byNumber >= 0 && byNumber < APPROVAL_CHOICES.length) return choose(byNumber);
      const byKey = APPROVAL_CHOICES.findIndex((c) => c.key === input.toLowerCase());
      if (byKey >= 0) choose(byKey);
    },
    [approvalUiRef, setApprovalUi],
  );

  return { approver, approvalUi, isPending, typingFeedback, denyPending, resetAllowed, onApprovalKey };
}
