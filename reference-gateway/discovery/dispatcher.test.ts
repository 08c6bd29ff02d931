import { describe, expect, it } from 'vitest';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import { respondToDiscovery } from './dispatcher.ts';
import { FAULT, faultElement } from '../iq/faults.ts';
import {
  GATEWAY,
  SETTINGS,
  ask,
  discoInfo,
  discoItems,
  expectFault,
  expectIdenticalFaults,
  resultOf,
} from './test-support/discovery-kit.ts';
import { requester } from './test-support/memory-catalog.ts';
import { JID, buildWorld } from './test-support/world.ts';

const { catalog } = await buildWorld();

describe('the discovery dispatcher', () => {
  it('leaves payloads that are not discovery to the rest of the gateway', () => {
    const others = [
      "<ping xmlns='urn:xmpp:ping'/>",
      "<invoke xmlns='urn:xmpp:agent-task:0'/>",
      "<register xmlns='urn:xmpp:agent-api:0'/>",
      "<vCard xmlns='vcard-temp'/>",
      "<manifest xmlns='urn:xmpp:agent-api:0'/>",
    ];
    for (const xml of others) {
      const payload = parseXml(xml);
      expect(
        respondToDiscovery(
          { iqType: 'get', to: GATEWAY, requester: requester('a@b'), payload },
          catalog,
          SETTINGS,
        ),
      ).toBeUndefined();
    }
  });

  it('normalizes the addressed JID before asking the catalog', () => {
    expect(resultOf(ask(catalog, { to: 'Weather@Agents.Example', xml: discoInfo() }))).toBeDefined();
    expect(resultOf(ask(catalog, { to: 'AGENTS.example.', xml: discoInfo() }))).toBeDefined();
  });

  it('answers full JIDs, wrong IQ types and metadata requests at the gateway with service-unavailable', () => {
    const outcomes = [
      ask(catalog, { to: `${JID.weather}/runtime`, xml: discoInfo() }),
      ask(catalog, { to: `${JID.missing}/runtime`, xml: discoInfo() }),
      ask(catalog, { to: `${GATEWAY}/x`, xml: discoItems() }),
      ask(catalog, { to: JID.weather, iqType: 'set', xml: discoInfo() }),
      ask(catalog, { to: JID.missing, iqType: 'set', xml: discoItems() }),
      ask(catalog, {
        to: JID.weather,
        iqType: 'set',
        xml: "<manifest-request xmlns='urn:xmpp:agent-api:0'/>",
      }),
      ask(catalog, { to: GATEWAY, xml: "<manifest-request xmlns='urn:xmpp:agent-api:0'/>" }),
    ];
    expectIdenticalFaults(outcomes, 'service-unavailable');
  });

  it('answers payloads that break their grammar with bad-request, wherever they are addressed', () => {
    const malformed = [
      "<query xmlns='http://jabber.org/protocol/disco#info'><identity category='a' type='b'/></query>",
      "<query xmlns='http://jabber.org/protocol/disco#items'><item jid='a@b'/></query>",
      discoItems(undefined, "<set xmlns='http://jabber.org/protocol/rsm'><max>-1</max></set>"),
      discoItems(undefined, "<set xmlns='http://jabber.org/protocol/rsm'><first>x</first></set>"),
      discoItems(
        undefined,
        "<set xmlns='http://jabber.org/protocol/rsm'/><set xmlns='http://jabber.org/protocol/rsm'/>",
      ),
    ];
    const outcomes = [GATEWAY, JID.weather, JID.secret, JID.missing].flatMap((to) =>
      malformed.map((xml) => ask(catalog, { to, xml })),
    );
    expectIdenticalFaults(outcomes, 'bad-request');
    expectFault(
      ask(catalog, { to: GATEWAY, xml: "<query xmlns='jabber:iq:search'><nick/></query>" }),
      'bad-request',
    );
  });

  it('answers an IQ addressed to no JID at all with jid-malformed', () => {
    expectFault(ask(catalog, { to: 'a@@b', xml: discoInfo() }), 'jid-malformed');
  });

  it('sends faults as the bare condition: no text, no by, nothing of the request', () => {
    expect(serialize(faultElement(FAULT.itemNotFound))).toBe(
      "<error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error>",
    );
    expect(Object.isFrozen(FAULT.itemNotFound)).toBe(true);
  });
});
