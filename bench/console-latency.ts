/**
 * Consoles as far away as a real lab's: one forwarder per console that delays every
 * chunk by `ms` in each direction, order kept. Twenty local vtysh consoles on a 2-core
 * machine are CPU-bound, so running them in parallel measures the cores; behind a few
 * milliseconds of latency the same run measures what the copilot's parallelism buys when
 * the devices run elsewhere, as they do on a GNS3 server.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Topology } from '../src/gns3/types.js';

function delayed(to: Socket, ms: number): (d: Buffer) => void {
  // equal delays fire in the order they were set, so the stream stays in order
  return (d) => void setTimeout(() => to.destroyed || to.write(d), ms);
}

async function forwarder(host: string, port: number, ms: number, sockets: Set<Socket>): Promise<Server> {
  const server = createServer((client) => {
    const device = connect(port, host);
    // no Nagle: only the chosen latency, not a delayed-ACK stall, may stand between the two
    client.setNoDelay(true);
    device.setNoDelay(true);
    sockets.add(client).add(device);
    client.on('data', delayed(device, ms));
    device.on('data', delayed(client, ms));
    const end = (): void => {
      client.destroy();
      device.destroy();
    };
    client.on('close', end).on('error', end);
    device.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The topology with every console behind a forwarder `ms` away each way. */
export async function behindLatency(topology: Topology, ms: number): Promise<{ topology: Topology; close(): Promise<void> }> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const nodes = await Promise.all(
    topology.nodes.map(async (n) => {
      if (n.console === null) return n;
      const server = await forwarder(n.console_host ?? '127.0.0.1', n.console, ms, sockets);
      servers.push(server);
      return { ...n, console_host: '127.0.0.1', console: (server.address() as AddressInfo).port };
    }),
  );
  return {
    topology: { ...topology, nodes },
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}
