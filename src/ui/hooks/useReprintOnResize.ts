import { useCallback, useEffect, useRef } from 'react';
import type { UiAction } from '../state.js';

/** How long the width must hold still before the history is printed again (a dragged window sends many resizes). */
export const RESIZE_SETTLE_MS = 120;

/**
 * Prints the history again when the terminal's width changes. The terminal reflows what is
 * already on screen at the new width: it cuts finished turns mid-word, and Ink's erase of the
 * live area no longer covers the rows its old frame now takes, which leaves a stale copy of the
 * input line behind. So, once the width settles, the screen and scrollback are cleared and every
 * entry is printed again, word-wrapped for the new width.
 */
export function useReprintOnResize(columns: number, reprint: () => void): void {
  const printedAt = useRef(columns);
  useEffect(() => {
    if (columns === printedAt.current) return;
    const timer = setTimeout(() => {
      printedAt.current = columns;
      reprint();
    }, RESIZE_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [columns, reprint]);
}

const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';

/** Clears the screen and scrollback (`/clear`), and reprints the history on a width change. Returns the clear. */
export function useScreenReprint(stdout: NodeJS.WriteStream, columns: number, dispatch: (a: UiAction) => void): () => void {
  const clearScreen = useCallback(() => void stdout.write(CLEAR_SCREEN), [stdout]);
  useReprintOnResize(
    columns,
    useCallback(() => {
      clearScreen();
      dispatch({ type: 'reprint' });
    }, [clearScreen, dispatch]),
  );
  return clearScreen;
}
