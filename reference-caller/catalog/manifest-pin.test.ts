// #manifest-retrieval, #schemas: what a caller refuses to pin.
import { describe, expect, it } from 'vitest';
import { canonicalDocument, canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { PinRefused, pinManifest, verifiedSchema } from './manifest-pin.ts';

const ENDPOINT = 'weather@agents.example';
const INPUT = { type: 'object', properties: { city: { type: 'string' } } };
const DOCUMENT: JsonObject = {
  manifestSpecVersion: '0',
  agent: { jid: ENDPOINT, name: 'weather', version: '1.4.0' },
  tools: [{ name: 'forecast.get', inputSchema: INPUT }],
};

function carried(document: JsonObject, version = '1.4.0') {
  const { bytes, hash } = canonicalDocument(document);
  return { version, hash, json: bytes.toString('utf8') };
}

describe('pinManifest', () => {
  it('pins a canonical manifest of this endpoint at its version', () => {
    const pinned = pinManifest(carried(DOCUMENT), ENDPOINT);
    expect(pinned.version).toBe('1.4.0');
    expect([...pinned.tools.keys()]).toEqual(['forecast.get']);
  });

  it.each([
    [
      'another version than asked',
      () => pinManifest(carried(DOCUMENT), ENDPOINT, '2.0.0'),
      /returned for 2.0.0/,
    ],
    [
      'bytes that are not canonical',
      () => {
        const json = JSON.stringify(DOCUMENT, null, 1);
        const hash = canonicalDocument(DOCUMENT).hash;
        return pinManifest(
          {
            version: '1.4.0',
            json,
            hash: { ...hash, value: canonicalDocument(JSON.parse(json) as JsonObject).hash.value },
          },
          ENDPOINT,
        );
      },
      /hash|canonical/,
    ],
    [
      "another endpoint's manifest",
      () => pinManifest(carried(DOCUMENT), 'calendar@agents.example'),
      /not this endpoint/,
    ],
    ['agent.version unlike the version', () => pinManifest(carried(DOCUMENT, '1.5.0'), ENDPOINT), /differs/],
    [
      'another hash algorithm',
      () => pinManifest({ ...carried(DOCUMENT), hash: { algo: 'sha-512', value: 'AA==' } }, ENDPOINT),
      /sha-256/,
    ],
  ])('refuses %s', (_label, pin, message) => {
    expect(pin).toThrow(PinRefused);
    expect(pin).toThrow(message);
  });
});

describe('verifiedSchema', () => {
  const manifestHash = canonicalDocument(DOCUMENT).hash;
  const schemaHash = canonicalDocument(INPUT).hash;
  const expected = {
    tool: 'forecast.get',
    version: '1.4.0',
    direction: 'input' as const,
    manifestHash,
    advertised: schemaHash,
    inManifest: INPUT,
  };
  const answer = {
    tool: 'forecast.get',
    version: '1.4.0',
    direction: 'input' as const,
    manifestHash,
    schemaHash,
    json: canonicalJson(INPUT),
  };

  it('accepts the pinned schema, checked by both hashes', () => {
    expect(verifiedSchema(answer, expected)).toEqual(INPUT);
  });

  it('refuses a schema other than the one tool information advertised', () => {
    const other = { type: 'object' };
    expect(() =>
      verifiedSchema(
        { ...answer, schemaHash: canonicalDocument(other).hash, json: canonicalJson(other) },
        expected,
      ),
    ).toThrow(/advertised/);
  });

  it("refuses a schema that hashes right but is not the pinned manifest's", () => {
    const other = { type: 'object' };
    const otherHash = canonicalDocument(other).hash;
    expect(() =>
      verifiedSchema(
        { ...answer, schemaHash: otherHash, json: canonicalJson(other) },
        { ...expected, advertised: otherHash },
      ),
    ).toThrow(/not the schema of the pinned manifest/);
  });
});
