import { useCallback, useRef, useState } from 'react';
import type { Key } from 'ink';
import { editLine, emptyEditor, type EditorState } from '../editor.js';
import { InputHistory } from '../history.js';
import { useRefState } from './useRefState.js';

export interface LineEditorOptions {
  /** Tab: the completed line and the candidates to show */
  complete: (line: string) => { line: string; candidates: string[] };
  /** Enter with the trimmed line; false keeps the line in the editor (not taken yet) */
  onSubmit: (line: string) => boolean;
  /** the line's text at mount (typed before the TUI was up) */
  initial?: string | undefined;
}

/** The input line: editing keys, ↑/↓ history (never secret-looking lines) and Tab completion. */
export function useLineEditor({ complete, onSubmit, initial }: LineEditorOptions) {
  // Keys arrive faster than renders (typing, pastes): each one edits the latest line.
  const [editor, setEditor, editorRef] = useRefState<EditorState>(() =>
    initial ? { value: initial, cursor: [...initial].length } : emptyEditor,
  );
  const [candidates, setCandidates] = useState<string[]>([]);
  const history = useRef(new InputHistory());

  const clearLine = useCallback(() => setEditor(emptyEditor), [setEditor]);

  const onEditKey = useCallback(
    (input: string, key: Key) => {
      const ed = editorRef.current;
      const r = editLine(ed, input, key);
      switch (r.kind) {
        case 'edit':
          setEditor(r.state);
          setCandidates([]);
          return;
        case 'submit': {
          const line = r.value.trim();
          if (!onSubmit(line)) return;
          setEditor(emptyEditor);
          setCandidates([]);
          if (line) history.current.push(line);
          return;
        }
        case 'history': {
          const v = r.direction === 'prev' ? history.current.prev(ed.value) : history.current.next();
          setEditor({ value: v, cursor: [...v].length });
          return;
        }
        case 'complete': {
          const c = complete(ed.value);
          setEditor({ value: c.line, cursor: [...c.line].length });
          setCandidates(c.candidates);
          return;
        }
        case 'none':
          return;
      }
    },
    [complete, onSubmit, editorRef, setEditor],
  );

  return { editor, candidates, onEditKey, clearLine };
}
