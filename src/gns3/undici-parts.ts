/**
 * The three parts of undici the GNS3 client uses (http.ts), each from its own
 * module. undici's index also loads fetch, WebSocket, EventSource, the cache and
 * mock layers and both HTTP parsers' wasm: ~80 ms of CPU at every start-up even
 * bundled, for nothing the client calls. undici is pinned to an exact version in
 * package.json; these paths are its lib/ layout at that version, and the types
 * are the package's own (undici-modules.d.ts).
 */
import type { Agent as AgentClass, Dispatcher, errors as UndiciErrors } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import requestImpl from 'undici/lib/api/api-request.js';
import errorsImpl from 'undici/lib/core/errors.js';
// Installs an Agent of this undici as the process's global dispatcher, as
// undici's index does: Node's own fetch (the LLM client's) then runs on it too,
// one HTTP stack and one compile of the HTTP parser's wasm instead of two
// (without it a one-shot run took ~15% more CPU).
import 'undici/lib/global.js';

export const Agent: typeof AgentClass = AgentImpl;
export type Agent = AgentClass;
export const errors: typeof UndiciErrors = errorsImpl;

/** undici's `request(url, { dispatcher, ... })`, for an absolute URL and an explicit dispatcher. */
export function request(
  url: string,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return requestImpl.call(dispatcher, { ...rest, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname });
}
