/**
 * redact() and StreamRedactor in-process (the quick loop and the mutation
 * run): the encoded forms of a registered secret, a bare Bearer token, the
 * password-name heuristic, overlapping secrets, the minimum secret length and
 * the words the streaming redactor holds back.
 */
import { describe, expect, it } from 'vitest';
import {
  MIN_SECRET,
  REDACTED,
  redact,
  redactDeep,
  redactingSerde,
  registerSecret,
  registerSecretsFromEnv,
  StreamRedactor,
} from '../../src/security/redact.js';

describe('registered secrets', () => {
  it('removes the JSON-escaped and URL-encoded forms too', () => {
    const secret = 'pa"ss\\wo rd/?&42';
    registerSecret(secret);
    const json = JSON.stringify({ password_field: secret });
    expect(json).toContain('pa\\"ss\\\\wo');
    expect(redact(json)).toBe(`{"password_field":"${REDACTED}"}`);
    expect(JSON.parse(redact(json))).toEqual({ password_field: REDACTED });
    const url = `http://h/x?k=${encodeURIComponent(secret)}&y=1`;
    expect(redact(url)).toBe(`http://h/x?k=${REDACTED}&y=1`);
    expect(redact(`raw ${secret} end`)).toBe(`raw ${REDACTED} end`);
  });

  it('replaces the longest of two overlapping secrets whole', () => {
    registerSecret('abcdef12');
    registerSecret('abcdef12345678');
    expect(redact('x abcdef12345678 y')).toBe(`x ${REDACTED} y`);
    expect(redact('x abcdef12 y')).toBe(`x ${REDACTED} y`);
    // registered in the other order the result is the same
    registerSecret('zz-long-secret-value');
    registerSecret('zz-long');
    expect(redact('[zz-long-secret-value]')).toBe(`[${REDACTED}]`);
  });

  it(`registers values of ${MIN_SECRET} characters or more only`, () => {
    expect(MIN_SECRET).toBe(6);
    registerSecret('c1sc0');
    expect(redact('enable c1sc0')).toBe('enable c1sc0');
    registerSecret('qwe9rt');
    expect(redact('enable qwe9rt')).toBe(`enable ${REDACTED}`);
    registerSecret('');
    registerSecret(undefined);
    registerSecret(null);
    expect(redact('nothing here')).toBe('nothing here');
  });

  it('registers env vars whose names end in API_KEY, APIKEY, PASSWORD, PASSWD, TOKEN or SECRET', () => {
    registerSecretsFromEnv({
      A_API_KEY: 'val-apikey-1',
      B_APIKEY: 'val-apikey-2',
      C_PASSWORD: 'val-password',
      D_PASSWD: 'val-passwd',
      E_TOKEN: 'val-token-e',
      F_SECRET: 'val-secret-f',
      G_TOKENS_USED: 'val-not-secret',
      H_secret: 'val-lower-secret',
    });
    for (const v of ['val-apikey-1', 'val-apikey-2', 'val-password', 'val-passwd', 'val-token-e', 'val-secret-f', 'val-lower-secret'])
      expect(redact(`x ${v} y`), v).toBe(`x ${REDACTED} y`);
    expect(redact('x val-not-secret y')).toBe('x val-not-secret y');
  });
});

describe('credential shapes', () => {
  it('a bare Bearer token (a GNS3 JWT in an error body) is removed', () => {
    expect(redact('401: invalid Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl for /v3')).toBe(
      `401: invalid Bearer ${REDACTED} for /v3`,
    );
    expect(redact('bearer abcdefgh')).toBe(`bearer ${REDACTED}`);
    // too short to be a token: prose
    expect(redact('the bearer of bad news')).toBe('the bearer of bad news');
  });

  it('Authorization headers of every scheme and quoting', () => {
    expect(redact('Authorization: Basic dXNlcjpwYXNz')).toBe(`Authorization: Basic ${REDACTED}`);
    expect(redact('{"authorization":"Bearer abc.def.ghi"}')).toBe(`{"authorization":"Bearer ${REDACTED}"}`);
    expect(redact("Proxy-Authorization='Digest abcdef'")).toBe(`Proxy-Authorization='Digest ${REDACTED}'`);
    expect(redact('authorization=rawvalue123')).toBe(`authorization=${REDACTED}`);
    expect(redact('Authorization: Token t0k3nvalue')).toBe(`Authorization: Token ${REDACTED}`);
  });

  it('sk- keys and URL userinfo', () => {
    expect(redact('key sk-proj-abcdefghijklmnopqrstuv!')).toBe(`key sk-${REDACTED}!`);
    expect(redact('sk-short')).toBe('sk-short');
    expect(redact('see http://alice:pw1234@10.0.0.1:3080/v3')).toBe(`see http://alice:${REDACTED}@10.0.0.1:3080/v3`);
    expect(redact('see https://10.0.0.1:3080/v3 and mail bob@x.org')).toBe('see https://10.0.0.1:3080/v3 and mail bob@x.org');
  });

  it('name=value pairs: a password name is always a secret, other names when the value looks like one', () => {
    expect(redact('password: letteronly')).toBe(`password: ${REDACTED}`);
    expect(redact('passwd: letteronly')).toBe(`passwd: ${REDACTED}`);
    expect(redact('a secret: store it safely')).toBe('a secret: store it safely');
    expect(redact('client_secret: abc123xyz')).toBe(`client_secret: ${REDACTED}`);
    expect(redact('api_key=letteronly')).toBe(`api_key=${REDACTED}`);
    expect(redact('{"access_token": "letteronly"}')).toBe(`{"access_token": "${REDACTED}"}`);
    expect(redact("refresh-token: 'letteronly'")).toBe(`refresh-token: '${REDACTED}'`);
    expect(redact('x-api-key: k3y-v4lue')).toBe(`x-api-key: ${REDACTED}`);
    expect(redact('apikey: abc')).toBe('apikey: abc'); // under 4 characters: not a credential
    expect(redact('password: [REDACTED]')).toBe('password: [REDACTED]');
  });

  it('redactDeep and the checkpoint serde apply the same filter', async () => {
    expect(redactDeep({ a: ['password=hunter22'], b: 1 })).toEqual({ a: [`password=${REDACTED}`], b: 1 });
    const inner = {
      dumpsTyped: async (obj: unknown): Promise<[string, Uint8Array | string]> => ['json', new TextEncoder().encode(JSON.stringify(obj))],
      loadsTyped: async (_t: string, d: Uint8Array | string) =>
        JSON.parse(typeof d === 'string' ? d : new TextDecoder().decode(d)) as unknown,
    };
    const serde = redactingSerde(inner);
    const [type, data] = await serde.dumpsTyped({ m: 'access_token=abcdefgh1' });
    expect(type).toBe('json');
    expect(new TextDecoder().decode(data as Uint8Array)).toBe(`{"m":"access_token=${REDACTED}"}`);
    const clean = await serde.dumpsTyped({ m: 'nothing' });
    expect(new TextDecoder().decode(clean[1] as Uint8Array)).toBe('{"m":"nothing"}');
    // nothing to remove: the serializer's own bytes go through untouched, not a copy
    const mine = new TextEncoder().encode('{"m":"nothing"}');
    const same = redactingSerde({ ...inner, dumpsTyped: async (_obj: unknown): Promise<[string, Uint8Array | string]> => ['json', mine] });
    expect((await same.dumpsTyped({}))[1]).toBe(mine);
  });

  it('the checkpoint serde keeps a string a string, and leaves non-JSON payloads alone', async () => {
    const asText = redactingSerde({
      dumpsTyped: async (obj: unknown): Promise<[string, Uint8Array | string]> => ['json', JSON.stringify(obj)],
      loadsTyped: async () => undefined,
    });
    const [, text] = await asText.dumpsTyped({ m: 'password=hunter22' });
    expect(text).toBe(`{"m":"password=${REDACTED}"}`);
    const bytes = new TextEncoder().encode('password=hunter22');
    const raw = redactingSerde({
      dumpsTyped: async (_obj: unknown): Promise<[string, Uint8Array | string]> => ['bytes', bytes],
      loadsTyped: async () => undefined,
    });
    const [type, data] = await raw.dumpsTyped({});
    expect(type).toBe('bytes');
    expect(data).toBe(bytes);
  });
});

describe('StreamRedactor', () => {
  const KEYWORDS = [
    'authorization',
    'bearer',
    'basic',
    'sk-',
    'password',
    'passwd',
    'secret',
    'token',
    'api_key',
    'api-key',
    'apikey',
    'x-api-key',
    'access_token',
    'client_secret',
  ];

  it('holds a trailing word that could begin a credential keyword', () => {
    for (const k of KEYWORDS) {
      const s = new StreamRedactor();
      const partial = k.slice(0, -1);
      expect(s.push(`see ${partial}`), k).toBe('see ');
      expect(s.flush(), k).toBe(partial);
    }
  });

  it('releases ordinary words at once', () => {
    const s = new StreamRedactor();
    expect(s.push('hello world')).toBe('hello world');
    expect(s.push(' more')).toBe(' more');
    expect(s.flush()).toBe('');
  });

  it('holds a trailing word that could begin a registered secret, and a URL', () => {
    registerSecret('Qz7-unique-valu9');
    const s = new StreamRedactor();
    expect(s.push('value Qz7-uni')).toBe('value ');
    expect(s.push('que-valu9 done')).toBe(`${REDACTED} done`);
    const u = new StreamRedactor();
    expect(u.push('go http://')).toBe('');
    expect(u.push('alice:pw1234@h/ ok\n')).toBe(`go http://alice:${REDACTED}@h/ ok\n`);
  });

  it('holds a line that mentions a credential until it ends', () => {
    const s = new StreamRedactor();
    expect(s.push('ok\nthe password is hun')).toBe('ok\n');
    expect(s.push('ter2 ')).toBe('');
    expect(s.push('really\nnope')).toBe(`the password is hunter2 really\nnope`);
    const t = new StreamRedactor();
    expect(t.push('Authoriz')).toBe('');
    expect(t.push('ation: Bearer abcdefgh')).toBe('');
    expect(t.push('12345 ok\n')).toBe(`Authorization: Bearer ${REDACTED} ok\n`);
  });

  it('holds a word ending in the first characters of a secret, down to one character', () => {
    registerSecret('Wq4vXe8bNz');
    const one = new StreamRedactor();
    expect(one.push('the key xyW')).toBe('the key ');
    expect(one.push('q4vXe8bNz done')).toBe(`xy${REDACTED} done`);
    const some = new StreamRedactor();
    expect(some.push('id ab12Wq4v')).toBe('id ');
    expect(some.push('Xe8bNz.')).toBe(`ab12${REDACTED}.`);
  });

  it('a credential-looking line is held only up to 4 KB, then released redacted', () => {
    const under = new StreamRedactor();
    const line = 'password: ' + 'z'.repeat(4_095 - 'password: '.length);
    expect(under.push(line)).toBe('');
    expect(under.flush()).toBe(`password: ${REDACTED}`);
    const at = new StreamRedactor();
    // exactly 4 KB without a line end: no longer held (its last word is too long to be held either)
    const full = 'password: ' + 'z'.repeat(4_096 - 'password: '.length);
    expect(at.push(full)).toBe(`password: ${REDACTED}`);
    expect(at.flush()).toBe('');
  });

  it('a credential-looking line is held from its own start, however much text came before it', () => {
    const s = new StreamRedactor();
    const before = 'y'.repeat(3_000) + '\n';
    expect(s.push(before + 'password: zz')).toBe(before);
    expect(s.push('zz9 ok\n')).toBe(`password: ${REDACTED} ok\n`);
  });

  it('a word that could begin a keyword is held only while shorter than 1 KB', () => {
    const held = new StreamRedactor();
    const short = 'x'.repeat(1_019) + 'pas'; // 1,022 characters
    expect(held.push(`ok ${short}`)).toBe('ok ');
    expect(held.flush()).toBe(short);
    const released = new StreamRedactor();
    const long = 'x'.repeat(1_021) + 'pas'; // 1,024 characters
    expect(released.push(long)).toBe(long);
    const longer = new StreamRedactor();
    expect(longer.push('x'.repeat(1_100) + 'pas')).toBe('x'.repeat(1_100) + 'pas');
  });
});
