#!/usr/bin/env node
// A GNS3-like telnet console for one lab device (plain JS so it starts in
// ~40 ms without a TypeScript loader; test/lab/lab.ts spawns it).
//
//   node console-bridge.mjs pty  <shell command>   one persistent process under a pty
//   node console-bridge.mjs unix <socket path>      raw TCP -> unix socket forwarder
//
// Listens on 127.0.0.1 (port 0 = any free one; CONSOLE_PORT env to pin) and
// prints `READY <port>` on stdout once listening.
//
// pty mode behaves like a GNS3 console in front of a router: the device process
// (vtysh) lives across client connections, each connection gets IAC WILL ECHO +
// IAC WILL SGA, telnet bytes are stripped from client input, and every line
// ending (`\r\n`, `\r\0`, `\n`, `\r`) is exactly one Enter. Output produced
// while no client is connected is discarded (the next client sees nothing until
// it presses Enter, as on a GNS3 console after the first connection). When the
// device process exits it is restarted, like a console reattaching.
import { spawn } from 'node:child_process';
import net from 'node:net';

const [mode, target] = process.argv.slice(2);
if ((mode !== 'pty' && mode !== 'unix') || !target) {
  process.stderr.write('usage: console-bridge.mjs pty <command> | unix <socket>\n');
  process.exit(2);
}

const IAC = 255;
const SB = 250;
const SE = 240;
const WILL = 251;
const SGA = 3;
const ECHO = 1;

/** Strips telnet commands and maps every kind of line ending to one CR. */
function createInputFilter() {
  let state = 'data'; // data | iac | opt | sb | sbiac
  let lastCr = false;
  return (chunk) => {
    const out = [];
    for (const b of chunk) {
      if (state === 'iac') {
        if (b === IAC) {
          out.push(IAC);
          state = 'data';
        } else if (b === SB) state = 'sb';
        else if (b >= WILL)
          state = 'opt'; // WILL WONT DO DONT carry one option byte
        else state = 'data';
        continue;
      }
      if (state === 'opt') {
        state = 'data';
        continue;
      }
      if (state === 'sb') {
        if (b === IAC) state = 'sbiac';
        continue;
      }
      if (state === 'sbiac') {
        state = b === SE ? 'data' : 'sb';
        continue;
      }
      if (b === IAC) {
        state = 'iac';
        continue;
      }
      if (b === 13) {
        out.push(13);
        lastCr = true;
        continue;
      }
      if ((b === 10 || b === 0) && lastCr) {
        lastCr = false;
        continue;
      }
      lastCr = false;
      out.push(b === 10 ? 13 : b);
    }
    return Buffer.from(out);
  };
}

const clients = new Set();
let child;
let stopping = false;

function startChild() {
  // `script` gives the device a real pty (node-pty is not available); -f flushes
  // every write so output reaches clients without delay.
  child = spawn('script', ['-qfc', target, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  child.stdout.on('data', (d) => {
    for (const c of clients) c.write(d);
  });
  child.stdin.on('error', () => {});
  child.on('exit', () => {
    if (!stopping) setTimeout(startChild, 100);
  });
}

function stop() {
  stopping = true;
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGHUP', stop);
// A lab whose owner died (SIGKILL, crash) must not leave consoles behind.
const owner = Number(process.env.LAB_OWNER_PID ?? 0);
if (owner > 0) {
  setInterval(() => {
    try {
      process.kill(owner, 0);
    } catch {
      stop();
    }
  }, 1000).unref();
}

let server;
if (mode === 'pty') {
  startChild();
  server = net.createServer((sock) => {
    sock.setNoDelay(true);
    clients.add(sock);
    sock.write(Buffer.from([IAC, WILL, ECHO, IAC, WILL, SGA]));
    const filter = createInputFilter();
    sock.on('data', (d) => {
      const data = filter(d);
      if (data.length > 0) child.stdin.write(data);
    });
    const drop = () => clients.delete(sock);
    sock.on('close', drop);
    sock.on('error', drop);
  });
} else {
  server = net.createServer((sock) => {
    sock.setNoDelay(true);
    const up = net.connect(target);
    up.on('connect', () => up.setNoDelay?.(true));
    sock.pipe(up);
    up.pipe(sock);
    const end = () => {
      sock.destroy();
      up.destroy();
    };
    sock.on('error', end);
    up.on('error', end);
    sock.on('close', end);
    up.on('close', end);
  });
}

server.listen(Number(process.env.CONSOLE_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
