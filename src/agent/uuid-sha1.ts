/**
 * SHA-1 for @langchain/core's uuid v5, which LangGraph calls for every task id
 * of every step. Its own SHA-1 is plain JavaScript: about 0.5 ms a call until the
 * JIT has warmed up, tens of milliseconds of a one-shot run. The build puts this
 * one in its place (tsup.config.ts): Node's native hash, the same 20 bytes, as a
 * fresh Uint8Array the caller may write into (it sets the version bits).
 */
import { createHash } from 'node:crypto';

export default function sha1(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha1').update(bytes).digest());
}
