/**
 * The small security modules in-process (the quick loop and the mutation run):
 * the event stream's redaction boundary, the string walker it uses on event
 * payloads, and the TLS failure wording shared by the controller and LLM clients.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { RedactingEventQueue } from '../../src/security/events.js';
import { mapStrings } from '../../src/security/map-strings.js';
import { REDACTED } from '../../src/security/redact.js';
import { TLS_CODES, tlsHint } from '../../src/security/tls.js';

async function drain(q: RedactingEventQueue): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of q) out.push(e);
  return out;
}

describe('RedactingEventQueue', () => {
  it('redacts every other event whole, after releasing the text held before it', async () => {
    const q = new RedactingEventQueue();
    q.push({ type: 'content', delta: 'checking the pass' });
    q.push({ type: 'notice', message: 'login with password=hunter22 failed' });
    q.end();
    expect(await drain(q)).toEqual([
      { type: 'content', delta: 'checking the ' },
      { type: 'content', delta: 'pass' },
      { type: 'notice', message: `login with password=${REDACTED} failed` },
    ]);
  });

  it('an empty delta releases the held word; nothing is pushed when nothing is held', async () => {
    const q = new RedactingEventQueue();
    q.push({ type: 'content', delta: 'plain words ' });
    q.push({ type: 'content', delta: '' });
    q.push({ type: 'content', delta: 'token' });
    q.push({ type: 'content', delta: '' });
    q.end();
    expect(await drain(q)).toEqual([
      { type: 'content', delta: 'plain words ' },
      { type: 'content', delta: 'token' },
    ]);
  });

  it('a held word waits for the next delta, and is released by the timer when none comes', async () => {
    const q = new RedactingEventQueue();
    const it = q[Symbol.asyncIterator]();
    q.push({ type: 'content', delta: 'the sec' });
    expect((await it.next()).value).toEqual({ type: 'content', delta: 'the ' });
    q.push({ type: 'content', delta: 'ond try' });
    // "second" is complete; "try" is ordinary: nothing is held any more
    expect((await it.next()).value).toEqual({ type: 'content', delta: 'second try' });
    q.push({ type: 'content', delta: ' and api' });
    expect((await it.next()).value).toEqual({ type: 'content', delta: ' and ' });
    expect((await it.next()).value).toEqual({ type: 'content', delta: 'api' });
    q.end();
    expect((await it.next()).done).toBe(true);
  });
});

describe('mapStrings', () => {
  it('maps strings in nested arrays and plain objects; keeps other values and non-plain objects', () => {
    const date = new Date(0);
    const up = (s: string) => s.toUpperCase();
    expect(mapStrings('a', up)).toBe('A');
    expect(mapStrings({ a: ['b', { c: 'd', n: 1, t: true, z: null }], date }, up)).toEqual({
      a: ['B', { c: 'D', n: 1, t: true, z: null }],
      date,
    });
    expect(mapStrings({ date }, up).date).toBe(date);
    class Box {
      v = 'x';
    }
    const box = new Box();
    expect(mapStrings(box, up)).toBe(box);
    expect(box.v).toBe('x');
    expect(mapStrings(undefined, up)).toBeUndefined();
    expect(mapStrings(7, up)).toBe(7);
  });
});

describe('TLS wording', () => {
  it('a protocol mismatch is a handshake failure; a certificate problem names its code and the hint', () => {
    for (const code of ['ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO'])
      expect(tlsHint(code, 'use --insecure')).toBe('TLS handshake failed (is the server plain http?)');
    expect(tlsHint('CERT_HAS_EXPIRED', 'use --insecure')).toBe('TLS error CERT_HAS_EXPIRED (use --insecure)');
  });

  it('knows the certificate and protocol failures, and nothing else', () => {
    expect([...TLS_CODES].sort()).toEqual(
      [
        'CERT_HAS_EXPIRED',
        'CERT_NOT_YET_VALID',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'EPROTO',
        'ERR_SSL_WRONG_VERSION_NUMBER',
        'ERR_TLS_CERT_ALTNAME_INVALID',
        'SELF_SIGNED_CERT_IN_CHAIN',
        'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      ].sort(),
    );
    expect(TLS_CODES.has('ECONNREFUSED')).toBe(false);
  });
});
