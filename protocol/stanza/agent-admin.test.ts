import { describe, expect, it } from 'vitest';
import { NS_AGENT_API } from '../namespaces.ts';
import {
  buildActivate,
  buildActive,
  buildDeactivate,
  buildDeactivated,
  buildRegister,
  buildRegistered,
  buildRegistration,
  buildRegistrationStatus,
  buildRemoveEndpoint,
  buildRemoveVersion,
  buildRemoved,
  parseActivate,
  parseActive,
  parseDeactivate,
  parseDeactivated,
  parseRegister,
  parseRegistered,
  parseRegistration,
  parseRegistrationStatus,
  parseRemoveEndpoint,
  parseRemoveVersion,
  parseRemoved,
} from './agent-admin.ts';
import { parseXml as parseXmlText } from '../xml/parse-xml.ts';
import {
  MANIFEST_HASH,
  SCHEMA_HASH,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';

const JID = 'weather@agents.example';
const api = (local: string): string => `{${NS_AGENT_API}}${local}`;
const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;

describe('round trips', () => {
  it('register keeps the manifest text exactly, markup characters included', () => {
    const manifestJson = '\n  {"agent":{"name":"<w&r>]]>"},\r\n "tools":[]}\n';
    expectRoundTrip(buildRegister, parseRegister, { manifestJson });
  });

  it('registered, activate, active, remove-version', () => {
    expectRoundTrip(buildRegistered, parseRegistered, { jid: JID, version: '1.4.0', hash: MANIFEST_HASH });
    expectRoundTrip(buildActivate, parseActivate, { jid: JID, version: '1.4.0', hash: MANIFEST_HASH });
    expectRoundTrip(buildActive, parseActive, { jid: JID, version: '1.4.0' });
    expectRoundTrip(buildRemoveVersion, parseRemoveVersion, { jid: JID, version: '1.3.0' });
  });

  it('the endpointOperation elements', () => {
    expectRoundTrip(buildDeactivate, parseDeactivate, { jid: JID });
    expectRoundTrip(buildDeactivated, parseDeactivated, { jid: JID });
    expectRoundTrip(buildRegistrationStatus, parseRegistrationStatus, { jid: JID });
    expectRoundTrip(buildRemoveEndpoint, parseRemoveEndpoint, { jid: JID });
  });

  it('removed with and without a version', () => {
    expectRoundTrip(buildRemoved, parseRemoved, { jid: JID });
    expectRoundTrip(buildRemoved, parseRemoved, { jid: JID, version: '1.3.0' });
  });

  it('registration with zero and several versions', () => {
    expectRoundTrip(buildRegistration, parseRegistration, { jid: JID, versions: [] });
    const text = expectRoundTrip(buildRegistration, parseRegistration, {
      jid: JID,
      versions: [
        { id: '1.4.0', active: true, removable: false, hash: MANIFEST_HASH },
        { id: '1.3.0', active: false, removable: true, hash: SCHEMA_HASH },
      ],
    });
    expect(text).toContain("active='true' removable='false'");
  });

  it('reads xs:boolean 1 and 0 in registration versions', () => {
    const registration = parseRegistration(
      parseXmlText(
        `<registration xmlns='${NS_AGENT_API}' jid='${JID}'><version id='1' active='1' removable='0'>${HASH}</version></registration>`,
      ),
    );
    expect(registration.versions[0]).toMatchObject({ active: true, removable: false });
  });
});

describe('parse errors name the element, attribute and rule', () => {
  it.each(
    titled([
      [
        parseRegister,
        `<register xmlns='${NS_AGENT_API}'/>`,
        { rule: 'missing-child', element: api('register') },
      ],
      [
        parseRegister,
        `<register xmlns='${NS_AGENT_API}'><manifest media-type='text/json'>{}</manifest></register>`,
        { rule: 'media-type', element: api('manifest'), attribute: 'media-type' },
      ],
      [
        parseRegister,
        `<register xmlns='${NS_AGENT_API}'><manifest>{}</manifest></register>`,
        { rule: 'missing-attribute', element: api('manifest'), attribute: 'media-type' },
      ],
      [
        parseRegister,
        `<register xmlns='${NS_AGENT_API}'><manifest media-type='application/json'>{<x/>}</manifest></register>`,
        { rule: 'unexpected-child', element: api('manifest') },
      ],
      [
        parseRegister,
        `<register xmlns='${NS_AGENT_API}'><manifest xmlns='urn:other' media-type='application/json'>{}</manifest></register>`,
        { rule: 'wrong-namespace', element: '{urn:other}manifest' },
      ],
      [
        parseRegistered,
        `<registered xmlns='${NS_AGENT_API}' version='1'>${HASH}</registered>`,
        { rule: 'missing-attribute', element: api('registered'), attribute: 'jid' },
      ],
      [
        parseRegistered,
        `<registered xmlns='${NS_AGENT_API}' jid='${JID}' version='1 4'>${HASH}</registered>`,
        { rule: 'invalid-version', element: api('registered'), attribute: 'version' },
      ],
      [
        parseRegistered,
        `<registered xmlns='${NS_AGENT_API}' jid='${JID}' version='1'/>`,
        { rule: 'missing-child', element: api('registered') },
      ],
      [
        parseActivate,
        `<activate xmlns='${NS_AGENT_API}' jid='${JID}' version='1' force='true'>${HASH}</activate>`,
        { rule: 'unexpected-attribute', element: api('activate'), attribute: 'force' },
      ],
      [
        parseActive,
        `<active xmlns='${NS_AGENT_API}' jid='${JID}' version='1'> </active>`,
        { rule: 'unexpected-text', element: api('active') },
      ],
      [
        parseActive,
        `<activate xmlns='${NS_AGENT_API}' jid='${JID}' version='1'/>`,
        { rule: 'wrong-element', element: api('activate') },
      ],
      [
        parseDeactivate,
        `<deactivate xmlns='urn:xmpp:agent-api:1' jid='${JID}'/>`,
        { rule: 'wrong-namespace', element: '{urn:xmpp:agent-api:1}deactivate' },
      ],
      [
        parseRemoved,
        `<removed xmlns='${NS_AGENT_API}' jid='${JID}' version=''/>`,
        { rule: 'invalid-version', element: api('removed'), attribute: 'version' },
      ],
      [
        parseRegistration,
        `<registration xmlns='${NS_AGENT_API}' jid='${JID}'><version id='1' active='yes' removable='0'>${HASH}</version></registration>`,
        { rule: 'invalid-boolean', element: api('version'), attribute: 'active' },
      ],
      [
        parseRegistration,
        `<registration xmlns='${NS_AGENT_API}' jid='${JID}'><version id='1' active='1'>${HASH}</version></registration>`,
        { rule: 'missing-attribute', element: api('version'), attribute: 'removable' },
      ],
      [
        parseRegistration,
        `<registration xmlns='${NS_AGENT_API}' jid='${JID}'><endpoint/></registration>`,
        { rule: 'unexpected-child', element: api('registration') },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });
});

describe('builders refuse what the parsers refuse', () => {
  it('refuses an invalid version, and text XML cannot carry', () => {
    expectBuildError(() => buildActive({ jid: JID, version: '' }), {
      rule: 'invalid-version',
      element: api('active'),
      attribute: 'version',
    });
    expectBuildError(() => buildRegister({ manifestJson: '{"a":"\u0000"}' }), {
      rule: 'illegal-xml-character',
      element: api('manifest'),
    });
    expectBuildError(() => buildDeactivate({ jid: 'a\uFFFEb' }), {
      rule: 'illegal-xml-character',
      element: api('deactivate'),
      attribute: 'jid',
    });
  });
});
