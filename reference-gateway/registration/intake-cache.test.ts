import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { INTAKE_LIMITS, IntakeCache } from './intake-cache.ts';
import { intakeManifest, type ManifestLimits } from './manifest-intake.ts';
import { fixtureManifestText } from './test-support/manifests.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-intake-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A cache whose full intakes are counted. */
function countingCache(fingerprint = 'code-1'): { cache: IntakeCache; full: () => number } {
  let calls = 0;
  const cache = new IntakeCache({
    dir,
    fingerprint,
    intake: (text, limits) => {
      calls += 1;
      return intakeManifest(text, limits);
    },
  });
  return { cache, full: () => calls };
}

const TEXT = fixtureManifestText('weather-full.json');

describe('IntakeCache', () => {
  it('validates a manifest once and then serves the same accepted manifest', async () => {
    const { cache, full } = countingCache();
    const first = await cache.intake(TEXT, DEFAULT_LIMITS);
    const second = await cache.intake(TEXT, DEFAULT_LIMITS);
    expect(full()).toBe(1);
    if (!first.ok || !second.ok) expect.fail('expected acceptance');
    expect(second.value.endpointJid).toBe(first.value.endpointJid);
    expect(second.value.version).toBe(first.value.version);
    expect(second.value.manifest).toEqual(first.value.manifest);
    expect(second.value.document.hash).toEqual(first.value.document.hash);
    expect(second.value.document.bytes.equals(first.value.document.bytes)).toBe(true);
  });

  it('keys on every part that decides the verdict: text, its form, each limit, the code', () => {
    const { cache } = countingCache();
    const base = cache.keyOf(TEXT, DEFAULT_LIMITS);
    const keys = [
      cache.keyOf(`${TEXT} `, DEFAULT_LIMITS),
      cache.keyOf(new TextEncoder().encode(TEXT), DEFAULT_LIMITS),
      countingCache('code-2').cache.keyOf(TEXT, DEFAULT_LIMITS),
      ...INTAKE_LIMITS.map((name) =>
        cache.keyOf(TEXT, { ...DEFAULT_LIMITS, [name]: DEFAULT_LIMITS[name] + 1 }),
      ),
    ];
    expect(new Set([base, ...keys]).size).toBe(keys.length + 1);
    // A limit the intake does not read is not a part.
    const rateLimits = { ...DEFAULT_LIMITS.rateLimits, discovery: { burst: 1, perSecond: 1 } };
    expect(cache.keyOf(TEXT, { ...DEFAULT_LIMITS, rateLimits } as ManifestLimits)).toBe(base);
  });

  it('validates again after a change of the code, of a limit or of the text', async () => {
    await countingCache('code-1').cache.intake(TEXT, DEFAULT_LIMITS);
    const changedCode = countingCache('code-2');
    await changedCode.cache.intake(TEXT, DEFAULT_LIMITS);
    expect(changedCode.full()).toBe(1);
    const same = countingCache('code-1');
    await same.cache.intake(TEXT, { ...DEFAULT_LIMITS, jsonMaxDepth: DEFAULT_LIMITS.jsonMaxDepth - 1 });
    await same.cache.intake(TEXT.replace('"1.4.0"', '"1.4.1"'), DEFAULT_LIMITS);
    expect(same.full()).toBe(2);
  });

  it('keeps no refusal: an invalid manifest is refused, with its violations, every time', async () => {
    const { cache, full } = countingCache();
    const invalid = TEXT.replace('"1.4.0"', '"not a version"');
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await cache.intake(invalid, DEFAULT_LIMITS);
      expect(outcome.ok).toBe(false);
    }
    expect(full()).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never trusts an entry whose hash is not the text canonical hash, nor a corrupt one', async () => {
    const { cache, full } = countingCache();
    const key = cache.keyOf(TEXT, DEFAULT_LIMITS);
    writeFileSync(join(dir, key), JSON.stringify({ hash: 'AAAA' }));
    expect((await cache.intake(TEXT, DEFAULT_LIMITS)).ok).toBe(true);
    writeFileSync(join(dir, key), '{"hash": ');
    expect((await cache.intake(TEXT, DEFAULT_LIMITS)).ok).toBe(true);
    expect(full()).toBe(2);
  });

  it('removes entries written longer ago than it keeps them, at its first write', async () => {
    const old = join(dir, 'an-old-entry');
    const recent = join(dir, 'a-recent-entry');
    writeFileSync(old, '{}');
    writeFileSync(recent, '{}');
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(old, longAgo, longAgo);
    const cache = new IntakeCache({ dir, fingerprint: 'code-1', keptMs: 30_000 });
    await cache.intake(TEXT, DEFAULT_LIMITS);
    expect(readdirSync(dir).sort()).toEqual([cache.keyOf(TEXT, DEFAULT_LIMITS), 'a-recent-entry'].sort());
  });

  it('validates every time when its folder cannot be written', async () => {
    writeFileSync(join(dir, 'file'), '');
    let calls = 0;
    const cache = new IntakeCache({
      dir: join(dir, 'file', 'below-a-file'),
      fingerprint: 'code-1',
      intake: (text, limits) => {
        calls += 1;
        return intakeManifest(text, limits);
      },
    });
    expect((await cache.intake(TEXT, DEFAULT_LIMITS)).ok).toBe(true);
    expect((await cache.intake(TEXT, DEFAULT_LIMITS)).ok).toBe(true);
    expect(calls).toBe(2);
  });
});
