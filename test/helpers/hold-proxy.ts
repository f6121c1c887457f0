/**
 * A TCP forwarder in front of a device console that can freeze a client's
 * session at a chosen line: once armed with `holdAt(text)`, the first chunk a
 * client sends that contains `text` (and everything after it) is kept back
 * instead of forwarded, so a test can kill the client while the device waits
 * half way through a change. Unarmed, it forwards both ways untouched. It counts
 * the connections it accepted, so a test can see how often a client logged in.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HoldProxy {
  port: number;
  /** keep back what a client sends from the first chunk containing `text` on */
  holdAt(text: string): void;
  /** whether a client's data is being kept back now */
  holding(): boolean;
  /** the client connections accepted so far */
  accepted(): number;
  /** stops holding; the kept-back data is dropped and the held connection closed */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<HoldProxy> {
  let trigger: string | undefined;
  let held: { client: Socket; device: Socket } | undefined;
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const device = connect(targetPort, targetHost);
    sockets.add(client).add(device);
    let frozen = false;
    client.on('data', (d: Buffer) => {
      if (frozen) return;
      if (trigger !== undefined && d.toString('latin1').includes(trigger)) {
        frozen = true;
        held = { client, device };
        return;
      }
      device.write(d);
    });
    device.on('data', (d: Buffer) => client.write(d));
    const end = () => {
      client.destroy();
      device.destroy();
      sockets.delete(client);
      sockets.delete(device);
    };
    client.on('close', () => {
      // a held session stays open towards the device until the test releases it
      if (!frozen) end();
    });
    device.on('close', end);
    client.on('error', () => undefined);
    device.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    holdAt(text) {
      trigger = text;
    },
    holding: () => held !== undefined,
    accepted: () => accepted,
    release() {
      trigger = undefined;
      if (held) {
        held.client.destroy();
        held.device.destroy();
      }
      held = undefined;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
