// #registration-flow over the wire: self-registration by a local C2S account for its own JID,
// Administrative Provisioning end to end with the directory following each step, idempotent
// and conflicting re-registration, tombstones, and forbidden for every non-admin (local,
// remote, and remote with the admin's localpart), whether or not the target exists.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
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
import {
  activate,
  deactivate,
  register,
  registrationStatus,
  removeEndpoint,
  removeVersion,
  statusOf,
} from './test-support/admin.ts';
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
    const registered = parseRegistered(resultPayload(await register(self, JSON.stringify(own))));
    expect(registered).toEqual({ jid: SELF, version: '1.0.0', hash: hashOf(own) });
    // Idempotent for the self-registrant too.
    const again = parseRegistered(resultPayload(await register(self, JSON.stringify(own))));
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
      const exchange = await register(
        await world().caller(sender),
        JSON.stringify(manifest(claimed, '1.0.0')),
      );
      expectStanzaError(exchange, 'forbidden', 'auth');
    }
    const bob = await world().caller(BOB);
    for (const jid of [DAVE, ALICE, REMOTE_BOB, 'fresh@agents.example']) {
      expectStanzaError(await registrationStatus(bob, jid), 'item-not-found', 'cancel');
    }
  });
});

describe('#registration-flow administrative provisioning', () => {
  it('#registration-flow register, activate (hash checked), deactivate, status, remove-version, remove-endpoint; the directory follows', async () => {
    const bob = await world().caller(BOB);
    const alice = await world().caller(ALICE);
    const jid = 'lifecycle@agents.example';
    const v1 = manifest(jid, '1.0.0');
    const v2 = manifest(jid, '2.0.0', 'The second version.');

    const registered = parseRegistered(resultPayload(await register(bob, JSON.stringify(v1))));
    expect(registered).toEqual({ jid, version: '1.0.0', hash: hashOf(v1) });
    expect(await directory(bob)).not.toContain(jid);
    expect((await statusOf(bob, jid)).versions).toEqual([
      { id: '1.0.0', active: false, removable: true, hash: hashOf(v1) },
    ]);

    // The hash must name the registered object; an unknown version is not found.
    expectStanzaError(await activate(bob, jid, '1.0.0', hashOf(v2)), 'conflict', 'cancel');
    expectStanzaError(await activate(bob, jid, '9.9.9', hashOf(v1)), 'item-not-found', 'cancel');
    expect(await directory(bob)).not.toContain(jid);
    expect(parseActive(resultPayload(await activate(bob, jid, '1.0.0', hashOf(v1))))).toEqual({
      jid,
      version: '1.0.0',
    });
    expect(await directory(bob)).toContain(jid);
    expect(await activeVersionOf(bob, jid)).toBe('1.0.0');
    // Only local callers see it: the remote grants do not name it.
    expect(await directory(alice)).not.toContain(jid);

    resultPayload(await register(bob, JSON.stringify(v2)));
    resultPayload(await activate(bob, jid, '2.0.0', hashOf(v2)));
    expect(await activeVersionOf(bob, jid)).toBe('2.0.0');
    expect((await statusOf(bob, jid)).versions).toEqual([
      { id: '1.0.0', active: false, removable: true, hash: hashOf(v1) },
      { id: '2.0.0', active: true, removable: false, hash: hashOf(v2) },
    ]);

    // The active version cannot be removed (interp-24: not-allowed); another can.
    expectStanzaError(await removeVersion(bob, jid, '2.0.0'), 'not-allowed', 'cancel');
    expect(parseRemoved(resultPayload(await removeVersion(bob, jid, '1.0.0')))).toEqual({
      jid,
      version: '1.0.0',
    });
    expect((await statusOf(bob, jid)).versions.map((version) => version.id)).toEqual(['2.0.0']);
    const removedExact = await bob.exchangeIq(jid, 'get', buildManifestRequest({ version: '1.0.0' }));
    expectStanzaError(removedExact, 'item-not-found', 'cancel');

    expect(parseDeactivated(resultPayload(await deactivate(bob, jid)))).toEqual({ jid });
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

    expect(parseRemoved(resultPayload(await removeEndpoint(bob, jid)))).toEqual({ jid });
    expectStanzaError(await registrationStatus(bob, jid), 'item-not-found', 'cancel');
    const gone = await bob.exchangeIq(jid, 'get', buildManifestRequest({ version: '2.0.0' }));
    expectStanzaError(gone, 'item-not-found', 'cancel');
    expect(await directory(bob)).not.toContain(jid);
  });

  it('#registration-flow identical re-registration is idempotent, whatever the JSON formatting', async () => {
    const bob = await world().caller(BOB);
    const jid = 'idempotent@agents.example';
    const value = manifest(jid, '1.0.0');
    const first = parseRegistered(resultPayload(await register(bob, JSON.stringify(value))));
    const same = parseRegistered(resultPayload(await register(bob, JSON.stringify(value))));
    // Other member order and white space: the same RFC 8785 bytes, the same object.
    const reformatted = `{ "tools": ${JSON.stringify(value['tools'], null, 2)},\n "agent": ${JSON.stringify(value['agent'])}, "manifestSpecVersion": "0" }`;
    const again = parseRegistered(resultPayload(await register(bob, reformatted)));
    expect([same, again]).toEqual([first, first]);
    expect((await statusOf(bob, jid)).versions).toHaveLength(1);
  });

  it('#registration-flow different content under a registered (jid, version) is a conflict', async () => {
    const bob = await world().caller(BOB);
    const jid = 'immutable@agents.example';
    resultPayload(await register(bob, JSON.stringify(manifest(jid, '1.0.0'))));
    const changed = manifest(jid, '1.0.0', 'Changed content under the same version.');
    expectStanzaError(await register(bob, JSON.stringify(changed)), 'conflict', 'cancel');
    expect((await statusOf(bob, jid)).versions.map((version) => version.hash)).toEqual([
      hashOf(manifest(jid, '1.0.0')),
    ]);
  });

  it('#registration-flow tombstones: a removed version never returns with other content, also after remove-endpoint', async () => {
    const bob = await world().caller(BOB);
    const jid = 'tombstone@agents.example';
    const v1 = manifest(jid, '1.0.0');
    const v2 = manifest(jid, '2.0.0');
    resultPayload(await register(bob, JSON.stringify(v1)));
    resultPayload(await register(bob, JSON.stringify(v2)));
    resultPayload(await activate(bob, jid, '2.0.0', hashOf(v2)));
    resultPayload(await removeVersion(bob, jid, '1.0.0'));
    const otherV1 = manifest(jid, '1.0.0', 'Other content for a removed version.');
    expectStanzaError(await register(bob, JSON.stringify(otherV1)), 'conflict', 'cancel');
    // The identical content may come back (interp-24 accepts registered).
    expect(parseRegistered(resultPayload(await register(bob, JSON.stringify(v1)))).hash).toEqual(hashOf(v1));

    resultPayload(await removeEndpoint(bob, jid));
    const otherV2 = manifest(jid, '2.0.0', 'Other content after remove-endpoint.');
    expectStanzaError(await register(bob, JSON.stringify(otherV2)), 'conflict', 'cancel');
    expectStanzaError(await register(bob, JSON.stringify(otherV1)), 'conflict', 'cancel');
  });

  it('#registration-flow an administrator provisions virtual endpoints on the gateway domain only', async () => {
    const exchange = await register(
      await world().caller(BOB),
      JSON.stringify(manifest('someone@elsewhere.example', '1.0.0')),
    );
    expectStanzaError(exchange, 'not-allowed', 'cancel');
  });

  it('#registration-flow an admin operation on an endpoint that does not exist is item-not-found; a target that is no JID, bad-request', async () => {
    const bob = await world().caller(BOB);
    const missing = 'nobody@agents.example';
    expectStanzaError(
      await activate(bob, missing, '1.0.0', MANIFEST.weather.document.hash),
      'item-not-found',
      'cancel',
    );
    expectStanzaError(await deactivate(bob, missing), 'item-not-found', 'cancel');
    expectStanzaError(await registrationStatus(bob, missing), 'item-not-found', 'cancel');
    expectStanzaError(await removeVersion(bob, missing, '1.0.0'), 'item-not-found', 'cancel');
    expectStanzaError(await removeEndpoint(bob, missing), 'item-not-found', 'cancel');
    expectStanzaError(await removeVersion(bob, JID.weather, '9.9.9'), 'item-not-found', 'cancel');
    expectStanzaError(
      await registrationStatus(bob, 'weather@agents.example/runtime'),
      'bad-request',
      'modify',
    );
  });

  it('#registration-flow agent.jid is normalized: manifests differing only in JID case conflict (interp-25)', async () => {
    const bob = await world().caller(BOB);
    const mixed = manifest('CaseTest@agents.example', '1.0.0');
    const registered = parseRegistered(resultPayload(await register(bob, JSON.stringify(mixed))));
    expect(registered).toMatchObject({ jid: 'casetest@agents.example', version: '1.0.0' });
    const lower = manifest('casetest@agents.example', '1.0.0');
    expectStanzaError(await register(bob, JSON.stringify(lower)), 'conflict', 'cancel');
    expect((await statusOf(bob, 'casetest@agents.example')).versions).toHaveLength(1);
  });
});

describe('#registration-flow authority', () => {
  const NONEXISTENT = 'nobody@agents.example';

  function operations(target: string): [string, (caller: Caller) => ReturnType<typeof register>][] {
    return [
      ['register', (caller) => register(caller, JSON.stringify(manifest(target, '9.0.0')))],
      ['activate', (caller) => activate(caller, target, '1.4.0', MANIFEST.weather.document.hash)],
      ['deactivate', (caller) => deactivate(caller, target)],
      ['registration-status', (caller) => registrationStatus(caller, target)],
      ['remove-version', (caller) => removeVersion(caller, target, '2.0.0')],
      ['remove-endpoint', (caller) => removeEndpoint(caller, target)],
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
