/**
 * A GNS3 console is shared: every client sees everything the device prints, and
 * whatever any client types reaches the device. With two copilots on one console
 * (a classroom), the answer to client A's command and the prompt ending it can
 * reach client B after B typed its own command but before B's echo. B must keep
 * waiting for its echo and return its own output, never A's.
 *
 * The order is forced, not raced: the console holds A's answer until B's command
 * arrives, prints it, and prints B's echo only once B's session has read that
 * prompt (a tap on B's transport says when).
 *
 * The other way round, on a busy machine A may read its answer, the prompt that ends
 * it, B's command typed at that prompt and B's output in one read: A's output ends at
 * that prompt. That order is forced too: the console hands A all of it in one write.
 * The timeouts are bounds for a loaded machine, never waits: every step waits for text.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceSession } from '../../src/devices/session.js';
import { TelnetTransport } from '../../src/devices/telnet.js';
import type { Transport } from '../../src/devices/transport.js';
import { telnetLines } from './helpers.js';

const PROMPT = 'R1# ';
const CLOCK = '*10:00:00.000 UTC Sat Dec 5 2026';
const VERSION = 'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M6';

let server: net.Server | undefined;
const sockets = new Set<net.Socket>();
const sessions: DeviceSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) s.close();
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((r) => (server?.listening ? server.close(() => r()) : r()));
  server = undefined;
});

/**
 * One IOS-like console shared by every client connected to it. `show clock` is echoed
 * at once but answered only when the next command arrives; that answer (with its prompt)
 * is printed first, then the new command's echo once `beforeEcho` resolves.
 */
async function sharedConsole(beforeEcho: () => Promise<void>, o: { coalesceFor?: () => net.Socket | undefined } = {}): Promise<number> {
  // with coalesceFor: what that client is shown between the held answer and the next command's prompt goes in one write
  let pending: string | undefined;
  const print = (text: string, flush = false) => {
    const slow = o.coalesceFor?.();
    for (const s of sockets) {
      if (s !== slow) s.write(text);
      else if (!flush) pending = (pending ?? '') + text;
      else {
        s.write((pending ?? '') + text);
        pending = undefined;
      }
    }
  };
  let held: string | undefined;
  let device = Promise.resolve(); // one CLI: lines are handled in the order they arrive
  const handle = async (line: string) => {
    if (line.startsWith('show clock')) {
      print(line + '\r\n', true);
      held = CLOCK + '\r\n' + PROMPT;
      return;
    }
    const answering = held !== undefined;
    if (held !== undefined) {
      print(held);
      held = undefined;
      await beforeEcho();
    }
    print(line + '\r\n' + (line.startsWith('show version') ? VERSION + '\r\n' : '') + PROMPT, answering || pending === undefined);
  };
  server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {});
    telnetLines(sock, (line) => {
      device = device.then(() => handle(line));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

/** Everything a client's session has been handed so far, and a wait for some text in it. */
function watcher() {
  let text = '';
  const waits: { want: string; done: () => void }[] = [];
  return {
    get text() {
      return text;
    },
    see(piece: string) {
      text += piece;
      for (const w of waits.filter((w) => text.includes(w.want))) {
        waits.splice(waits.indexOf(w), 1);
        w.done();
      }
    },
    until(want: string): Promise<void> {
      return text.includes(want) ? Promise.resolve() : new Promise((done) => waits.push({ want, done }));
    },
  };
}

/** The transport as the session sees it; `seen` hears each piece of text right after the session has it. */
function tapped(t: Transport, seen: (text: string) => void): Transport {
  return {
    kind: t.kind,
    get closed() {
      return t.closed;
    },
    write: (text) => t.write(text),
    onData: (cb) =>
      t.onData((text) => {
        cb(text);
        seen(text);
      }),
    onClose: (cb) => t.onClose(cb),
    close: () => t.close(),
  };
}

async function client(port: number, seen: (text: string) => void): Promise<DeviceSession> {
  const t = await TelnetTransport.connect({ host: '127.0.0.1', port, timeoutMs: 15_000 });
  const s = await DeviceSession.open(tapped(t, seen), {
    platform: 'cisco_ios',
    openTimeoutMs: 15_000,
    commandTimeoutMs: 20_000,
    confirmAllow: [],
    disablePaging: false,
  });
  sessions.push(s);
  return s;
}

describe('a telnet console shared by two clients', () => {
  it("a prompt ending another client's command before our echo does not end ours", async () => {
    const seenByB = watcher();
    const port = await sharedConsole(() => seenByB.until(CLOCK + '\r\n' + PROMPT));
    const a = await client(port, () => {});
    const b = await client(port, (t) => seenByB.see(t));

    const clock = a.run('show clock');
    await seenByB.until('show clock'); // A's echo is on B's screen too, before B types
    const sentAt = seenByB.text.length;
    const version = await b.run('show version');

    expect(version).toMatchObject({ command: 'show version', status: 'success', output: VERSION });
    expect(await clock).toMatchObject({ command: 'show clock', status: 'success', output: CLOCK });

    // The interleaving really happened: A's answer and prompt reached B before B's echo.
    const afterSend = seenByB.text.slice(sentAt);
    expect(afterSend.indexOf(CLOCK + '\r\n' + PROMPT)).toBeGreaterThanOrEqual(0);
    expect(afterSend.indexOf(CLOCK)).toBeLessThan(afterSend.indexOf('show version'));
    expect(b.prompt).toBe(PROMPT);
  });

  it("our answer, the prompt ending it and another client's command typed at it, in one read, end our command at that prompt", async () => {
    const seenByB = watcher();
    let slow: net.Socket | undefined;
    const port = await sharedConsole(() => seenByB.until(CLOCK + '\r\n' + PROMPT), { coalesceFor: () => slow });
    const chunksOfA: string[] = [];
    const a = await client(port, (t) => chunksOfA.push(t));
    slow = [...sockets][0]; // A connected first
    const b = await client(port, (t) => seenByB.see(t));

    const clock = a.run('show clock');
    await seenByB.until('show clock');
    const version = await b.run('show version');
    const mine = await clock;

    expect(version).toMatchObject({ command: 'show version', status: 'success', output: VERSION });
    expect(mine).toMatchObject({ command: 'show clock', status: 'success', output: CLOCK });
    expect(a.prompt).toBe(PROMPT);
    // the one read really happened: A's answer, its prompt, B's echo and B's output together
    expect(chunksOfA).toContainEqual(expect.stringContaining(`${CLOCK}\r\n${PROMPT}show version\r\n${VERSION}\r\n${PROMPT}`));
  });
});
