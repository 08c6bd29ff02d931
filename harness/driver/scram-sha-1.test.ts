// The native SCRAM-SHA-1 client against RFC 5802's own example exchange (4096 iterations).
import { describe, expect, it } from 'vitest';

import { NativeScramSha1, useNativeScramSha1 } from './scram-sha-1.ts';

describe('native SCRAM-SHA-1', () => {
  it("produces RFC 5802 section 5's client messages", () => {
    const mechanism = new NativeScramSha1('fyko+d2lbbFgONRv9qkxdawL');
    const credentials = { username: 'user', password: 'pencil' };
    expect(mechanism.response(credentials)).toBe('n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL');
    mechanism.challenge('r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096');
    expect(mechanism.response(credentials)).toBe(
      'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=',
    );
    expect(mechanism.response(credentials)).toBe('');
  });

  it('refuses a server nonce that does not extend its own, and escapes names', () => {
    const mechanism = new NativeScramSha1('abc');
    expect(mechanism.response({ username: 'a=b,c' })).toBe('n,,n=a=3Db=2Cc,r=abc');
    mechanism.challenge('r=xyz,s=QSXCR+Q6sek8bf92,i=4096');
    expect(() => mechanism.response({ password: 'p' })).toThrow(/unusable server-first-message/);
  });

  it('goes before the library mechanism of the same name', () => {
    const factory = { _mechs: [{ name: 'SCRAM-SHA-1', mech: 'library' as unknown }] };
    useNativeScramSha1(factory);
    expect(factory._mechs.map((entry) => entry.mech)).toEqual([NativeScramSha1, 'library']);
  });
});
