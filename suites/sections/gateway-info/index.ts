/**
 * #gateway-info and #conformance: the gateway's own disco#info — its identity, and the features
 * every claimed profile rests on. Asked by a local and by a federated caller, because a
 * gateway that only answers its own server is useless to the federation. Also #addressing (the
 * gateway answers at a domain JID of its own) and, for the discovery features it advertises,
 * that each one answers (#conformance: no feature advertised without being implemented).
 */
import { xml } from '@xmpp/xml';
import { bareJidEquals, parseJid } from '../../../protocol/jid/index.ts';
import {
  FEATURE,
  IDENTITY_CATEGORY,
  IDENTITY_TYPE,
  NODE_DIRECTORY,
  NS,
} from '../../../protocol/namespaces.ts';
import { buildDiscoInfoRequest, parseDiscoInfo } from '../../../protocol/stanza/index.ts';
import type { Caller } from '../../../harness/driver/index.ts';
import type { ProfileId } from '../../../protocol/profiles.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoItems,
  expectParsed,
  expectResult,
  expectResultPayload,
  expectThat,
} from '../../framework/expect.ts';
import { discoItems } from '../support/discovery.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

async function gatewayInfo(context: CaseContext, caller: Caller, requirement: RequirementId) {
  const exchange = await caller.exchangeIq(context.sut.gatewayJid, 'get', buildDiscoInfoRequest({}));
  const payload = expectResultPayload(exchange, requirement, NS.discoInfo, 'query');
  return {
    info: expectParsed(payload, requirement, parseDiscoInfo, exchange.reply.xml),
    replyXml: exchange.reply.xml,
  };
}

async function expectGatewayIdentity(context: CaseContext, caller: Caller): Promise<void> {
  const { info, replyXml } = await gatewayInfo(context, caller, 'gateway-info.identity');
  expectThat(
    replyXml,
    'gateway-info.identity',
    `an <identity category='${IDENTITY_CATEGORY}' type='${IDENTITY_TYPE.gateway}'/>`,
    info.identities.some(
      (identity) => identity.category === IDENTITY_CATEGORY && identity.type === IDENTITY_TYPE.gateway,
    ),
  );
}

/**
 * The gateway-level feature each profile cannot work without (#conformance, #gateway-info), and
 * the requirement its absence breaks: #search states its own advertisement rule.
 */
const PROFILE_FEATURES: readonly (readonly [ProfileId, string, RequirementId])[] = [
  ['core-directory', FEATURE.directory, 'gateway-info.features'],
  ['jabber-search', NS.search, 'search.advertised-and-implemented'],
  ['admin-provisioning', FEATURE.admin, 'gateway-info.features'],
  ['self-registration', FEATURE.selfRegister, 'gateway-info.features'],
];

export const gatewayInfoSuite = defineSuite('gateway-info', 'Gateway Information', { alongside: true }, [
  {
    id: 'gateway-info.identity-local',
    requirements: ['gateway-info.identity'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'The gateway identifies itself as automation/agent-gateway to a caller on its own server.',
    run: async (context) => {
      await expectGatewayIdentity(context, await context.callers.local());
    },
  },
  {
    id: 'gateway-info.identity-federated',
    requirements: ['gateway-info.identity'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'The gateway identifies itself as automation/agent-gateway to a caller from a federated domain.',
    run: async (context) => {
      await expectGatewayIdentity(context, await context.callers.remote());
    },
  },
  {
    id: 'gateway-info.claimed-profiles-advertised',
    requirements: ['gateway-info.features', 'search.advertised-and-implemented'],
    profiles: ['core-directory', 'jabber-search', 'admin-provisioning', 'self-registration'],
    level: 'MUST',
    statement:
      'Every profile the gateway claims is backed by the feature it rests on in the gateway’s disco#info (a claim without the feature cannot be used).',
    run: async (context) => {
      const { info, replyXml } = await gatewayInfo(
        context,
        await context.callers.local(),
        'gateway-info.features',
      );
      const missing = PROFILE_FEATURES.filter(
        ([profile, feature]) => context.sut.profiles.has(profile) && !info.features.includes(feature),
      );
      expectThat(
        replyXml,
        missing[0]?.[2] ?? 'gateway-info.features',
        missing.map(([profile, feature]) => `<feature var='${feature}'/> (profile ${profile})`).join('\n'),
        missing.length === 0,
      );
    },
  },
  {
    id: 'gateway-info.domain-jid',
    requirements: ['addressing.gateway-domain-jid'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'The gateway answers at a domain JID of its own: no localpart, no resource.',
    run: async (context) => {
      const gateway = parseJid(context.sut.gatewayJid);
      expectThat(
        context.sut.gatewayJid,
        'addressing.gateway-domain-jid',
        'a domain JID such as agents.example',
        gateway.localpart === undefined && gateway.resourcepart === undefined,
      );
      const caller = await context.callers.remote();
      const exchange = await caller.exchangeIq(context.sut.gatewayJid, 'get', buildDiscoInfoRequest({}));
      expectResultPayload(exchange, 'addressing.gateway-domain-jid', NS.discoInfo, 'query');
      expectThat(
        exchange.reply.xml,
        'addressing.gateway-domain-jid',
        `a reply from ${context.sut.gatewayJid}`,
        exchange.reply.from !== undefined && bareJidEquals(exchange.reply.from, context.sut.gatewayJid),
      );
    },
  },
  {
    id: 'gateway-info.advertised-discovery-features-answer',
    requirements: ['gateway-info.features', 'conformance.no-false-advertising'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-09', 'interp-43'],
    statement:
      'Each discovery feature the gateway advertises answers: disco#items lists the directory, RSM pages it, ping is answered; RSM is advertised.',
    run: async (context) => {
      const caller = await context.callers.local();
      const { info, replyXml } = await gatewayInfo(context, caller, 'gateway-info.features');
      const gateway = context.sut.gatewayJid;
      if (info.features.includes(NS.discoItems)) {
        expectDiscoItems(await discoItems(caller, gateway), 'conformance.no-false-advertising');
      }
      if (info.features.includes(NS.rsm)) {
        const exchange = await discoItems(caller, gateway, NODE_DIRECTORY, { max: 1 });
        const page = expectDiscoItems(exchange, 'conformance.no-false-advertising');
        expectThat(
          exchange.reply.xml,
          'conformance.no-false-advertising',
          'a page of at most one item with a <set/> (RSM is advertised)',
          page.items.length <= 1 && page.rsm !== undefined,
        );
      } else {
        context.warn(
          'gateway-info.features',
          `the gateway pages its directory but does not advertise ${NS.rsm} (interp-09):\n${replyXml}`,
        );
      }
      if (info.features.includes(NS.ping)) {
        expectResult(
          await caller.exchangeIq(gateway, 'get', xml('ping', { xmlns: NS.ping })),
          'conformance.no-false-advertising',
          'a result to the XEP-0199 ping it advertises',
        );
      }
    },
  },
]);
