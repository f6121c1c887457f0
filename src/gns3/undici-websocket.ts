/**
 * undici's WebSocket client, from its own module (as undici-parts.ts does for the HTTP
 * parts): the notification streams are its only user and load it lazily, so start-up does
 * not pay for it. The types are the package's own (undici-modules.d.ts).
 */
import { WebSocket as WebSocketImpl } from 'undici/lib/web/websocket/websocket.js';

export const WebSocket: typeof import('undici').WebSocket = WebSocketImpl;
export type WebSocket = import('undici').WebSocket;
