// #registration-flow over the wire: self-registration by a local C2S account for its own JID,
// Administrative Provisioning end to end with the directory following each step, idempotent
// and conflicting re-registration, tombstones, and forbidden for every non-admin (local,
// remote, and remote with the admin's localpart), whether or not the target exists.
import { describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import { NS_AGENT_API } from '../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  parseActive,
  parseDeactivated,
  parseDiscoInfo,
  parseDiscoItems,
  parseManifest,
  parseRegistered,
  parseRemoved,
  type Hash,
} from '../protocol/stanza/index.ts';
import { xml } from '@xmpp/xml';
import { provisioningOf, statusOf } from './test-support/admin.ts';
import { JID, MANIFEST, fieldsOf } from './test-support/fixtures.ts';
import { ALICE, BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectIdenticalErrors, expectStanzaError, resultPayload } from './test-support/wire.ts';

/** A local C2S account that registers itself (#registration-flow self-registration). */
const SELF = 'agent7@server.example';
/** A local account without admin rights. */
const DAVE = 'dave@server.example';
/** A remote account with the admin's localpart: federation alone grants nothing (#security). */
const REMOTE_BOB = 'bob@example.com';

const world = useGatewayFederation({
  // Generous buckets: this file sends many provisioning IQs in a burst (rate limits: security.test.ts).
  config: {
    limits: {
      rateLimits: {
        registration: { burst: 1000, perSecond: 100 },
        administration: { burst: 1000, perSecond: 100 },
      },
    },
  },
  accounts: [SELF, DAVE, REMOTE_BOB],
  connect: [BOB, SELF, DAVE, ALICE, REMOTE_BOB],
});

function manifest(jid: string, version: string, description = 'An integration test endpoint.'): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: jid.slice(0, jid.indexOf('@')), description, version },
    tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  };
}

const hashOf = (value: JsonObject): Hash => canonicalDocument(value).hash;

async function directory(caller: Caller): Promise<string[]> {
  const payload = resultPayload(await caller.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({})));
  return parseDiscoItems(payload).items.map((item) => item.jid);
}

async function activeVersionOf(caller: Caller, jid: string): Promise<string | undefined> {
  const exchange = await caller.exchangeIq(jid, 'get', buildDiscoInfoRequest({}));
  if (exchange.parsed.type === 'error') return undefined;
  return fieldsOf(parseDiscoInfo(resultPayload(exchange)).forms[0])['version']?.values[0];
}

describe('#registration-flow self-registration', () => {
  it('#registration-flow a local C2S account registers the manifest whose agent.jid is its own bare JID', async () => {
    const self = await world().caller(SELF);
    const own = manifest(SELF, '1.0.0');
    const registered = parseRegistered(
      resultPayload(await provisioningOf(self).register(JSON.stringify(own))),
    );
    expect(registered).toEqual({ jid: SELF, version: '1.0.0', hash: hashOf(own) });
    // Idempotent for the self-registrant too.
    const again = parseRegistered(resultPayload(await provisioningOf(self).register(JSON.stringify(own))));
    expect(again).toEqual(registered);
    // Registered, not activated: activation is an administrative operation.
    const status = await statusOf(await world().caller(BOB), SELF);
    expect(status.versions).toEqual([{ id: '1.0.0', active: false, removable: true, hash: hashOf(own) }]);
  });

  it('#registration-flow self-registration for any other JID is forbidden, from local and remote senders', async () => {
    const attempts: [string, string][] = [
      [SELF, DAVE],
      [SELF, JID.weather],
      [DAVE, SELF],
      [DAVE, 'fresh@agents.example'],
      // Remote senders never self-register, not even their own JID (#registration-flow, #security).
      [ALICE, ALICE],
      [REMOTE_BOB, REMOTE_BOB],
      [REMOTE_BOB, 'fresh@agents.example'],
    ];
    for (const [sender, claimed] of attempts) {
      const exchange = await provisioningOf(await world().caller(sender)).register(
        JSON.stringify(manifest(claimed, '1.0.0')),
      );
      expectStanzaError(exchange, 'forbidden', 'auth');
    }
    const bob = await world().caller(BOB);
    for (const jid of [DAVE, ALICE, REMOTE_BOB, 'fresh@agents.example']) {
      expectStanzaError(await provisioningOf(bob).status(jid), 'item-not-found', 'cancel');
    }
  });
});

describe('#registration-flow administrative provisioning', () => {
  it('#registration-flow register, activate (hash checked), deactivate, status, remove-version, remove-endpoint; the directory follows', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const alice = await world().caller(ALICE);
    const jid = 'lifecycle@agents.example';
    const v1 = manifest(jid, '1.0.0');
    const v2 = manifest(jid, '2.0.0', 'The second version.');

    const registered = parseRegistered(resultPayload(await admin.register(JSON.stringify(v1))));
    expect(registered).toEqual({ jid, version: '1.0.0', hash: hashOf(v1) });
    expect(await directory(bob)).not.toContain(jid);
    expect((await statusOf(bob, jid)).versions).toEqual([
      { id: '1.0.0', active: false, removable: true, hash: hashOf(v1) },
    ]);

    // The hash must name the registered object; an unknown version is not found.
    expectStanzaError(await admin.activate(jid, '1.0.0', hashOf(v2)), 'conflict', 'cancel');
    expectStanzaError(await admin.activate(jid, '9.9.9', hashOf(v1)), 'item-not-found', 'cancel');
    expect(await directory(bob)).not.toContain(jid);
    expect(parseActive(resultPayload(await admin.activate(jid, '1.0.0', hashOf(v1))))).toEqual({
      jid,
      version: '1.0.0',
    });
    expect(await directory(bob)).toContain(jid);
    expect(await activeVersionOf(bob, jid)).toBe('1.0.0');
    // Only local callers see it: the remote grants do not name it.
    expect(await directory(alice)).not.toContain(jid);

    resultPayload(await admin.register(JSON.stringify(v2)));
    resultPayload(await admin.activate(jid, '2.0.0', hashOf(v2)));
    expect(await activeVersionOf(bob, jid)).toBe('2.0.0');
    expect((await statusOf(bob, jid)).versions).toEqual([
      { id: '1.0.0', active: false, removable: true, hash: hashOf(v1) },
      { id: '2.0.0', active: true, removable: false, hash: hashOf(v2) },
    ]);

    // The active version cannot be removed (interp-24: not-allowed); another can.
    expectStanzaError(await admin.removeVersion(jid, '2.0.0'), 'not-allowed', 'cancel');
    expect(parseRemoved(resultPayload(await admin.removeVersion(jid, '1.0.0')))).toEqual({
      jid,
      version: '1.0.0',
    });
    expect((await statusOf(bob, jid)).versions.map((version) => version.id)).toEqual(['2.0.0']);
    const removedExact = await bob.exchangeIq(jid, 'get', buildManifestRequest({ version: '1.0.0' }));
    expectStanzaError(removedExact, 'item-not-found', 'cancel');

    expect(parseDeactivated(resultPayload(await admin.deactivate(jid)))).toEqual({ jid });
    expect(await directory(bob)).not.toContain(jid);
    expect(await activeVersionOf(bob, jid)).toBeUndefined();
    expect((await statusOf(bob, jid)).versions).toEqual([
      { id: '2.0.0', active: false, removable: true, hash: hashOf(v2) },
    ]);
    // Deactivation keeps the manifests: the exact version stays addressable (interp-23).
    const exact = parseManifest(
      resultPayload(await bob.exchangeIq(jid, 'get', buildManifestRequest({ version: '2.0.0' }))),
    );
    expect(exact.hash).toEqual(hashOf(v2));

    expect(parseRemoved(resultPayload(await admin.removeEndpoint(jid)))).toEqual({ jid });
    expectStanzaError(await admin.status(jid), 'item-not-found', 'cancel');
    const gone = await bob.exchangeIq(jid, 'get', buildManifestRequest({ version: '2.0.0' }));
    expectStanzaError(gone, 'item-not-found', 'cancel');
    expect(await directory(bob)).not.toContain(jid);
  });

  it('#registration-flow identical re-registration is idempotent, whatever the JSON formatting', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const jid = 'idempotent@agents.example';
    const value = manifest(jid, '1.0.0');
    const first = parseRegistered(resultPayload(await admin.register(JSON.stringify(value))));
    const same = parseRegistered(resultPayload(await admin.register(JSON.stringify(value))));
    // Other member order and white space: the same RFC 8785 bytes, the same object.
    const reformatted = `{ "tools": ${JSON.stringify(value['tools'], null, 2)},\n "agent": ${JSON.stringify(value['agent'])}, "manifestSpecVersion": "0" }`;
    const again = parseRegistered(resultPayload(await admin.register(reformatted)));
    expect([same, again]).toEqual([first, first]);
    expect((await statusOf(bob, jid)).versions).toHaveLength(1);
  });

  it('#registration-flow different content under a registered (jid, version) is a conflict', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const jid = 'immutable@agents.example';
    resultPayload(await admin.register(JSON.stringify(manifest(jid, '1.0.0'))));
    const changed = manifest(jid, '1.0.0', 'Changed content under the same version.');
    expectStanzaError(await admin.register(JSON.stringify(changed)), 'conflict', 'cancel');
    expect((await statusOf(bob, jid)).versions.map((version) => version.hash)).toEqual([
      hashOf(manifest(jid, '1.0.0')),
    ]);
  });

  it('#registration-flow tombstones: a removed version never returns with other content, also after remove-endpoint', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const jid = 'tombstone@agents.example';
    const v1 = manifest(jid, '1.0.0');
    const v2 = manifest(jid, '2.0.0');
    resultPayload(await admin.register(JSON.stringify(v1)));
    resultPayload(await admin.register(JSON.stringify(v2)));
    resultPayload(await admin.activate(jid, '2.0.0', hashOf(v2)));
    resultPayload(await admin.removeVersion(jid, '1.0.0'));
    const otherV1 = manifest(jid, '1.0.0', 'Other content for a removed version.');
    expectStanzaError(await admin.register(JSON.stringify(otherV1)), 'conflict', 'cancel');
    // The identical content may come back (interp-24 accepts registered).
    expect(parseRegistered(resultPayload(await admin.register(JSON.stringify(v1)))).hash).toEqual(hashOf(v1));

    resultPayload(await admin.removeEndpoint(jid));
    const otherV2 = manifest(jid, '2.0.0', 'Other content after remove-endpoint.');
    expectStanzaError(await admin.register(JSON.stringify(otherV2)), 'conflict', 'cancel');
    expectStanzaError(await admin.register(JSON.stringify(otherV1)), 'conflict', 'cancel');
  });

  it('#registration-flow an administrator provisions virtual endpoints on the gateway domain only', async () => {
    const exchange = await provisioningOf(await world().caller(BOB)).register(
      JSON.stringify(manifest('someone@elsewhere.example', '1.0.0')),
    );
    expectStanzaError(exchange, 'not-allowed', 'cancel');
  });

  it('#registration-flow an admin operation on an endpoint that does not exist is item-not-found; a target that is no JID, bad-request', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const missing = 'nobody@agents.example';
    expectStanzaError(
      await admin.activate(missing, '1.0.0', MANIFEST.weather.document.hash),
      'item-not-found',
      'cancel',
    );
    expectStanzaError(await admin.deactivate(missing), 'item-not-found', 'cancel');
    expectStanzaError(await admin.status(missing), 'item-not-found', 'cancel');
    expectStanzaError(await admin.removeVersion(missing, '1.0.0'), 'item-not-found', 'cancel');
    expectStanzaError(await admin.removeEndpoint(missing), 'item-not-found', 'cancel');
    expectStanzaError(await admin.removeVersion(JID.weather, '9.9.9'), 'item-not-found', 'cancel');
    expectStanzaError(await admin.status('weather@agents.example/runtime'), 'bad-request', 'modify');
  });

  it('#registration-flow agent.jid is normalized: manifests differing only in JID case conflict (interp-25)', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const mixed = manifest('CaseTest@agents.example', '1.0.0');
    const registered = parseRegistered(resultPayload(await admin.register(JSON.stringify(mixed))));
    expect(registered).toMatchObject({ jid: 'casetest@agents.example', version: '1.0.0' });
    const lower = manifest('casetest@agents.example', '1.0.0');
    expectStanzaError(await admin.register(JSON.stringify(lower)), 'conflict', 'cancel');
    expect((await statusOf(bob, 'casetest@agents.example')).versions).toHaveLength(1);
  });
});

describe('#registration-flow authority', () => {
  const NONEXISTENT = 'nobody@agents.example';

  function operations(target: string): [string, (caller: Caller) => Promise<IqExchange>][] {
    return [
      ['register', (caller) => provisioningOf(caller).register(JSON.stringify(manifest(target, '9.0.0')))],
      [
        'activate',
        (caller) => provisioningOf(caller).activate(target, '1.4.0', MANIFEST.weather.document.hash),
      ],
      ['deactivate', (caller) => provisioningOf(caller).deactivate(target)],
      ['registration-status', (caller) => provisioningOf(caller).status(target)],
      ['remove-version', (caller) => provisioningOf(caller).removeVersion(target, '2.0.0')],
      ['remove-endpoint', (caller) => provisioningOf(caller).removeEndpoint(target)],
      // A malformed request: a non-admin still learns only forbidden (interp-24).
      [
        'malformed activate',
        (caller) => caller.exchangeIq(GATEWAY, 'set', xml('activate', { xmlns: NS_AGENT_API })),
      ],
    ];
  }

  it('#registration-flow every administrative operation is forbidden to non-admins, identically for existing and nonexistent targets', async () => {
    for (const sender of [DAVE, ALICE, REMOTE_BOB, SELF]) {
      const caller = await world().caller(sender);
      const existing = operations(JID.weather);
      const missing = operations(NONEXISTENT);
      for (const [index, [name, send]] of existing.entries()) {
        const onExisting = await send(caller);
        const onMissing = await (missing[index]?.[1] ?? send)(caller);
        expectStanzaError(onExisting, 'forbidden', 'auth');
        expectIdenticalErrors({
          [`${sender} ${name} ${JID.weather}`]: { exchange: onExisting, to: GATEWAY },
          [`${sender} ${name} ${NONEXISTENT}`]: { exchange: onMissing, to: GATEWAY },
        });
      }
    }
    // Nothing changed: weather keeps both versions and its active one.
    const status = await statusOf(await world().caller(BOB), JID.weather);
    expect(status.versions.map((version) => [version.id, version.active])).toEqual([
      ['1.4.0', true],
      ['2.0.0', false],
    ]);
  });
});
