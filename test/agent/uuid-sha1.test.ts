import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { v5 } from '@langchain/core/utils/uuid';
import sha1 from '../../src/agent/uuid-sha1.js';

/** RFC 4122 v5 from a hash function, step for step as @langchain/core's v35 does it */
function uuidV5(hash: (b: Uint8Array) => Uint8Array, name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const bytes = hash(new Uint8Array([...ns, ...Buffer.from(name, 'utf8')]));
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(bytes.subarray(0, 16)).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('native SHA-1 for uuid v5 (replaces @langchain/core’s in the bundle)', () => {
  it('gives the ids @langchain/core’s own SHA-1 gives, for LangGraph-like task names', () => {
    const ns = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    const names = ['', 'a', JSON.stringify(['1ef0', 3, '__pregel_pull', 'llm_call', 'é日本🚀']), 'x'.repeat(1000)];
    for (const name of names) expect(uuidV5(sha1, name, ns)).toBe(v5(name, ns));
  });

  it('returns a fresh, writable Uint8Array of the 20 digest bytes', () => {
    const a = sha1(new Uint8Array([1, 2, 3]));
    expect(a).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(a).toString('hex')).toBe(
      createHash('sha1')
        .update(new Uint8Array([1, 2, 3]))
        .digest('hex'),
    );
    a[0] = 0;
    expect(sha1(new Uint8Array([1, 2, 3]))[0]).not.toBe(0);
  });
});
