/**
 * The provisioning requests on the wire: the exact IQ text each operation sends (suite cases and
 * transcripts compare it byte for byte), and agreement with the spec's two examples.
 */
import { describe, expect, it } from 'vitest';
import { parseActivate, parseRegister } from './agent-admin.ts';
import { buildIq, parseIq } from './envelope.ts';
import { provisioningRequest, type ProvisioningRequest } from './provisioning-requests.ts';
import { SPEC_STANZAS } from './test-support/spec-example-stanzas.ts';
import { MANIFEST_HASH } from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const JID = 'weather@agents.example';
const GATEWAY = 'agents.example';

const onWire = (request: ProvisioningRequest): string =>
  serialize(buildIq({ id: 'p-1', type: request.type, to: GATEWAY }, request.payload));

describe('each operation of #registration-flow as an IQ to the gateway', () => {
  it.each([
    [
      'register (manifest text escaped, never re-encoded)',
      provisioningRequest.register('{"a":"<&>"}'),
      `<iq id='p-1' type='set' to='agents.example'><register xmlns='urn:xmpp:agent-api:0'><manifest media-type='application/json'>{"a":"&lt;&amp;&gt;"}</manifest></register></iq>`,
    ],
    [
      'activate',
      provisioningRequest.activate(JID, '1.4.0', MANIFEST_HASH),
      `<iq id='p-1' type='set' to='agents.example'><activate xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example' version='1.4.0'><hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash></activate></iq>`,
    ],
    [
      'deactivate',
      provisioningRequest.deactivate(JID),
      `<iq id='p-1' type='set' to='agents.example'><deactivate xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
    ],
    [
      'registration-status, the one get',
      provisioningRequest.registrationStatus(JID),
      `<iq id='p-1' type='get' to='agents.example'><registration-status xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
    ],
    [
      'remove-version',
      provisioningRequest.removeVersion(JID, '1.3.0'),
      `<iq id='p-1' type='set' to='agents.example'><remove-version xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example' version='1.3.0'/></iq>`,
    ],
    [
      'remove-endpoint',
      provisioningRequest.removeEndpoint(JID),
      `<iq id='p-1' type='set' to='agents.example'><remove-endpoint xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
    ],
  ])('%s', (_title, request, expected) => {
    expect(onWire(request)).toBe(expected);
  });
});

describe("the spec's examples", () => {
  it('register-1: a set carrying the manifest text as written', () => {
    const example = parseIq(parseXml(SPEC_STANZAS['register-1 set']));
    if (example.payload === undefined) throw new Error('register-1 has no payload');
    const { manifestJson } = parseRegister(example.payload);
    const request = provisioningRequest.register(manifestJson);
    expect(request.type).toBe(example.type);
    expect(parseRegister(request.payload)).toEqual({ manifestJson });
  });

  it('activate-1: a set naming the endpoint, the version and its hash', () => {
    const example = parseIq(parseXml(SPEC_STANZAS['activate-1 set']));
    if (example.payload === undefined) throw new Error('activate-1 has no payload');
    const wanted = parseActivate(example.payload);
    const request = provisioningRequest.activate(wanted.jid, wanted.version, wanted.hash);
    expect(request.type).toBe(example.type);
    expect(parseActivate(request.payload)).toEqual(wanted);
    expect(wanted).toEqual({ jid: JID, version: '1.4.0', hash: MANIFEST_HASH });
  });
});
