/**
 * Every device in flight listens to its request's one abort signal, so twenty devices
 * at once are twenty listeners on it: by design, not a leak. Node would print a
 * MaxListenersExceededWarning on the user's terminal past ten, so a signal the device
 * engine listens to is marked as shared once and has no such cap.
 */
import { setMaxListeners } from 'node:events';

const shared = new WeakSet<AbortSignal>();

export function shareSignal(signal: AbortSignal | undefined): void {
  if (!signal || shared.has(signal)) return;
  setMaxListeners(0, signal);
  shared.add(signal);
}
