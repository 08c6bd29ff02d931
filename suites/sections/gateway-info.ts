/**
 * #gateway-info and #conformance: the gateway's own disco#info — its identity, and the features
 * every claimed profile rests on. Asked by a local and by a federated caller, because a
 * gateway that only answers its own server is useless to the federation.
 */
import { FEATURE, IDENTITY_CATEGORY, IDENTITY_TYPE, NS } from '../../protocol/namespaces.ts';
import { buildDiscoInfoRequest, parseDiscoInfo } from '../../protocol/stanza/index.ts';
import type { Caller } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../harness/sut/profiles.ts';
import { defineSuite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { expectParsed, expectResultPayload, expectThat } from '../framework/expect.ts';

async function gatewayInfo(context: CaseContext, caller: Caller, requirement: string) {
  const exchange = await caller.exchangeIq(context.sut.gatewayJid, 'get', buildDiscoInfoRequest({}));
  const payload = expectResultPayload(exchange, requirement, NS.discoInfo, 'query');
  return {
    info: expectParsed(parseDiscoInfo, payload, requirement, exchange.reply.xml),
    replyXml: exchange.reply.xml,
  };
}

async function expectGatewayIdentity(context: CaseContext, caller: Caller): Promise<void> {
  const requirement = 'gateway-info.identity';
  const { info, replyXml } = await gatewayInfo(context, caller, requirement);
  expectThat(
    info.identities.some(
      (identity) => identity.category === IDENTITY_CATEGORY && identity.type === IDENTITY_TYPE.gateway,
    ),
    requirement,
    `an <identity category='${IDENTITY_CATEGORY}' type='${IDENTITY_TYPE.gateway}'/>`,
    replyXml,
  );
}

/** The gateway-level feature each profile cannot work without (#conformance, #gateway-info). */
const PROFILE_FEATURES: readonly (readonly [ProfileId, string])[] = [
  ['core-directory', FEATURE.directory],
  ['jabber-search', NS.search],
  ['admin-provisioning', FEATURE.admin],
  ['self-registration', FEATURE.selfRegister],
];

export const gatewayInfoSuite = defineSuite('gateway-info', 'Gateway Information', [
  {
    name: 'identity-local',
    requirements: ['gateway-info.identity'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'The gateway identifies itself as automation/agent-gateway to a caller on its own server.',
    run: async (context) => {
      await expectGatewayIdentity(context, await context.callers.local());
    },
  },
  {
    name: 'identity-federated',
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
    name: 'claimed-profiles-advertised',
    requirements: ['gateway-info.features'],
    profiles: ['core-directory', 'jabber-search', 'admin-provisioning', 'self-registration'],
    level: 'MUST',
    statement:
      'Every profile the gateway claims is backed by the feature it rests on in the gateway’s disco#info (a claim without the feature cannot be used).',
    run: async (context) => {
      const requirement = 'gateway-info.features';
      const { info, replyXml } = await gatewayInfo(context, await context.callers.local(), requirement);
      const missing = PROFILE_FEATURES.filter(
        ([profile, feature]) => context.sut.profiles.has(profile) && !info.features.includes(feature),
      );
      expectThat(
        missing.length === 0,
        requirement,
        missing.map(([profile, feature]) => `<feature var='${feature}'/> (profile ${profile})`).join('\n'),
        replyXml,
      );
    },
  },
]);
