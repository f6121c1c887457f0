/**
 * The warm process's pieces in this process: each request's own env, stdout/stderr, exit and
 * signals while several run at once (src/boot/warm/process-scope.ts; the patches are process-wide,
 * so this file stays isolated), the socket framing, and which command lines go warm.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { FrameReader, frame, type FrameKind } from '../../src/boot/warm/frames.js';
import { RequestProcess, asRequest, installProcessScope } from '../../src/boot/warm/process-scope.js';
import { promptOnCommandLine } from '../../src/boot/warm/client.js';
import { inOwnRun, runState } from '../../src/core/run-state.js';

interface Seen {
  out: string;
  err: string;
  codes: number[];
  handedBack?: true;
}

function request(env: Record<string, string>): { r: RequestProcess; seen: Seen } {
  const seen: Seen = { out: '', err: '', codes: [] };
  const r = new RequestProcess({
    env,
    tty: { stdin: false, stdout: false, stderr: true },
    colorDepth: 8,
    write: (stream, bytes) => (stream === 'O' ? (seen.out += bytes.toString()) : (seen.err += bytes.toString())),
    end: (code) => seen.codes.push(code),
    handBack: () => (seen.handedBack = true),
  });
  return { r, seen };
}

describe('a request in the warm process sees a process of its own', () => {
  installProcessScope();
  const realHome = process.env.HOME;
  afterAll(() => expect(process.env.HOME).toBe(realHome));

  it('env, stdout, stderr and exit per request, while two run at once; outside them the real process', async () => {
    const a = request({ WHO: 'a', HOME: '/home/a' });
    const b = request({ WHO: 'b' });
    const run = (x: { r: RequestProcess }, code: number) =>
      asRequest(x.r, async () => {
        for (let i = 0; i < 3; i++) {
          await sleep(5);
          process.stdout.write(`${process.env.WHO}${i} `);
        }
        process.stderr.write(`${Object.keys(process.env).sort().join(',')}|${process.stderr.isTTY}|${process.stdin.isTTY}`);
        process.env.SET_BY_RUN = process.env.WHO;
        process.exit(code);
        process.stdout.write('after exit');
      });
    await Promise.all([run(a, 3), run(b, 0)]);
    expect(a.seen).toEqual({ out: 'a0 a1 a2 ', err: 'HOME,WHO|true|false', codes: [3] });
    expect(b.seen).toEqual({ out: 'b0 b1 b2 ', err: 'WHO|true|false', codes: [0] });
    expect(process.env.SET_BY_RUN).toBeUndefined();
    expect(process.env.WHO).toBeUndefined();
    expect(process.env.HOME).toBe(realHome);
    expect(a.r.stderr.hasColors(256)).toBe(true);
    expect(a.r.stdout.hasColors()).toBe(false);
  });

  it("a signal reaches only its request's listeners; process-wide handlers a request installs are not kept", async () => {
    const a = request({ WHO: 'a' });
    const b = request({ WHO: 'b' });
    const heard: string[] = [];
    const before = process.listenerCount('uncaughtException');
    for (const [x, name] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      asRequest(x.r, () => {
        // a listener runs in its request, whoever delivers the signal (the socket's handler is in none)
        process.on('SIGINT', () => heard.push(`${name} SIGINT ${process.env.WHO}`));
        process.once('SIGTERM', () => heard.push(`${name} SIGTERM ${process.env.WHO}`));
        process.on('uncaughtException', () => heard.push('never'));
        expect(process.listenerCount('SIGINT')).toBe(1);
      });
    }
    expect(process.listenerCount('uncaughtException')).toBe(before);
    expect(process.listeners('SIGINT').length).toBe(0);
    // outside every request the listener methods are the process's own
    const outside = () => heard.push('outside');
    process.on('warm-scope-test', outside);
    process.emit('warm-scope-test' as 'exit', 0);
    expect(process.listenerCount('warm-scope-test')).toBe(1);
    process.off('warm-scope-test', outside);
    expect(process.listenerCount('warm-scope-test')).toBe(0);
    expect(heard.splice(0)).toEqual(['outside']);
    a.r.signal('SIGINT');
    b.r.signal('SIGTERM');
    b.r.signal('SIGTERM');
    a.r.signal('SIGKILL');
    expect(heard).toEqual(['a SIGINT a', 'b SIGTERM b']);
  });

  it('a run that reads stdin goes back to the client: nothing of it is sent after that', async () => {
    const a = request({});
    await asRequest(a.r, async () => {
      process.stderr.write('before ');
      let piped = '';
      for await (const chunk of process.stdin) piped += String(chunk);
      process.stderr.write(`read "${piped}"`);
      process.exit(2);
    });
    expect(a.seen).toEqual({ out: '', err: 'before ', codes: [], handedBack: true });
  });

  it("each request keeps its own run state (a Ctrl-C'd run, --verbose) apart from the process's", async () => {
    const a = request({});
    await asRequest(a.r, () =>
      inOwnRun(async () => {
        runState().signalled = true;
        runState().verbose = true;
        await sleep(1);
        expect(runState().signalled).toBe(true);
      }),
    );
    expect(runState()).toMatchObject({ signalled: false, verbose: false });
  });
});

describe('the warm socket', () => {
  it('frames come out whole whatever the chunks they arrive in', () => {
    const sent: [FrameKind, string][] = [
      ['R', JSON.stringify({ argv: ['-p', 'é'] })],
      ['O', ''],
      ['E', 'x'.repeat(70_000)],
      ['X', '{"code":7}'],
    ];
    const bytes = Buffer.concat(sent.map(([k, p]) => frame(k, p)));
    for (const size of [1, 3, 5, 4096, bytes.length]) {
      const got: [FrameKind, string][] = [];
      const reader = new FrameReader((k, p) => got.push([k, p.toString()]));
      for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size));
      expect(got).toEqual(sent);
    }
  });

  it('goes warm only with the prompt on the command line', () => {
    expect(promptOnCommandLine(['-p', 'x', '--json'])).toBe(true);
    expect(promptOnCommandLine(['--prompt=x'])).toBe(true);
    expect(promptOnCommandLine(['-pshow routes'])).toBe(true);
    expect(promptOnCommandLine(['--json', '--prompt', 'x'])).toBe(true);
    expect(promptOnCommandLine(['--estimate', '--json'])).toBe(false); // the prompt is piped: stdin is the client's
    expect(promptOnCommandLine(['--project', 'lab'])).toBe(false);
    expect(promptOnCommandLine(['--', '-p'])).toBe(false);
    expect(promptOnCommandLine(['--print'])).toBe(false);
  });
});
