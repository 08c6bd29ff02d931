import { describe, expect, it } from 'vitest';
import { NS_AGENT_API } from '../namespaces.ts';
import {
  buildManifest,
  buildManifestRequest,
  parseManifest,
  parseManifestRequest,
} from './agent-manifest.ts';
import {
  MANIFEST_HASH,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

const api = (local: string): string => `{${NS_AGENT_API}}${local}`;
const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;
const CANONICAL =
  '{"agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}';

describe('manifest-request and manifest', () => {
  it('round-trip, with and without a version', () => {
    expectRoundTrip(buildManifestRequest, parseManifestRequest, {});
    expectRoundTrip(buildManifestRequest, parseManifestRequest, { version: '1.4.0' });
    expectRoundTrip(buildManifest, parseManifest, { version: '1.4.0', hash: MANIFEST_HASH, json: CANONICAL });
  });

  it('returns <json/> text across text nodes and CDATA sections unchanged', () => {
    const manifest = parseManifest(
      parseXml(
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/json' version='1.4.0'>${HASH}` +
          `<json>{"agent":<![CDATA[{"jid":"weather@agents.example",]]>&quot;name&quot;:"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}</json></manifest>`,
      ),
    );
    expect(manifest.json).toBe(CANONICAL);
  });

  it.each(
    titled([
      [
        parseManifestRequest,
        `<manifest-request xmlns='${NS_AGENT_API}' version='latest version'/>`,
        { rule: 'invalid-version', element: api('manifest-request'), attribute: 'version' },
      ],
      [
        parseManifestRequest,
        `<manifest-request xmlns='${NS_AGENT_API}'><version/></manifest-request>`,
        { rule: 'unexpected-child', element: api('manifest-request') },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' version='1.4.0'>${HASH}<json>{}</json></manifest>`,
        { rule: 'missing-attribute', element: api('manifest'), attribute: 'media-type' },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/schema+json' version='1.4.0'>${HASH}<json>{}</json></manifest>`,
        { rule: 'media-type', element: api('manifest'), attribute: 'media-type' },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/json' version='1.4.0'><json>{}</json>${HASH}</manifest>`,
        { rule: 'child-order', element: api('manifest') },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/json' version='1.4.0'>${HASH}</manifest>`,
        { rule: 'missing-child', element: api('manifest') },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/json' version='1.4.0'>${HASH}<json>{}</json><json>{}</json></manifest>`,
        { rule: 'duplicate-child', element: api('manifest') },
      ],
      [
        parseManifest,
        `<manifest xmlns='${NS_AGENT_API}' media-type='application/json' version='1.4.0'>${HASH}<json charset='utf-8'>{}</json></manifest>`,
        { rule: 'unexpected-attribute', element: api('json'), attribute: 'charset' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build JSON text that XML cannot carry', () => {
    expectBuildError(() => buildManifest({ version: '1.4.0', hash: MANIFEST_HASH, json: '{"a":"\uFFFF"}' }), {
      rule: 'illegal-xml-character',
      element: api('json'),
    });
  });
});
