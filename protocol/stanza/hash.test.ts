import { describe, expect, it } from 'vitest';
import { NS, NS_AGENT_TASK } from '../namespaces.ts';
import { buildHash, buildHashContainer, isSha256, parseHash, parseHashContainer, sameHash } from './hash.ts';
import {
  MANIFEST_HASH,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const HASH_ELEMENT = `{${NS.hashes}}hash`;

describe('XEP-0300 <hash/>', () => {
  it('round-trips and compares', () => {
    const text = expectRoundTrip(buildHash, parseHash, MANIFEST_HASH);
    expect(text).toBe(`<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`);
    expect(isSha256(MANIFEST_HASH)).toBe(true);
    expect(sameHash(MANIFEST_HASH, { ...MANIFEST_HASH })).toBe(true);
    expect(sameHash(MANIFEST_HASH, { ...MANIFEST_HASH, algo: 'sha-512' })).toBe(false);
  });

  it('parses a foreign algorithm so the caller can answer it with the error the spec wants', () => {
    const hash = parseHash(
      parseXml("<hash xmlns='urn:xmpp:hashes:2' algo='sha3-256'>" + MANIFEST_HASH.value + '</hash>'),
    );
    expect(isSha256(hash)).toBe(false);
  });

  it.each([
    ['missing-attribute', "<hash xmlns='urn:xmpp:hashes:2'>x</hash>", 'algo'],
    ['invalid-attribute', "<hash xmlns='urn:xmpp:hashes:2' algo='sha 256'>x</hash>", 'algo'],
    [
      'unexpected-attribute',
      `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256' encoding='b64'>${MANIFEST_HASH.value}</hash>`,
      'encoding',
    ],
  ] as const)('reports %s on the attribute', (rule, text, attribute) => {
    expectParseError(parseHash, text, { rule, element: HASH_ELEMENT, attribute });
  });

  it.each([
    ['invalid-base64', `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'> ${MANIFEST_HASH.value}</hash>`],
    ['invalid-hash-length', "<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>AAAA</hash>"],
    ['unexpected-child', "<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'><b/></hash>"],
    ['wrong-namespace', "<hash xmlns='urn:xmpp:hashes:1' algo='sha-256'>AAAA</hash>"],
    ['wrong-element', "<hash-used xmlns='urn:xmpp:hashes:2' algo='sha-256'/>"],
  ] as const)('reports %s', (rule, text) => {
    expectParseError(parseHash, text, { rule });
  });

  it('refuses to build what it would refuse to parse', () => {
    expectBuildError(() => buildHash({ algo: 'sha-256', value: 'AAAA' }), {
      rule: 'invalid-hash-length',
      element: HASH_ELEMENT,
    });
    expectBuildError(() => buildHash({ algo: 'sha:256', value: 'AAAA' }), {
      rule: 'invalid-attribute',
      element: HASH_ELEMENT,
      attribute: 'algo',
    });
  });
});

describe('hashContainer', () => {
  const wrap = (inner: string): string => `<manifest-hash xmlns='${NS_AGENT_TASK}'>${inner}</manifest-hash>`;
  const parse = (element: Parameters<typeof parseHashContainer>[0]) =>
    parseHashContainer(element, 'manifest-hash', NS_AGENT_TASK);
  const hashText = serialize(buildHash(MANIFEST_HASH));

  it('holds exactly one hash', () => {
    const container = buildHashContainer('manifest-hash', MANIFEST_HASH);
    container.attrs['xmlns'] = NS_AGENT_TASK;
    expect(parse(parseXml(serialize(container)))).toEqual(MANIFEST_HASH);
    expect(parse(parseXml(wrap(`\n  ${hashText}\n`)))).toEqual(MANIFEST_HASH);
  });

  it.each([
    ['missing-child', wrap('')],
    ['duplicate-child', wrap(hashText + hashText)],
    ['unexpected-child', wrap(`${hashText}<hash-used xmlns='urn:xmpp:hashes:2' algo='sha-256'/>`)],
    ['unexpected-text', wrap(`${hashText} trailing`)],
  ] as const)('reports %s', (rule, text) => {
    expectParseError(parse, text, { rule, element: `{${NS_AGENT_TASK}}manifest-hash` });
  });
});
