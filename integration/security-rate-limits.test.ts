// #security rate limits over the wire, with tiny buckets that refill too slowly to matter during
// the file: an authorized request past its bucket gets <resource-constraint/> (type wait), and
// an unauthorized one keeps its usual answer however often it asks (interp-42). Each
// test drains the buckets of its own principals, so the tests do not depend on each other.
import { describe, expect, it } from 'vitest';
import type { IqExchange } from '../harness/driver/index.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildSchemaRequest,
  buildSearchRequest,
} from '../protocol/stanza/index.ts';
import { provisioningOf } from './test-support/admin.ts';
import { JID, MANIFEST } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectIdenticalErrors, expectStanzaError, outcomeOf } from './test-support/wire.ts';

/** Tokens per bucket; one token back every 1000 s, i.e. never during this file. */
const BURST = 3;
const NEVER = 0.001;

/** A second administrator, so that bob's buckets stay full for the other tests. */
const OPS = 'ops@server.example';
const DAVE = 'dave@server.example';
const EVE = 'eve@server.example';
const FRANK = 'frank@server.example';
const GRACE = 'grace@server.example';

const world = useGatewayFederation({
  config: {
    admins: [BOB, OPS],
    limits: {
      rateLimits: Object.fromEntries(
        ['registration', 'administration', 'discovery', 'search', 'metadata'].map((operation) => [
          operation,
          { burst: BURST, perSecond: NEVER },
        ]),
      ),
    },
  },
  accounts: [CAROL, OPS, DAVE, EVE, FRANK, GRACE],
});

/** Sends `times` requests one after the other; returns each outcome ("result" or "condition/type"). */
async function repeat(times: number, send: () => Promise<IqExchange>): Promise<string[]> {
  const outcomes: string[] = [];
  for (let sent = 0; sent < times; sent += 1) outcomes.push(outcomeOf(await send()));
  return outcomes;
}

const LIMITED = 'resource-constraint/wait';

describe('#security rate limits', () => {
  it('#security administration: past its bucket an admin gets resource-constraint; a non-admin only ever forbidden', async () => {
    const ops = await world().caller(OPS);
    expect(await repeat(BURST + 2, () => provisioningOf(ops).status(JID.weather))).toEqual([
      ...Array<string>(BURST).fill('result'),
      LIMITED,
      LIMITED,
    ]);
    const dave = await world().caller(DAVE);
    expect(await repeat(BURST + 3, () => provisioningOf(dave).status(JID.weather))).toEqual(
      Array<string>(BURST + 3).fill('forbidden/auth'),
    );
    // bob's own buckets are untouched by ops and dave.
    expect(outcomeOf(await provisioningOf(await world().caller(BOB)).status(JID.weather))).toBe('result');
  });

  it('#security registration: past its bucket an admin gets resource-constraint; remote senders only ever forbidden', async () => {
    const ops = await world().caller(OPS);
    const manifest = JSON.stringify({
      manifestSpecVersion: '0',
      agent: { jid: 'limited@agents.example', name: 'limited', version: '1.0.0' },
      tools: [],
    });
    expect(await repeat(BURST + 1, () => provisioningOf(ops).register(manifest))).toEqual([
      ...Array<string>(BURST).fill('result'),
      LIMITED,
    ]);
    for (const sender of [ALICE, CAROL]) {
      const caller = await world().caller(sender);
      expect(await repeat(BURST + 2, () => provisioningOf(caller).register(manifest)), sender).toEqual(
        Array<string>(BURST + 2).fill('forbidden/auth'),
      );
    }
  });

  it('#security discovery: directory enumeration past the bucket is limited; hidden probes stay item-not-found', async () => {
    const eve = await world().caller(EVE);
    expect(await repeat(BURST + 1, () => eve.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({})))).toEqual(
      [...Array<string>(BURST).fill('result'), LIMITED],
    );
    expect(outcomeOf(await eve.exchangeIq(JID.weather, 'get', buildDiscoInfoRequest({})))).toBe(LIMITED);
    // The same empty bucket: a hidden and a nonexistent endpoint still answer alike, never "limited".
    const hidden = await eve.exchangeIq(JID.vault, 'get', buildDiscoInfoRequest({}));
    const missing = await eve.exchangeIq(JID.nobody, 'get', buildDiscoInfoRequest({}));
    expectStanzaError(hidden, 'item-not-found', 'cancel');
    expectIdenticalErrors({
      hidden: { exchange: hidden, to: JID.vault },
      nonexistent: { exchange: missing, to: JID.nobody },
    });
  });

  it('#security search: past the bucket a search is limited', async () => {
    const frank = await world().caller(FRANK);
    const search = buildSearchRequest({ kind: 'legacy', fields: { nick: 'weather' } });
    expect(await repeat(BURST + 1, () => frank.exchangeIq(GATEWAY, 'set', search))).toEqual([
      ...Array<string>(BURST).fill('result'),
      LIMITED,
    ]);
  });

  it('#security metadata: manifest and schema retrieval share a bucket; unauthorized requests never learn of it', async () => {
    const grace = await world().caller(GRACE);
    const schema = buildSchemaRequest({
      tool: 'forecast.get',
      version: '1.4.0',
      direction: 'input',
      manifestHash: MANIFEST.weather.document.hash,
    });
    const outcomes = [
      outcomeOf(await grace.exchangeIq(JID.weather, 'get', buildManifestRequest({}))),
      outcomeOf(await grace.exchangeIq(JID.weather, 'get', schema)),
      outcomeOf(await grace.exchangeIq(JID.weather, 'get', buildManifestRequest({ version: '2.0.0' }))),
      outcomeOf(await grace.exchangeIq(JID.weather, 'get', schema)),
      outcomeOf(await grace.exchangeIq(JID.weather, 'get', buildManifestRequest({}))),
    ];
    expect(outcomes).toEqual(['result', 'result', 'result', LIMITED, LIMITED]);
    // carol (remote) may not see calendar: however often she asks, the answer is item-not-found.
    const carol = await world().caller(CAROL);
    expect(
      await repeat(BURST + 2, () => carol.exchangeIq(JID.calendar, 'get', buildManifestRequest({}))),
    ).toEqual(Array<string>(BURST + 2).fill('item-not-found/cancel'));
  });
});
