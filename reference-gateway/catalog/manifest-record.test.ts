import { describe, expect, it } from 'vitest';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { intakeManifest } from '../registration/manifest-intake.ts';
import { fixtureManifestText } from '../registration/test-support/manifests.ts';
import { buildManifestRecord } from './manifest-record.ts';

async function accepted(name: string) {
  const outcome = await intakeManifest(fixtureManifestText(name), DEFAULT_LIMITS);
  if (!outcome.ok) expect.fail(JSON.stringify(outcome.fault));
  return outcome.value;
}

describe('buildManifestRecord (#manifest-retrieval, #list-tools, #schemas)', () => {
  it('carries the canonical document and per-tool schema documents of the full example', async () => {
    const { endpointJid, manifest, document } = await accepted('weather-full.json');
    const record = buildManifestRecord(endpointJid, manifest);
    expect(record.jid).toBe('weather@agents.example');
    expect(record.version).toBe('1.4.0');
    expect(record.document.bytes.equals(document.bytes)).toBe(true);
    expect(record.document.hash.value).toBe('fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=');
    const [tool] = record.tools;
    expect(tool?.name).toBe('forecast.get');
    // The schema vectors of interp-01.
    expect(tool?.inputSchema.hash.value).toBe('XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=');
    expect(tool?.outputSchema?.hash.value).toBe('JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA=');
  });

  it('leaves outputSchema undefined when the tool has none', async () => {
    const { endpointJid, manifest } = await accepted('weather-2.0.0.json');
    const alerts = buildManifestRecord(endpointJid, manifest).tools.find((t) => t.name === 'alerts.list');
    expect(alerts?.outputSchema).toBeUndefined();
    expect(alerts?.inputSchema).toEqual(canonicalDocument(alerts?.definition.inputSchema as JsonValue));
  });

  it('orders tools by the UTF-8 octets of their names, not by UTF-16 code units', async () => {
    const { endpointJid, manifest } = await accepted('toolbox.json');
    const names = buildManifestRecord(endpointJid, manifest).tools.map((t) => t.name);
    const octetOrder = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(names).toEqual(octetOrder);
    // The fixture is built so that JavaScript's default order differs.
    expect([...names].sort()).not.toEqual(names);
    expect(names.indexOf('\ue000.private-use')).toBeLessThan(names.indexOf('\u{10000}.linear-b'));
    expect(names.indexOf('\uffef.halfwidth')).toBeLessThan(names.indexOf('\u{1F600}.grin'));
    expect(names.slice(0, 3)).toEqual(['A', 'Zeta', 'tool with spaces']);
  });
});
