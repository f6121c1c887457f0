/**
 * A run's one abort signal has many listeners at once by design, not by leak: every device
 * in flight, every tool call of an answer, every sub-agent below it. Node would print a
 * MaxListenersExceededWarning on the user's terminal past ten, so such a signal is marked
 * as shared once and has no such cap.
 */
import { setMaxListeners } from 'node:events';

const shared = new WeakSet<AbortSignal>();

export function shareSignal(signal: AbortSignal | undefined): void {
  if (!signal || shared.has(signal)) return;
  setMaxListeners(0, signal);
  shared.add(signal);
}
