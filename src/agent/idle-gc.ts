/**
 * A full garbage collection once a session has gone idle.
 *
 * A request leaves garbage behind (streamed chunks, serialised checkpoints, tool
 * output copies) that the scavenger has promoted to old space; V8 does not run a
 * full collection on its own while the process waits at the prompt, so that memory
 * stays committed until the next request. We ask for one shortly after a request
 * ends — the user is reading, a short pause is invisible, and a new request cancels
 * it. Measured on the TUI binary after 200 turns with 5 tool calls each (with the
 * V8 flags below and of startTui): RSS ~160 MB right after the last turn, ~140 MB
 * once this has run (bench/ui.bench.ts).
 */
import { setV8Flags } from '../core/v8-flags.js';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;
let smallHeap = false;

/**
 * After its first request a session is a long-lived process: from then on V8 keeps
 * the young generation at ~1 MB and the heap close to its live size
 * (--optimize-for-size; the heap reads the flag as it runs). Measured on the TUI
 * binary (bench/ui.bench.ts) it takes the settled RSS after 200 turns from ~275 MB
 * to ~150 MB. Not set at launch: there it cost ~300 ms of start-up and ~180 ms of
 * resuming a 1,000-turn session (bench/store.bench.ts).
 */
function preferSmallHeap(): void {
  if (smallHeap) return;
  smallHeap = true;
  setV8Flags('--optimize-for-size');
}

function fullGc(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collect = exposed;
    else {
      // the flag only affects contexts created after it; a fresh one hands us gc()
      setV8Flags('--expose-gc');
      const gc = runInNewContext('gc') as unknown;
      collect = typeof gc === 'function' ? (gc as () => void) : null;
    }
  } catch {
    collect = null;
  }
  return collect;
}

export class IdleCollector {
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly delayMs = 1500) {}

  /** A request finished: collect once the process has been idle for delayMs. */
  schedule(): void {
    this.cancel();
    preferSmallHeap();
    const gc = fullGc();
    if (!gc) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      gc();
    }, this.delayMs);
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
