// #registration-flow across a restart: what administrators did over the wire (a new version
// registered and activated, a new endpoint, a deactivation, a removal) survives stopping the
// gateway, reopening its state from the same database file and starting it again. Every reply
// that shows a registration is compared byte for byte (ids normalized) before and after.
import { existsSync } from 'node:fs';
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  parseManifest,
  parseRegistration,
} from '../protocol/stanza/index.ts';
import { provision, provisioningOf } from './test-support/admin.ts';
import { JID, MANIFEST } from './test-support/fixtures.ts';
import { ALICE, BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectStanzaError, normalizedReply, resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ connect: [BOB, ALICE] });

const FRESH = 'fresh@agents.example';

function manifest(jid: string, version: string, description: string): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: jid.slice(0, jid.indexOf('@')), title: `${version} of ${jid}`, description, version },
    tools: [
      { name: 'forecast.get', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
    ],
  };
}

const WEATHER_3 = manifest(JID.weather, '3.0.0', 'Registered over the wire, then the gateway restarts.');
const FRESH_1 = manifest(FRESH, '1.0.0', 'A new endpoint, registered and activated over the wire.');

/** Every reply that shows registrations, normalized for comparison, by what was asked. */
async function snapshot(bob: Caller, alice: Caller): Promise<Record<string, string>> {
  const asks: [string, Caller, string, 'get', Element][] = [
    ['directory (bob)', bob, GATEWAY, 'get', buildDiscoItemsRequest({})],
    ['directory (alice)', alice, GATEWAY, 'get', buildDiscoItemsRequest({})],
    ['weather info', bob, JID.weather, 'get', buildDiscoInfoRequest({})],
    ['fresh info', bob, FRESH, 'get', buildDiscoInfoRequest({})],
    ['weather active manifest', bob, JID.weather, 'get', buildManifestRequest({})],
    ['weather 1.4.0 manifest', bob, JID.weather, 'get', buildManifestRequest({ version: '1.4.0' })],
    ['fresh active manifest', bob, FRESH, 'get', buildManifestRequest({})],
    ['calendar info (deactivated)', bob, JID.calendar, 'get', buildDiscoInfoRequest({})],
    ['weather 2.0.0 manifest (removed)', bob, JID.weather, 'get', buildManifestRequest({ version: '2.0.0' })],
  ];
  const replies: Record<string, string> = {};
  for (const [name, caller, to, type, payload] of asks) {
    replies[name] = normalizedReply(await caller.exchangeIq(to, type, payload), to);
  }
  for (const jid of [JID.weather, FRESH, JID.calendar]) {
    replies[`registration-status ${jid}`] = normalizedReply(await provisioningOf(bob).status(jid), GATEWAY);
  }
  return replies;
}

describe('#registration-flow persistence', () => {
  it('#registration-flow a restart from the same database keeps every registration, activation, deactivation and removal', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const alice = await world().caller(ALICE);
    await provision(bob, WEATHER_3);
    await provision(bob, FRESH_1);
    resultPayload(await admin.deactivate(JID.calendar));
    resultPayload(await admin.removeVersion(JID.weather, '2.0.0'));
    const before = await snapshot(bob, alice);

    const database = world().config.database;
    await world().restartGateway();
    expect(existsSync(database)).toBe(true);
    expect(world().config.database).toBe(database);

    const after = await snapshot(bob, alice);
    expect(after).toEqual(before);
  });

  it('#registration-flow after the restart the served manifests are the same canonical bytes and hashes', async () => {
    const bob = await world().caller(BOB);
    const served = async (jid: string, version?: string): Promise<ReturnType<typeof parseManifest>> =>
      parseManifest(
        resultPayload(
          await bob.exchangeIq(jid, 'get', buildManifestRequest(version === undefined ? {} : { version })),
        ),
      );
    for (const [jid, version, expected] of [
      [JID.weather, undefined, canonicalDocument(WEATHER_3)],
      [JID.weather, '1.4.0', MANIFEST.weather.document],
      [FRESH, undefined, canonicalDocument(FRESH_1)],
    ] as const) {
      const manifestServed = await served(jid, version);
      expect(
        Buffer.from(manifestServed.json, 'utf8').equals(expected.bytes),
        `${jid} ${version ?? 'active'}`,
      ).toBe(true);
      expect(manifestServed.hash).toEqual(expected.hash);
    }
    const status = parseRegistration(resultPayload(await provisioningOf(bob).status(JID.weather)));
    expect(status.versions.map((version) => [version.id, version.active, version.hash.value])).toEqual([
      ['1.4.0', false, MANIFEST.weather.document.hash.value],
      ['3.0.0', true, canonicalDocument(WEATHER_3).hash.value],
    ]);
  });

  it('#registration-flow after the restart the tombstone of the removed version still refuses other content', async () => {
    const bob = await world().caller(BOB);
    const other = manifest(JID.weather, '2.0.0', 'Other content for the removed 2.0.0.');
    expectStanzaError(await provisioningOf(bob).register(JSON.stringify(other)), 'conflict', 'cancel');
  });
});
