// What invocation.identifiers-unpredictable decides from its samples with the predictor battery:
// IDs with at least 128 CSPRNG bits pass whatever sits beside them (a fixed text, a time field),
// a counter or a clock in place of random bits fails, IDs drawn from V8's Math.random fail, a
// sample too small to decode is cantTell, and the identifiers are decoded to the bits they carry
// (base64url after a prefix, a UUID, hex, base32, another radix as one number). Random bytes
// come from SHA-256 in counter mode over fixed seeds: every run sees the same IDs.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../harness/driver/index.ts';
import { V8MathRandomReplica } from '../../framework/v8-math-random.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { decodeIdentifiers } from './identifier-bits.ts';
import {
  expectUnpredictableBits,
  judgeIdentifierSamples,
  REQUIRED_BITS,
  type IdentifierSample,
} from './identifier-predictability.ts';

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

/** The bits left after the battery; the sample must not fit the Math.random model either. */
function remaining(sample: IdentifierSample): number {
  const judged = judgeIdentifierSamples([sample]);
  expect(judged.falsePositiveBound).toBeLessThanOrEqual(1e-6);
  const generator = judged.samples[0]?.generator;
  if (generator !== undefined) expect(generator.hits, sample.label).toBeLessThan(generator.critical);
  return judged.samples[0]?.remainingBits ?? Number.NaN;
}

/**
 * A gateway whose IDs come from V8's Math.random: a replica seeded from `seed` (printed in the
 * test's name), with 0 to 31 draws nobody sees (handles, stanza IDs) before each ID.
 */
function v8Gateway(seed: string): { draw: () => number; log: number[] } {
  const digest = createHash('sha256').update(seed).digest();
  const replica = new V8MathRandomReplica(
    { s0: digest.readBigUInt64BE(0), s1: digest.readBigUInt64BE(8) },
    64,
  );
  const log: number[] = [];
  return {
    log,
    draw: () => {
      const value = replica.nextMantissa() / 2 ** 52;
      log.push(value);
      return value;
    },
  };
}

function v8Ids(seed: string, idOf: (draw: () => number) => string): IdentifierSample {
  const gateway = v8Gateway(seed);
  const ids = Array.from({ length: 64 }, (_, index) => {
    const unseen = (hashBytes(`${seed}-unseen`, index)[0] ?? 0) % 32;
    for (let k = 0; k < unseen; k++) gateway.draw();
    return idOf(gateway.draw);
  });
  return { label: 'task IDs', ids };
}

const ALPHABET64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A caller whose transcript notes are dropped: expectUnpredictableBits only notes. */
const quietCaller = { transcript: { note: () => undefined } } as unknown as Caller;

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

  it("fails IDs of V8's Math.random bytes between unseen draws, and predicts the next draws (seed v8-bytes)", () => {
    const gateway = v8Gateway('v8-bytes');
    const ends: number[] = [];
    const ids = Array.from({ length: 64 }, (_, index) => {
      const unseen = (hashBytes('v8-bytes-unseen', index)[0] ?? 0) % 32;
      for (let k = 0; k < unseen; k++) gateway.draw();
      const bytes = Buffer.from(Array.from({ length: 18 }, () => Math.floor(gateway.draw() * 256)));
      ends.push(gateway.log.length);
      return `task-${bytes.toString('base64url')}`;
    });
    const judged = judgeIdentifierSamples([{ label: 'task IDs', ids }]).samples[0];
    const test = judged?.generator;
    if (test === undefined) throw new Error('the Math.random predictor applies to 144-bit IDs');
    // About 47 of 64 IDs lie inside one cache refill; the battery's positions see nothing.
    expect(test.hits).toBeGreaterThan(30);
    expect(test.hits).toBeGreaterThanOrEqual(test.critical);
    expect(test.pValue).toBeLessThan(1e-100);
    expect(judged?.remainingBits).toBeGreaterThanOrEqual(REQUIRED_BITS);
    expect(() => {
      expectUnpredictableBits(quietCaller, [{ label: 'task IDs', ids }]);
    }).toThrow(RequirementViolation);
    // A fitting ID with 18 draws left in its cache predicts the gateway's next 18 draws exactly.
    const predicted = test.matches.filter((match) => {
      const end = ends[match.row] ?? 0;
      const actual = gateway.log.slice(end, end + 18).map((value) => Math.floor(value * 256));
      return actual.length === 18 && actual.every((draw, k) => draw === match.nextDraws[k]);
    });
    expect(predicted.length).toBeGreaterThan(5);
  });

  it("fails V8's Math.random hex digits and base64url digits (seeds v8-hex, v8-base64)", () => {
    const hex = v8Ids('v8-hex', (draw) =>
      Array.from({ length: 36 }, () => Math.floor(draw() * 16).toString(16)).join(''),
    );
    const base64 = v8Ids(
      'v8-base64',
      (draw) => `evt-${Array.from({ length: 24 }, () => ALPHABET64[Math.floor(draw() * 64)] ?? '').join('')}`,
    );
    for (const sample of [hex, base64]) {
      const test = judgeIdentifierSamples([sample]).samples[0]?.generator;
      expect(test?.hits, sample.ids[0]).toBeGreaterThanOrEqual(test?.critical ?? Infinity);
    }
  });

  it('passes crypto.randomBytes IDs: the Math.random predictor is scored at its computed size', () => {
    const ids = Array.from({ length: 64 }, () => `task-${randomBytes(18).toString('base64url')}`);
    const judged = judgeIdentifierSamples([{ label: 'task IDs', ids }]);
    const test = judged.samples[0]?.generator;
    // Every ID offers one window for each of 3 draw widths and 2 orders, each fitting by chance
    // with probability 2^-16: the 16 checks' lightest combination (weight 28) cannot hide in
    // the 16 bits a 144-bit ID need not make random.
    expect(test?.nullProbability).toBe(6 * 2 ** -16);
    expect(test?.size).toBeLessThanOrEqual(judged.falsePositiveBound);
    expect(judged.falsePositiveBound).toBeLessThanOrEqual(1e-6);
    expect(test?.hits, ids.join('\n')).toBeLessThan(test?.critical ?? 0);
    // Hex digits of CSPRNG bytes: the 4- and 8-bit draw models both read these bits.
    const hex = Array.from({ length: 64 }, () => randomBytes(18).toString('hex'));
    const hexTest = judgeIdentifierSamples([{ label: 'task IDs', ids: hex }]).samples[0]?.generator;
    expect(hexTest?.nullProbability).toBe(6 * 2 ** -16);
    expect(hexTest?.hits, hex.join('\n')).toBeLessThan(hexTest?.critical ?? 0);
  });

  it('cannot tell from fewer than 16 IDs of one length, once every decodable sample passed', () => {
    const few = Array.from(
      { length: 10 },
      (_, index) => `task-${hashBytes('few', index).toString('base64url')}`,
    );
    const mixed = Array.from({ length: 40 }, (_, index) =>
      hashBytes('mixed', index, 32)
        .toString('base64url')
        .slice(0, 22 + (index % 4)),
    );
    const enough = tasks((random) => `task-${random.subarray(0, 18).toString('base64url')}`, 'enough');
    for (const [label, ids, message] of [
      ['task IDs', few, 'task IDs: 10 IDs, at most 10 of one length; the battery needs 16 of one length'],
      ['event IDs', mixed, 'event IDs: 40 IDs, at most 10 of one length; the battery needs 16 of one length'],
    ] as const) {
      let thrown: unknown;
      try {
        expectUnpredictableBits(quietCaller, [enough, { label, ids }]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CannotTell);
      expect((thrown as Error).message).toContain(message);
    }
    // A violation another sample shows is decided first.
    let counter = 0;
    const counted = tasks((random) => {
      random.writeUInt32BE((counter += 1), 14);
      return `task-${random.subarray(0, 18).toString('base64url')}`;
    }, 'counted');
    expect(() => {
      expectUnpredictableBits(quietCaller, [counted, { label: 'event IDs', ids: few }]);
    }).toThrow(RequirementViolation);
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
