/**
 * Changing V8's flags while running, announced first: V8 refuses a code cache made under other
 * flags than its own, so the one-file bundle of agent runs (src/boot/code-cache.ts) takes its
 * cache when it hears this, before the change.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * The process event emitted (synchronously) before the flags change: a process event, because
 * the listener is in the code-split build and the emitter in the bundle, two copies of every module.
 */
export const V8_FLAGS_EVENT = 'gns3-copilot:v8-flags';

export function setV8Flags(flags: string): void {
  (process as NodeJS.EventEmitter).emit(V8_FLAGS_EVENT);
  setFlagsFromString(flags);
}
