// Types for the undici modules undici-parts.ts imports by path (undici declares only its index).
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  const request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/core/errors.js' {
  const errors: typeof import('undici').errors;
  export default errors;
}
declare module 'undici/lib/global.js';
declare module 'undici/lib/web/websocket/websocket.js' {
  export const WebSocket: typeof import('undici').WebSocket;
}
