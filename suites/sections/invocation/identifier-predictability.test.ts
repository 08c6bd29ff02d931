// What invocation.identifiers-unpredictable decides from its samples with the predictor battery:
// IDs with at least 128 CSPRNG bits pass whatever sits beside them (a fixed text, a time field),
// a counter or a clock in place of random bits fails, and the identifiers are decoded to the bits
// they carry (base64url after a prefix, a UUID, hex, base32, another radix as one number).
// Random bytes come from SHA-256 in counter mode over fixed seeds: every run sees the same IDs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeIdentifiers } from './identifier-bits.ts';
import { judgeIdentifierSamples, REQUIRED_BITS, type IdentifierSample } from './identifier-predictability.ts';

function hashBytes(seed: string, index: number, length = 18): Buffer {
  const out = Buffer.alloc(length);
  for (let block = 0; block * 32 < length; block++) {
    createHash('sha256')
      .update(`${seed}:${String(index)}:${String(block)}`)
      .digest()
      .copy(out, block * 32);
  }
  return out;
}

const START_MS = 1_764_000_000_000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 64 task IDs made 5 to 35 ms apart from 32 random bytes each, with their creation instants. */
function tasks(make: (random: Buffer, now: number, index: number) => string, seed: string): IdentifierSample {
  const instants: number[] = [];
  let now = START_MS;
  const ids = Array.from({ length: 64 }, (_, index) => {
    now += 5 + ((hashBytes(`${seed}-gap`, index)[0] ?? 0) % 31);
    instants.push(now);
    return make(hashBytes(seed, index, 32), now, index);
  });
  return { label: 'task IDs', ids, instants };
}

function remaining(sample: IdentifierSample): number {
  const judged = judgeIdentifierSamples([sample]);
  expect(judged.falsePositiveBound).toBeLessThanOrEqual(1e-6);
  return judged.samples[0]?.remainingBits ?? Number.NaN;
}

/** Crockford base32 of a number, `length` digits. */
function crockford(value: number, length: number): string {
  let text = '';
  for (let rest = value, i = 0; i < length; i++, rest = Math.floor(rest / 32))
    text = `${CROCKFORD[rest % 32] ?? ''}${text}`;
  return text;
}

describe('identifier predictability', () => {
  it('passes IDs that keep 128 CSPRNG bits, beside a fixed text or a time field', () => {
    const permitted: Record<string, (random: Buffer, now: number) => string> = {
      'reference (144 bits)': (random) => `task-${random.subarray(0, 18).toString('base64url')}`,
      'fixed text, exactly 128 bits': (random) =>
        `gw-node-0001.task-${random.subarray(0, 16).toString('base64url')}`,
      'time field, then 128 bits': (random, now) =>
        `task-${now.toString(36)}-${random.subarray(0, 16).toString('base64url')}`,
      'hex, 128 bits': (random) => random.subarray(0, 16).toString('hex'),
      'UUIDv7 layout widened to 128 random bits': (random, now) =>
        `${now.toString(16).padStart(12, '0')}-${random.subarray(0, 16).toString('hex')}`,
      'ULID time, then 130 random bits of Crockford base32': (random, now) =>
        crockford(now, 10) + Array.from(random.subarray(0, 26), (byte) => CROCKFORD[byte % 32]).join(''),
      'base62, 22 characters (131 bits)': (random) =>
        Array.from(
          random.subarray(0, 22),
          (byte, i) => BASE62[(byte + (random[(i + 7) % 18] ?? 0) * 256) % 62],
        ).join(''),
    };
    for (const [name, make] of Object.entries(permitted)) {
      expect(remaining(tasks(make, name)), name).toBeGreaterThanOrEqual(REQUIRED_BITS);
    }
  });

  it('fails a counter in the low four bytes and a millisecond clock in the high six', () => {
    let counter = 700;
    const counted = tasks((random) => {
      counter += 4;
      random.writeUInt32BE(counter, 14);
      return `task-${random.subarray(0, 18).toString('base64url')}`;
    }, 'counter');
    expect(remaining(counted)).toBeLessThan(REQUIRED_BITS);
    const clocked = tasks((random, now) => {
      random.writeUIntBE(now, 0, 6);
      return `task-${random.subarray(0, 18).toString('base64url')}`;
    }, 'clock');
    expect(remaining(clocked)).toBeLessThan(REQUIRED_BITS);
  });

  it('fails a UUIDv4: six of its 128 bits are fixed, 122 are random', () => {
    const uuids = tasks((random) => {
      const bytes = Buffer.from(random.subarray(0, 16));
      bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
      bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }, 'uuid');
    const judged = judgeIdentifierSamples([uuids]).samples[0];
    expect(judged?.encoding).toContain('a UUID');
    expect(judged?.predictable.map((test) => test.position)).toEqual([48, 49, 50, 51, 64, 65]);
    expect(judged?.remainingBits).toBe(122);
  });

  it('decodes the bits the bodies carry', () => {
    const base64 = decodeIdentifiers(
      tasks((random) => `evt-${random.subarray(0, 18).toString('base64url')}`, 'b64').ids,
    );
    expect(base64?.encoding).toBe('the 24 characters after "evt-", base64url digits');
    expect(base64?.capacityBits).toBe(144);
    expect(base64?.rows[0]?.length).toBe(144);
    expect(base64?.wordEnds).toContain(112);
    const radix62 = decodeIdentifiers(
      tasks((random) => Array.from(random.subarray(0, 18), (byte) => BASE62[byte % 62]).join(''), 'b62').ids,
    );
    expect(radix62?.encoding).toContain('base62 digits read as one number');
    expect(radix62?.capacityBits).toBeCloseTo(18 * Math.log2(62), 6);
    expect(Math.max(...(radix62?.bias ?? []))).toBeLessThanOrEqual(2 ** -16);
    expect(decodeIdentifiers(['short', 'other'])).toBeUndefined();
    expect(decodeIdentifiers(Array.from({ length: 20 }, () => 'task-same'))).toBeUndefined();
  });
});
