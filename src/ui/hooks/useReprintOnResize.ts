import { useEffect, useRef } from 'react';

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
