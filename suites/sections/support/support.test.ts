// The registration suites' helpers: fresh identities replay from the seed but never repeat
// across attempts of a case (a flake re-run has the same seed), and the bad manifest fixtures
// keep their defect once re-targeted at a fresh JID and version.
import { describe, expect, it } from 'vitest';
import { validateManifestBytes } from '../../../protocol/manifest/validate-manifest.ts';
import type { CaseContext } from '../../framework/context.ts';
import { SeededRandom } from '../../framework/seeded-random.ts';
import { badManifest, fullManifest, minimalManifest } from './manifests.ts';
import { freshEndpoint, freshToken } from './provisioning.ts';

function attempt(seed: number): CaseContext {
  return {
    sut: { gatewayJid: 'agents.example' },
    random: new SeededRandom(seed),
  } as unknown as CaseContext;
}

describe('fresh identities', () => {
  it('replay from the seed on the first attempt and differ on the re-run', () => {
    const seed = 918_273_645;
    const expected = new SeededRandom(seed).string('abcdefghijklmnopqrstuvwxyz0123456789', 8);
    const first = freshToken(attempt(seed));
    const rerun = freshToken(attempt(seed));
    expect(first).toBe(expected);
    expect(rerun).toBe(`${expected}r1`);
    expect(freshToken(attempt(seed))).toBe(`${expected}r2`);
  });

  it('stay the same within one attempt and name endpoints on the gateway domain', () => {
    const context = attempt(5);
    const a = freshEndpoint(context, 'probe');
    const b = freshEndpoint(context, 'probe');
    expect(a.jid).toMatch(/^agentconf-probe-[a-z0-9]{8}@agents\.example$/);
    expect(b.jid).not.toBe(a.jid);
  });
});

describe('manifests', () => {
  const JID = 'agentconf-test-abc@agents.example';

  it('builds a minimal and a full manifest the reference validator accepts', async () => {
    for (const manifest of [minimalManifest(JID, '1.0.0-x'), fullManifest(JID, '1.0.0-y')]) {
      const result = await validateManifestBytes(JSON.stringify(manifest));
      expect(result.ok ? [] : result.violations).toEqual([]);
    }
  });

  it.each([
    'json.duplicate-member',
    'json.lone-surrogate',
    'json.number-overflow',
    'schema.const',
    'schema.required',
    'schema.pattern',
    'uri.userinfo',
    'uri.fragment',
    'tool-name.duplicate',
    'tool-name.xml-illegal-character',
    'value.unservable-character',
  ])('re-targets bad/%s at a fresh JID and version and keeps its defect', async (name) => {
    const text = badManifest(name, JID, '7.7.7-fresh');
    expect(text).not.toContain('weather@agents.example"');
    expect(text).toContain(JID);
    if (!['schema.required', 'schema.pattern'].includes(name)) expect(text).toContain('"7.7.7-fresh"');
    const result = await validateManifestBytes(text);
    expect(result.ok).toBe(false);
  });
});
