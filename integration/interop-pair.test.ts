// Two reference gateways under test, one per server of the pair topology, each started from the
// reference SUT file: a suite account on each side lists the OTHER side's directory and an
// endpoint's tools, across s2s, with both s2s directions seen to carry the exchange.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDriver, type Caller, type Driver, type IqExchange } from '../harness/driver/index.ts';
import type { FaultProxy } from '../harness/faults/fault-proxy.ts';
import { recordCrossing } from '../harness/federation/test-support/s2s-crossing.ts';
import type { ServerImplementation } from '../harness/federation/server-provider.ts';
import { loadSutConfig } from '../harness/sut/sut-config.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import { buildDiscoItemsRequest, parseDiscoItems } from '../protocol/stanza/index.ts';
import { encodeCollectionNode } from '../protocol/tool-node.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { startPairGateways, type PairGateways } from '../runner/interop/pair-gateways.ts';
import { PAIR_DOMAINS } from '../suites/interop/pair-world.ts';
import { discoItems } from '../suites/sections/support/discovery.ts';

const REFERENCE_SUT = `${REPO_ROOT}/fixtures/sut/reference-gateway.json`;
const REFERENCE_WORLD = `${REPO_ROOT}/fixtures/worlds/reference.json`;

function itemJids(exchange: IqExchange): string[] {
  const { parsed } = exchange;
  if (parsed.type !== 'result' || parsed.payload === undefined) {
    throw new Error(`no disco#items result: ${exchange.reply.xml}`);
  }
  return parseDiscoItems(parsed.payload).items.map((item) => item.jid);
}

function pairLink(pair: PairGateways): FaultProxy {
  const link = pair.federation.links.pairComponent;
  if (link === undefined) throw new Error('the pair federation has no pair component link');
  return link;
}

describe.each<ServerImplementation>(['prosody', 'ejabberd'])('an interop pair, %s as server A', (serverA) => {
  let pair: PairGateways;
  let driver: Driver;
  /** alice of each side's world: the remote caller of the OTHER side's gateway. */
  let aliceOnA: Caller;
  let aliceOnB: Caller;

  beforeAll(async () => {
    const sut = await loadSutConfig(REFERENCE_SUT);
    pair = await startPairGateways({
      suts: { a: sut, b: sut },
      referenceWorld: inlineWorldFile(REFERENCE_WORLD),
      serverA,
    });
    driver = createDriver(pair.federation);
    aliceOnA = await driver.connect(`alice@${PAIR_DOMAINS.b.remote}`, 'interop');
    aliceOnB = await driver.connect(`alice@${PAIR_DOMAINS.a.remote}`, 'interop');
  }, 600_000);

  afterAll(async () => {
    await driver.closeAll();
    await pair.stop();
  });

  const directions = [
    {
      name: "an account on server A lists gateway B's directory",
      caller: () => aliceOnA,
      target: 'b' as const,
      links: () => ({
        request: pair.federation.links.s2sAToB,
        reply: pair.federation.links.s2sBToA,
        answeringComponent: pair.federation.links.component,
      }),
    },
    {
      name: "an account on server B lists gateway A's directory",
      caller: () => aliceOnB,
      target: 'a' as const,
      links: () => ({
        request: pair.federation.links.s2sBToA,
        reply: pair.federation.links.s2sAToB,
        answeringComponent: pairLink(pair),
      }),
    },
  ];

  it.each(directions)(
    '$name across both s2s directions, and its tools',
    async ({ caller, target, links }) => {
      const gateway = PAIR_DOMAINS[target].gateway;
      const id = `interop-${serverA}-${target}`;
      const { reply, record } = await recordCrossing(links(), id, () =>
        caller().exchangeIq(gateway, 'get', buildDiscoItemsRequest({}), { id }),
      );
      expect(record.requestBytesHeld).toBeGreaterThan(0);
      expect(record.replyBytesHeld).toBeGreaterThan(0);
      expect(record.replyOnComponentLink.attrs['from']).toBe(gateway);
      // The reference world's alice grants (mirrored for A): weather and the conformance endpoint.
      const listed = itemJids(reply);
      expect(listed).toContain(`weather@${gateway}`);
      expect(listed).toContain(`conformance@${gateway}`);
      expect(listed).not.toContain(`translator@${gateway}`);

      const tools = itemJids(await discoItems(caller(), `weather@${gateway}`, encodeCollectionNode('1.4.0')));
      expect(tools.length).toBeGreaterThan(0);
      expect(new Set(tools)).toEqual(new Set([`weather@${gateway}`]));
    },
  );

  it('started each gateway with its own domain, secret and world', () => {
    const { a, b } = pair.gateways;
    expect(a.facts.componentDomain).toBe('agents.example.com');
    expect(b.facts.componentDomain).toBe('agents.example');
    expect(a.facts.componentSecret).not.toBe(b.facts.componentSecret);
  });
});
