/**
 * #endpoint-info: an endpoint's node-less disco#info — identity automation/agent-endpoint, the
 * disco features, its API features, and the endpoint-info form whose version and manifest hash
 * identify the active manifest (checked against the hash computed here from the fixture file,
 * interp-21). Also #addressing (each endpoint answers at its own bare JID, from local and
 * federated callers) and the answers for endpoints a caller may not see: the same as for a JID
 * that names nothing (#errors, interp-16, interp-17, interp-19).
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { parseBareJid } from '../../../protocol/jid/index.ts';
import {
  FEATURE,
  FORM_TYPE,
  HASH_ALGO_SHA256,
  IDENTITY_CATEGORY,
  IDENTITY_TYPE,
  NS,
} from '../../../protocol/namespaces.ts';
import type { DataForm, DiscoInfo } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  comparableXml,
  expectDiscoInfo,
  expectDiscoItems,
  expectExtensionForm,
  expectFeatures,
  expectFormField,
  expectIdentity,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  formField,
  requirePositiveControl,
  type ComparedReply,
} from '../../framework/expect.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import {
  requireWorld,
  type CallerRole,
  type FixtureEndpoint,
  type FixtureManifest,
  type ReferenceWorld,
} from '../../fixtures/reference-world.ts';
import { callerFor, discoInfo, discoItems, roleThatMaySee } from '../support/discovery.ts';
import { probeManifest } from '../support/manifests.ts';
import { expectRefusals } from '../support/refusals.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { modelCases } from './model-checks.ts';

interface EndpointView {
  readonly exchange: IqExchange;
  readonly info: DiscoInfo;
  readonly form: DataForm;
}

/** The endpoint's disco#info with its one endpoint-info form. */
async function endpointView(caller: Caller, jid: string, requirement: RequirementId): Promise<EndpointView> {
  const exchange = await discoInfo(caller, jid);
  const info = expectDiscoInfo(exchange, requirement);
  const form = expectExtensionForm(info, requirement, FORM_TYPE.endpointInfo, exchange.reply.xml);
  return { exchange, info, form };
}

/** Active endpoints the role may see; the cases need at least one. */
function visibleTo(
  world: ReferenceWorld,
  role: CallerRole,
): (FixtureEndpoint & { active: FixtureManifest })[] {
  const endpoints = world
    .listedFor(role)
    .filter(
      (endpoint): endpoint is FixtureEndpoint & { active: FixtureManifest } => endpoint.active !== undefined,
    );
  if (endpoints.length === 0) {
    throw new MissingFixture(
      `the fixture world shows the ${role} caller no active endpoint: grant it visibility of one`,
    );
  }
  return endpoints;
}

/** Identity, disco features, the form, and the API features a Tool Discovery claim rests on. */
async function expectEndpointInfo(context: CaseContext, role: CallerRole): Promise<void> {
  const world = requireWorld(context);
  const caller = await callerFor(context, role);
  for (const endpoint of visibleTo(world, role)) {
    const { exchange, info } = await endpointView(caller, endpoint.jid, 'endpoint-info.disco-info');
    const replyXml = exchange.reply.xml;
    expectIdentity(info, 'endpoint-info.disco-info', IDENTITY_CATEGORY, IDENTITY_TYPE.endpoint, replyXml);
    expectFeatures(info, 'endpoint-info.disco-info', [NS.discoInfo, NS.discoItems], replyXml);
    if (context.sut.profiles.has('tool-discovery')) {
      // Tool Discovery includes manifest and schema retrieval, and an endpoint advertises the
      // API features it implements (#endpoint-info, #conformance).
      expectFeatures(info, 'endpoint-info.disco-info', [FEATURE.manifest, FEATURE.schema], replyXml);
    }
  }
}

/** A positive decimal integer, as request_replay_seconds must be (interp-20). */
function isPositiveDecimal(text: string): boolean {
  return /^\+?[0-9]+$/.test(text) && /[1-9]/.test(text);
}

/**
 * Every endpoint the local caller may see gives `field` exactly one value, and `accepts` it
 * (`expected` says what it must be).
 */
async function expectFieldOfVisibleEndpoints(
  context: CaseContext,
  requirement: RequirementId,
  field: string,
  expected: string,
  accepts: (value: string) => boolean,
): Promise<void> {
  const world = requireWorld(context);
  const caller = await context.callers.local();
  for (const endpoint of visibleTo(world, 'local')) {
    const { form, exchange } = await endpointView(caller, endpoint.jid, requirement);
    const value = expectFormField(form, requirement, field, exchange.reply.xml);
    expectThat(exchange.reply.xml, requirement, expected, accepts(value));
  }
}

/**
 * Disco#info and disco#items for targets the caller may not see, and for one that names
 * nothing: item-not-found (service-unavailable only where the server answers for unknown JIDs,
 * interp-17) or, for items, an empty result (interp-16) — and all alike (interp-19).
 */
async function expectUnseenLikeNonexistent(
  context: CaseContext,
  role: CallerRole,
  unseen: readonly FixtureEndpoint[],
): Promise<void> {
  const world = requireWorld(context);
  const caller = await callerFor(context, role);
  // The positive control: each unseen endpoint answers a role whose grants let it see it.
  for (const endpoint of unseen) {
    const seer = await callerFor(context, roleThatMaySee(world, endpoint));
    requirePositiveControl(
      await discoInfo(seer, endpoint.jid),
      `disco#info of ${endpoint.jid} for ${seer.bareJid}, who may see it`,
    );
  }
  const targets = [
    { label: `nonexistent ${world.nonexistentJid}`, jid: world.nonexistentJid },
    ...unseen.map((endpoint) => ({ label: `unseen ${endpoint.jid}`, jid: endpoint.jid })),
  ];
  for (const query of ['info', 'items'] as const) {
    const replies: ComparedReply[] = [];
    for (const target of targets) {
      const exchange =
        query === 'info' ? await discoInfo(caller, target.jid) : await discoItems(caller, target.jid);
      if (query === 'info' || exchange.parsed.type === 'error') {
        expectStanzaError(
          exchange,
          'errors.not-found-equivalence',
          ['item-not-found', 'service-unavailable'],
          context,
        );
      } else {
        const items = expectDiscoItems(exchange, 'errors.not-found-equivalence');
        expectThat(
          exchange.reply.xml,
          'errors.not-found-equivalence',
          'item-not-found or an empty disco#items result',
          items.items.length === 0,
        );
      }
      replies.push({ label: `${query} of ${target.label}`, exchange, to: target.jid });
    }
    const [first, second, ...rest] = replies;
    if (first === undefined || second === undefined) throw new Error('at least two targets give two replies');
    expectIndistinguishable([first, second, ...rest], 'errors.not-found-equivalence', context);
  }
}

export const endpointInfoSuite = defineSuite('endpoint-info', 'Endpoint Information', { alongside: true }, [
  {
    id: 'endpoint-info.disco-info-local',
    requirements: ['endpoint-info.disco-info', 'addressing.endpoint-bare-jid'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'Every endpoint a local caller may see answers node-less disco#info at its bare JID with identity automation/agent-endpoint, the disco#info and disco#items features, its manifest and schema features and one endpoint-info form.',
    run: async (context) => {
      await expectEndpointInfo(context, 'local');
    },
  },
  {
    id: 'endpoint-info.disco-info-federated',
    requirements: [
      'endpoint-info.disco-info',
      'addressing.server-routes-endpoints',
      'addressing.endpoint-bare-jid',
    ],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'Every endpoint a federated caller may see (a hidden one its grant names included) answers its node-less disco#info across server-to-server.',
    run: async (context) => {
      await expectEndpointInfo(context, 'remote');
    },
  },
  {
    id: 'endpoint-info.required-fields',
    requirements: ['endpoint-info.required-fields'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-20', 'interp-21'],
    statement:
      'Every endpoint form has server_name, server_title, version, the manifest hash pair, cold_start_supported and request_replay_seconds, its version being the active one.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      for (const endpoint of visibleTo(world, 'local')) {
        const { form, exchange } = await endpointView(caller, endpoint.jid, 'endpoint-info.required-fields');
        const replyXml = exchange.reply.xml;
        const value = (name: string): string =>
          expectFormField(form, 'endpoint-info.required-fields', name, replyXml);
        for (const name of [
          'manifest_hash_algo',
          'manifest_hash_value',
          'cold_start_supported',
          'request_replay_seconds',
        ])
          value(name);
        const active = endpoint.active;
        expectThat(
          replyXml,
          'endpoint-info.required-fields',
          `version ${active.version}`,
          value('version') === active.version,
        );
        // interp-21: which names fill server_name and server_title is advice, not a rule.
        if (value('server_name') !== active.name) {
          context.warn(
            'endpoint-info.required-fields',
            `${endpoint.jid}: server_name is not the agent name ${active.name}`,
          );
        }
        const title = active.title ?? active.name;
        if (value('server_title') !== title) {
          context.warn('endpoint-info.required-fields', `${endpoint.jid}: server_title is not ${title}`);
        }
      }
    },
  },
  {
    id: 'endpoint-info.manifest-hash-fields',
    requirements: ['endpoint-info.manifest-hash-fields', 'endpoint-info.required-fields'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-01', 'interp-21'],
    statement:
      'The endpoint form gives the manifest hash as sha-256 with a bare Base64 value: the hash of the active manifest’s canonical bytes.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['local', 'remote'] as const) {
        const caller = await callerFor(context, role);
        for (const endpoint of visibleTo(world, role)) {
          const { form, exchange } = await endpointView(
            caller,
            endpoint.jid,
            'endpoint-info.manifest-hash-fields',
          );
          const replyXml = exchange.reply.xml;
          expectThat(
            replyXml,
            'endpoint-info.manifest-hash-fields',
            `manifest_hash_algo ${HASH_ALGO_SHA256}`,
            expectFormField(form, 'endpoint-info.manifest-hash-fields', 'manifest_hash_algo', replyXml) ===
              HASH_ALGO_SHA256,
          );
          const expected = endpoint.active.document.hash.value;
          expectThat(
            replyXml,
            'endpoint-info.manifest-hash-fields',
            `manifest_hash_value ${expected}: sha-256 of the canonical bytes of ${endpoint.jid} ${endpoint.active.version}, Base64 without a prefix`,
            expectFormField(form, 'endpoint-info.manifest-hash-fields', 'manifest_hash_value', replyXml) ===
              expected,
          );
        }
      }
    },
  },
  {
    id: 'endpoint-info.cold-start-boolean',
    requirements: ['endpoint-info.cold-start-boolean'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-20'],
    statement: 'cold_start_supported is written 1 or 0, nothing else.',
    run: (context) =>
      expectFieldOfVisibleEndpoints(
        context,
        'endpoint-info.cold-start-boolean',
        'cold_start_supported',
        'cold_start_supported 1 or 0',
        (value) => value === '1' || value === '0',
      ),
  },
  {
    id: 'endpoint-info.replay-window-field',
    requirements: ['endpoint-info.replay-window-field'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-20', 'interp-21'],
    statement: 'request_replay_seconds is a positive decimal integer.',
    run: (context) =>
      expectFieldOfVisibleEndpoints(
        context,
        'endpoint-info.replay-window-field',
        'request_replay_seconds',
        'a positive decimal integer',
        isPositiveDecimal,
      ),
  },
  {
    id: 'endpoint-info.feature-var-not-node',
    requirements: ['endpoint-info.feature-var-not-node'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-17'],
    statement: `${FEATURE.endpoint} used as a disco node of a visible endpoint gets item-not-found, for disco#info and disco#items.`,
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const caller = await context.callers.local();
      requirePositiveControl(
        await discoInfo(caller, endpoint.jid),
        `the node-less disco#info of ${endpoint.jid}`,
      );
      expectStanzaError(
        await discoInfo(caller, endpoint.jid, FEATURE.endpoint),
        'endpoint-info.feature-var-not-node',
        'item-not-found',
        context,
      );
      expectStanzaError(
        await discoItems(caller, endpoint.jid, FEATURE.endpoint),
        'endpoint-info.feature-var-not-node',
        'item-not-found',
        context,
      );
    },
  },
  {
    id: 'endpoint-info.nodeless-items',
    requirements: ['endpoint-info.disco-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16'],
    statement:
      'A visible endpoint, which advertises disco#items, answers a node-less disco#items query with a result (empty, or its tool collection), not an error.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const caller = await context.callers.local();
      expectDiscoItems(await discoItems(caller, endpoint.jid), 'endpoint-info.disco-info');
    },
  },
  {
    id: 'endpoint-info.jid-comparison',
    requirements: ['namespaces.jid-comparison', 'endpoint-info.disco-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-15', 'interp-25'],
    statement:
      'An endpoint addressed with its JID in another case answers as the endpoint itself: JIDs equal after preparation are one endpoint.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const { localpart, domainpart } = parseBareJid(endpoint.jid);
      const shouted = `${(localpart ?? '').toUpperCase()}@${domainpart}`;
      const caller = await context.callers.local();
      const plain = await discoInfo(caller, endpoint.jid);
      const cased = await discoInfo(caller, shouted);
      const payloadOf = (exchange: IqExchange): string => {
        expectDiscoInfo(exchange, 'namespaces.jid-comparison');
        return exchange.parsed.type === 'result' && exchange.parsed.payload !== undefined
          ? comparableXml(exchange.parsed.payload)
          : '';
      };
      expectThat(
        cased.reply.xml,
        'namespaces.jid-comparison',
        `the disco#info of ${endpoint.jid}:\n${plain.reply.xml}`,
        payloadOf(plain) === payloadOf(cased),
      );
    },
  },
  {
    id: 'endpoint-info.hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence', 'rules.uniform-visibility', 'endpoint-info.disco-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16', 'interp-17', 'interp-19'],
    statement:
      'To a local caller, a hidden endpoint’s disco#info and disco#items answer exactly as those of a JID that names nothing.',
    run: async (context) => {
      await expectUnseenLikeNonexistent(context, 'local', [requireWorld(context).hiddenEndpoint]);
    },
  },
  {
    id: 'endpoint-info.unseen-like-nonexistent-federated',
    scenario: 'equivalence',
    requirements: [
      'errors.not-found-equivalence',
      'rules.uniform-visibility',
      'security.federation-deny-default',
    ],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16', 'interp-17', 'interp-19'],
    statement:
      'Federated callers get for endpoints they may not see (visible to others, hidden, or anything at all from a domain without grants) exactly the answer for a JID that names nothing.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['remotePeer', 'denied'] as const) {
        const unseen = world.endpoints.filter(
          (endpoint) => endpoint.active !== undefined && !world.maySee(role, endpoint),
        );
        if (unseen.length === 0) {
          throw new MissingFixture(
            `every active endpoint of the fixture world is visible to the ${role} caller: nothing shows what it may not see`,
          );
        }
        await expectUnseenLikeNonexistent(context, role, unseen.slice(0, 3));
      }
    },
  },
  {
    id: 'endpoint-info.deactivated-no-version',
    requirements: ['endpoint-info.required-fields', 'endpoint-info.disco-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-23'],
    statement:
      'A deactivated endpoint advertises no version in node-less disco#info: it answers item-not-found or service-unavailable, or a result without a selected version.',
    run: async (context) => {
      const world = requireWorld(context);
      const endpoint = world.inactiveEndpoint;
      const caller = await context.callers.remote();
      // The positive control: an active endpoint the same caller may see advertises its version.
      const active = world.listedFor('remote')[0];
      if (active === undefined) {
        throw new MissingFixture('the fixture world shows the remote caller no active endpoint');
      }
      requirePositiveControl(
        await discoInfo(caller, active.jid),
        `the node-less disco#info of ${active.jid}, which the remote caller may see`,
      );
      const exchange = await discoInfo(caller, endpoint.jid);
      if (exchange.parsed.type === 'error') {
        expectStanzaError(
          exchange,
          'endpoint-info.required-fields',
          ['item-not-found', 'service-unavailable'],
          context,
        );
        return;
      }
      const info = expectDiscoInfo(exchange, 'endpoint-info.required-fields');
      const versions = info.forms.flatMap((form) => formField(form, 'version')?.values ?? []);
      expectThat(
        exchange.reply.xml,
        'endpoint-info.required-fields',
        'no version for an endpoint without an active one',
        versions.length === 0,
      );
    },
  },
  {
    id: 'endpoint-info.resource-in-agent-jid-refused',
    requirements: ['namespaces.no-resourcepart'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11', 'interp-25'],
    statement:
      'Registration refuses a manifest whose agent JID carries a resource, and registers nothing — after a valid manifest from the same registrant registered (the positive control).',
    run: async (context) => {
      await expectRefusals(context, 'namespaces.no-resourcepart', 'resource', [
        {
          label: 'an agent.jid with a resource',
          text: (jid, version) =>
            JSON.stringify(probeManifest(`${jid}/runtime`, version, { type: 'object' })),
          // interp-11 and #errors ("invalid endpoint identifier"); not the registrant's claim (interp-24).
          conditions: () => ['bad-request', 'not-acceptable', 'jid-malformed', 'not-allowed', 'forbidden'],
        },
      ]);
    },
  },
  ...modelCases,
]);
