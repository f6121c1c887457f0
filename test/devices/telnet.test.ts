/** The telnet client's option negotiation and data decoding, against a raw TCP peer. */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TelnetTransport } from '../../src/devices/telnet.js';

const IAC = 255,
  DONT = 254,
  DO = 253,
  WONT = 252,
  WILL = 251,
  SB = 250,
  SE = 240;

let server: net.Server | undefined;
const open = new Set<net.Socket>();
afterEach(async () => {
  for (const s of open) s.destroy();
  open.clear();
  await new Promise<void>((r) => (server?.listening ? server.close(() => r()) : r()));
  server = undefined;
});

async function peer(onConn: (s: net.Socket, got: () => Buffer) => void): Promise<number> {
  server = net.createServer((s) => {
    open.add(s);
    let got = Buffer.alloc(0);
    s.on('data', (d) => (got = Buffer.concat([got, d])));
    onConn(s, () => got);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

const until = async (f: () => boolean) => {
  const end = Date.now() + 2_000;
  while (!f() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

describe('telnet client', () => {
  it('answers negotiation sensibly once and strips every command from the data', async () => {
    let sock!: net.Socket;
    let got!: () => Buffer;
    const port = await peer((s, g) => {
      sock = s;
      got = g;
      // GNS3's console: WILL ECHO, WILL SGA, WILL BINARY, DO BINARY; then DO NAWS, DO TTYPE, DO LINEMODE(34), WILL STATUS(5)
      s.write(Buffer.from([IAC, WILL, 1, IAC, WILL, 3, IAC, WILL, 0, IAC, DO, 0, IAC, DO, 31, IAC, DO, 24, IAC, DO, 34, IAC, WILL, 5]));
      s.write(Buffer.from([IAC, WILL, 1])); // repeated: must not be answered again
      s.write(Buffer.from('hello\r\0wor'));
      s.write(Buffer.from([IAC, IAC, 0x6c, IAC, 241, 0x64, 13, 10, IAC, SB, 24, 1, IAC, SE, 0x50, 0x43, 0x3e, 0x20]));
    });
    const t = await TelnetTransport.connect({ host: '127.0.0.1', port, timeoutMs: 1_000 });
    let text = '';
    t.onData((d) => (text += d));
    await until(() => text.endsWith('PC> ') && got().includes(Buffer.from('VT100')));
    // IAC IAC is a data byte 0xFF (invalid alone in UTF-8, so U+FFFD); NOP (241) and SB…SE vanish.
    expect(text).toBe('hello\rwor\ufffdld\r\nPC> ');
    const answer = [...got()];
    const has = (...b: number[]) => Buffer.from(answer).includes(Buffer.from(b));
    expect(has(IAC, DO, 1)).toBe(true);
    expect(has(IAC, DO, 3)).toBe(true);
    expect(has(IAC, DO, 0)).toBe(true);
    expect(has(IAC, WILL, 0)).toBe(true);
    expect(has(IAC, WILL, 31, IAC, SB, 31, 1, 255, 255, 0, 0, IAC, SE)).toBe(true); // NAWS 511 x 0 (0xFF doubled)
    expect(has(IAC, WILL, 24)).toBe(true);
    expect(has(IAC, SB, 24, 0, ...Buffer.from('VT100'), IAC, SE)).toBe(true);
    expect(has(IAC, WONT, 34)).toBe(true);
    expect(has(IAC, DONT, 5)).toBe(true);
    expect(answer.filter((b, i) => b === DO && answer[i + 1] === 1 && answer[i - 1] === IAC)).toHaveLength(1);
    // Data bytes 0xFF are escaped on the way out.
    const before = got().length;
    t.write('a\u00ff');
    await until(() => got().length > before);
    expect([...got().subarray(before)]).toEqual([0x61, 0xc3, 0xbf]);
    t.close();
    sock.destroy();
  });

  it('reports refused and timed-out connections clearly', async () => {
    const port = await peer((s) => s.destroy());
    await new Promise<void>((r) => server!.close(() => r()));
    await expect(TelnetTransport.connect({ host: '127.0.0.1', port, timeoutMs: 500 })).rejects.toThrow(
      /cannot connect to 127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });
});
