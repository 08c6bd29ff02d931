/**
 * #manifest-retrieval: the active manifest (no version) and any registered version (exact
 * version), each served with its version, media type, hash and <json/> that is byte for byte the
 * RFC 8785 form of the fixture file whose sha-256 is the hash — the same hash the endpoint form
 * advertises. Formatting at registration is invisible. Access follows the discovery decision for
 * every role of the fixture world exactly (#rules): invoke permission alone does not open it, and
 * whoever may not see an endpoint gets what a JID naming nothing gets.
 */
import { xml } from '@xmpp/xml';
import type { IqExchange } from '../../../harness/driver/index.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { FORM_TYPE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { buildSchemaRequest, parseManifest, parseSchema } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectExtensionForm,
  expectFormField,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  type ComparedReply,
  expectParsedResult,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import {
  requireWorld,
  type CallerRole,
  type FixtureEndpoint,
  type FixtureManifest,
} from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { callerFor, discoInfo, roleThatMaySee } from '../support/discovery.ts';
import { expectServedManifest, manifestRequest } from '../support/served-manifest.ts';
import { discoverableRegistrant } from '../support/canary-listener.ts';
import { probeManifest } from '../support/manifests.ts';
import { expectRegistration, freshVersion, withRestore } from '../support/provisioning.ts';
import { modelCases } from './model-checks.ts';

/**
 * Every active manifest the role may see, served as the fixture's canonical bytes under the
 * hash its endpoint form advertises.
 */
async function expectActiveManifests(context: CaseContext, role: CallerRole): Promise<void> {
  const world = requireWorld(context);
  const caller = await callerFor(context, role);
  const endpoints = world.listedFor(role);
  if (endpoints.length === 0) {
    throw new MissingFixture(
      `the fixture world shows the ${role} caller no endpoint: grant it visibility of an active one`,
    );
  }
  for (const endpoint of endpoints) {
    if (endpoint.active === undefined) continue;
    const served = expectServedManifest(
      await manifestRequest(caller, endpoint.jid),
      'manifest-retrieval.result-contents',
      endpoint.active,
    );
    const exchange = await discoInfo(caller, endpoint.jid);
    const replyXml = exchange.reply.xml;
    const form = expectExtensionForm(
      expectDiscoInfo(exchange, 'manifest-retrieval.canonical-bytes'),
      'manifest-retrieval.canonical-bytes',
      FORM_TYPE.endpointInfo,
      replyXml,
    );
    expectThat(
      replyXml,
      'manifest-retrieval.canonical-bytes',
      `the hash the manifest result carries, ${served.hash.algo} ${served.hash.value}, in the endpoint form`,
      expectFormField(form, 'manifest-retrieval.canonical-bytes', 'manifest_hash_algo', replyXml) ===
        served.hash.algo &&
        expectFormField(form, 'manifest-retrieval.canonical-bytes', 'manifest_hash_value', replyXml) ===
          served.hash.value,
    );
  }
}

/** A manifest formatted unlike its canonical form: indentation, member order, escapes, number spellings. */
function oddlyFormatted(manifest: JsonObject): string {
  const reversed = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reversed);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([key, member]) => [key, reversed(member)]),
      );
    }
    return value;
  };
  return JSON.stringify(reversed(manifest), null, '\t')
    .replace('"Aé probe."', '"\\u0041\\u00e9 probe."')
    .replace('"minimum": 1.5', '"minimum": 1.50')
    .replace('"maximum": 100', '"maximum": 1E2');
}

/**
 * Sibling keys whose RFC 8785 order (UTF-16 code units) differs from code point order and from
 * locale order, written in locale order: a gateway that re-serializes with a locale collation or
 * by code point serves other bytes under another hash.
 */
const LOCALE_ORDERED_KEYS = [
  'a',
  'alpha',
  'B',
  'ı',
  'I',
  'i',
  'İ',
  'maximum',
  'maxItems',
  'Zeta',
  '\uFF5E',
  '\u{1F600}',
];

function keyOrderManifest(jid: string, version: string): JsonObject {
  const properties = Object.fromEntries(
    LOCALE_ORDERED_KEYS.map((key) => [key, { type: 'string', description: `the key ${key}` }]),
  );
  return probeManifest(
    jid,
    version,
    {
      type: 'object',
      properties: { ...properties, bounds: { type: ['number', 'array'], maximum: 10, maxItems: 3 } },
      additionalProperties: false,
    },
    {
      _meta: { 'agentconf.example/order': Object.fromEntries(LOCALE_ORDERED_KEYS.map((key, i) => [key, i])) },
    },
  );
}

/** Our own RFC 8785 output must put the pairs in UTF-16 order, or the case proves nothing. */
function expectUtf16Pairs(canonical: string): void {
  for (const [first, second] of [
    ['maxItems', 'maximum'],
    ['B', 'a'],
    ['I', 'i'],
    ['İ', 'ı'],
    ['\u{1F600}', '\uFF5E'],
  ] as const) {
    if (canonical.indexOf(`"${first}"`) > canonical.indexOf(`"${second}"`)) {
      throw new Error(`the suite's RFC 8785 output puts ${second} before ${first}`);
    }
  }
}

// Every case only reads what the fixture world holds (runner/case-concurrency.ts).
const alongside = { alongside: true };

export const manifestRetrievalSuite = defineSuite('manifest-retrieval', 'Manifest Retrieval', alongside, [
  {
    id: 'manifest-retrieval.active-local',
    requirements: [
      'manifest-retrieval.result-contents',
      'manifest-retrieval.canonical-bytes',
      'endpoint-info.manifest-hash-fields',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-01', 'interp-12'],
    statement:
      'A manifest request without a version returns, for every endpoint a local caller may see, the active version with exactly the canonical bytes of the registered manifest and their hash: the one the endpoint form advertises.',
    run: async (context) => {
      await expectActiveManifests(context, 'local');
    },
  },
  {
    id: 'manifest-retrieval.active-federated',
    requirements: ['manifest-retrieval.result-contents', 'manifest-retrieval.canonical-bytes'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-01'],
    statement:
      'A federated caller retrieves the active manifests of the endpoints its grants show it (a hidden one its grant names included) the same way.',
    run: async (context) => {
      await expectActiveManifests(context, 'remote');
    },
  },
  {
    id: 'manifest-retrieval.exact-version',
    requirements: [
      'manifest-retrieval.result-contents',
      'manifest-retrieval.canonical-bytes',
      'rules.version-pinning',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'A manifest request naming a registered version returns exactly that version — the active one or another — with its own hash and canonical bytes.',
    run: async (context) => {
      const { endpoint, other } = requireWorld(context).multiVersionEndpoint;
      const caller = await context.callers.local();
      expectServedManifest(
        await manifestRequest(caller, endpoint.jid, other.version),
        'manifest-retrieval.result-contents',
        other,
      );
      expectServedManifest(
        await manifestRequest(caller, endpoint.jid, endpoint.active.version),
        'manifest-retrieval.result-contents',
        endpoint.active,
      );
    },
  },
  {
    id: 'manifest-retrieval.deactivated-endpoint',
    requirements: ['manifest-retrieval.result-contents'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-23'],
    statement:
      'A deactivated endpoint has no active manifest to return: a request without a version gets item-not-found; its registered version stays retrievable by exact value (item-not-found there is only warned about).',
    run: async (context) => {
      const world = requireWorld(context);
      const endpoint = world.inactiveEndpoint;
      const caller = await context.callers.remote();
      // The positive control: an active endpoint the same caller may see serves its manifest.
      const active = world.listedFor('remote')[0];
      if (active?.active === undefined) {
        throw new MissingFixture('the fixture world shows the remote caller no active endpoint');
      }
      expectServedManifest(
        await manifestRequest(caller, active.jid),
        'manifest-retrieval.result-contents',
        active.active,
      );
      expectStanzaError(
        await manifestRequest(caller, endpoint.jid),
        'manifest-retrieval.result-contents',
        'item-not-found',
        context,
      );
      const [registered] = endpoint.versions;
      if (registered === undefined) return;
      const exact = await manifestRequest(caller, endpoint.jid, registered.version);
      if (exact.parsed.type === 'error') {
        expectStanzaError(exact, 'manifest-retrieval.result-contents', 'item-not-found', context);
        context.warn(
          'manifest-retrieval.result-contents',
          `${endpoint.jid} ${registered.version} is not retrievable by exact version after deactivation (interp-23)`,
        );
        return;
      }
      expectServedManifest(exact, 'manifest-retrieval.result-contents', registered);
    },
  },
  {
    id: 'manifest-retrieval.version-grammar',
    requirements: ['namespaces.version-grammar'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'A manifest request whose version breaks the version grammar (a slash, a space, 65 characters, empty) is refused.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const caller = await context.callers.local();
      // The positive control: the same request with the version as registered is served.
      expectServedManifest(
        await caller.exchangeIq(
          endpoint.jid,
          'get',
          xml('manifest-request', { xmlns: NS_AGENT_API, version: endpoint.active.version }),
        ),
        'manifest-retrieval.result-contents',
        endpoint.active,
      );
      for (const version of [
        `${endpoint.active.version}/x`,
        `${endpoint.active.version} `,
        'v'.repeat(65),
        '',
      ]) {
        const request = xml('manifest-request', { xmlns: NS_AGENT_API, version });
        const exchange = await caller.exchangeIq(endpoint.jid, 'get', request);
        expectStanzaError(exchange, 'namespaces.version-grammar', ['bad-request', 'item-not-found'], context);
      }
    },
  },
  {
    id: 'manifest-retrieval.same-access-as-discovery',
    requirements: [
      'manifest-retrieval.same-access-as-discovery',
      'rules.uniform-visibility',
      'errors.not-found-equivalence',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-26'],
    statement:
      'Every caller role retrieves the manifests of exactly the endpoints it may see; for each endpoint it may not see it gets what a JID naming nothing gets.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['local', 'remote', 'remotePeer', 'denied'] as const) {
        const caller = await callerFor(context, role);
        const missing = await manifestRequest(caller, world.nonexistentJid);
        expectStanzaError(missing, 'manifest-retrieval.same-access-as-discovery', 'item-not-found', context);
        for (const endpoint of world.endpoints) {
          if (endpoint.active === undefined) continue;
          const exchange = await manifestRequest(caller, endpoint.jid);
          if (world.maySee(role, endpoint)) {
            expectServedManifest(exchange, 'manifest-retrieval.same-access-as-discovery', endpoint.active);
            continue;
          }
          expectUnseen(
            exchange,
            'manifest-retrieval.same-access-as-discovery',
            missing,
            world.nonexistentJid,
            role,
            endpoint,
            context,
          );
        }
      }
    },
  },
  {
    id: 'manifest-retrieval.invoke-permission-insufficient',
    requirements: ['manifest-retrieval.invoke-permission-insufficient', 'errors.not-found-equivalence'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'A caller that may invoke an endpoint but not see it cannot retrieve its manifest, by active or exact version: it gets what a JID naming nothing gets (local caller and hidden endpoint, federated caller and restricted endpoint).',
    run: async (context) => {
      const world = requireWorld(context);
      const cases: [CallerRole, FixtureEndpoint & { active: FixtureManifest }][] = [];
      const hidden = world.hiddenEndpoint;
      if (world.mayInvokeAny('local', hidden)) cases.push(['local', hidden]);
      cases.push(['remote', world.invokeOnlyEndpoint]);
      for (const [role, endpoint] of cases) {
        // The positive control: a role that may see the endpoint retrieves it.
        const seer = await callerFor(context, roleThatMaySee(world, endpoint));
        expectServedManifest(
          await manifestRequest(seer, endpoint.jid, endpoint.active.version),
          'manifest-retrieval.result-contents',
          endpoint.active,
        );
        const caller = await callerFor(context, role);
        const missing = await manifestRequest(caller, world.nonexistentJid, endpoint.active.version);
        for (const version of [undefined, endpoint.active.version]) {
          const exchange = await manifestRequest(caller, endpoint.jid, version);
          expectUnseen(
            exchange,
            'manifest-retrieval.invoke-permission-insufficient',
            missing,
            world.nonexistentJid,
            role,
            endpoint,
            context,
          );
        }
      }
    },
  },
  {
    id: 'manifest-retrieval.formatting-invisible',
    requirements: ['manifest-retrieval.formatting-invisible'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    statement:
      'A manifest registered with tabs, reversed member order, escaped characters and other number spellings is hashed and served as its canonical form, and registering the same content formatted otherwise is the same registration.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        // An administrator's virtual endpoint when there is one: only the gateway serves its manifest.
        const registrant = await discoverableRegistrant(context, 'format');
        const version = freshVersion(context);
        const manifest = probeManifest(
          registrant.jid,
          version,
          { type: 'object', properties: { n: { type: 'number', minimum: 1.5, maximum: 100 } } },
          { description: 'Aé probe.' },
        );
        const expected = canonicalDocument(JSON.parse(oddlyFormatted(manifest)) as JsonObject);
        const canonical = canonicalDocument(manifest);
        if (expected.hash.value !== canonical.hash.value)
          throw new Error('the odd formatting changed the content');
        for (const text of [oddlyFormatted(manifest), JSON.stringify(manifest)]) {
          await expectRegistration(
            restorer,
            registrant,
            manifest,
            'manifest-retrieval.formatting-invisible',
            text,
          );
        }
        // Only a virtual endpoint's manifest is served by the gateway; a C2S account's bare JID is its server's.
        if (registrant.kind !== 'admin' || !context.sut.profiles.has('tool-discovery')) return;
        const served = await manifestRequest(registrant.provisioning.caller, registrant.jid, version);
        if (served.parsed.type === 'error') {
          // Never activated: exact versions of a deactivated endpoint may be withheld (interp-23).
          expectStanzaError(served, 'manifest-retrieval.formatting-invisible', 'item-not-found', context);
          return;
        }
        const result = expectParsedResult(
          served,
          'manifest-retrieval.formatting-invisible',
          NS_AGENT_API,
          'manifest',
          parseManifest,
        );
        expectThat(
          served.reply.xml,
          'manifest-retrieval.formatting-invisible',
          `the canonical bytes:\n${canonical.bytes.toString('utf8')}`,
          Buffer.from(result.json, 'utf8').equals(canonical.bytes),
        );
      }),
  },
  {
    id: 'manifest-retrieval.canonical-key-order',
    requirements: [
      'manifest-retrieval.formatting-invisible',
      'manifest-retrieval.canonical-bytes',
      'schemas.canonical-bytes',
    ],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-01'],
    statement:
      'A manifest whose sibling keys sort one way by UTF-16 code units (RFC 8785) and another by code point or locale — maxItems/maximum, a/B, ı/I/i/İ, U+FF5E/U+1F600 — sent in locale order is registered under the hash of its RFC 8785 bytes and, where an administrator activates it, served byte for byte, its tool’s input schema too.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await discoverableRegistrant(context, 'keys');
        const version = freshVersion(context);
        const manifest = keyOrderManifest(registrant.jid, version);
        const canonical = canonicalDocument(manifest);
        expectUtf16Pairs(canonical.bytes.toString('utf8'));
        // One registration cannot tell a hash that follows the sent key order from one over another
        // canonical form; both report a hash that is not of the RFC 8785 bytes.
        await expectRegistration(restorer, registrant, manifest, 'manifest-retrieval.canonical-bytes');
        // Only a virtual endpoint's manifest is served by the gateway; activation needs an administrator.
        if (registrant.kind !== 'admin' || !context.sut.profiles.has('tool-discovery')) return;
        requirePositiveControl(
          await registrant.provisioning.activate(registrant.jid, version, canonical.hash),
          `activating ${registrant.jid} ${version}`,
        );
        const caller = await context.callers.local();
        const served = await manifestRequest(caller, registrant.jid, version);
        if (served.parsed.type === 'error') {
          throw new MissingFixture(
            `the local caller may not retrieve the provisioned ${registrant.jid}: the deployment must show endpoints the administrator provisions to local callers for this case to read one back`,
          );
        }
        const result = expectParsedResult(
          served,
          'manifest-retrieval.canonical-bytes',
          NS_AGENT_API,
          'manifest',
          parseManifest,
        );
        expectThat(
          served.reply.xml,
          'manifest-retrieval.canonical-bytes',
          `exactly the RFC 8785 bytes, sibling keys in UTF-16 order:\n${canonical.bytes.toString('utf8')}`,
          Buffer.from(result.json, 'utf8').equals(canonical.bytes),
        );
        const tools = manifest['tools'];
        const tool: JsonValue | undefined = Array.isArray(tools) ? tools[0] : undefined;
        const inputSchema = isJsonObject(tool) ? tool['inputSchema'] : undefined;
        if (inputSchema === undefined) throw new Error('the probe manifest has a tool with an input schema');
        const schemaExchange = await caller.exchangeIq(
          registrant.jid,
          'get',
          buildSchemaRequest({ tool: 'probe', version, direction: 'input', manifestHash: canonical.hash }),
        );
        const schema = expectParsedResult(
          schemaExchange,
          'schemas.canonical-bytes',
          NS_AGENT_API,
          'schema',
          parseSchema,
        );
        const expected = canonicalDocument(inputSchema).bytes;
        expectThat(
          schemaExchange.reply.xml,
          'schemas.canonical-bytes',
          `exactly the RFC 8785 bytes of the input schema:\n${expected.toString('utf8')}`,
          Buffer.from(schema.json, 'utf8').equals(expected),
        );
      }),
  },
  ...modelCases,
]);

/**
 * An endpoint the role may not see answers its manifest request (`exchange`) exactly as
 * `missingJid`, a JID naming nothing, answered it (`missing`).
 */
function expectUnseen(
  exchange: IqExchange,
  requirement: RequirementId,
  missing: IqExchange,
  missingJid: string,
  role: CallerRole,
  endpoint: FixtureEndpoint,
  context: CaseContext,
): void {
  expectStanzaError(exchange, requirement, 'item-not-found', context);
  const replies: [ComparedReply, ComparedReply] = [
    { label: `nonexistent ${missingJid} (${role})`, exchange: missing, to: missingJid },
    { label: `unseen ${endpoint.jid} (${role})`, exchange, to: endpoint.jid },
  ];
  expectIndistinguishable(replies, 'errors.not-found-equivalence', context);
}
