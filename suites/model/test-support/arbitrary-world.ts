/**
 * fast-check worlds for the model's properties (and for the generated-world driver to come):
 * endpoints whose JIDs and tool names include the ordering traps of interp-13 and interp-15
 * (names whose UTF-8 order differs from their base64url node order, a BMP and an astral
 * localpart that sort one way by UTF-8 and the other by UTF-16), several versions, hidden and
 * restricted flags, deactivated endpoints, and grants of every shape the world file allows. No
 * grant ever names the hostile server: it is the server nobody configured.
 */
import fc from 'fast-check';
import { compareUtf8 } from '../../../protocol/jid/index.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { REFERENCE_SETTING, versionOfManifest } from '../world-file.ts';
import {
  PRINCIPAL_KINDS,
  type ModelEndpoint,
  type ModelGrant,
  type ModelWorld,
  type Principal,
  type PrincipalKind,
} from '../world.ts';

const LOCALPARTS = ['alpha', 'beta', 'calc', 'z', 'a-b', 'a0', '\u{FA0E}', '\u{20000}', 'weather', 'x.y'];
const VERSIONS = ['1.0.0', '2.0', '1.0.0-b', 'v'];
const TOOL_NAMES = ['A', 'Ж', 'a', 'b.c', 'ä', 'get', 'z z'];
const DOMAINS = REFERENCE_SETTING.domains;

function manifest(
  jid: string,
  version: string,
  tools: readonly string[],
  title: string | undefined,
): JsonObject {
  const agent: JsonObject = { jid, name: jid.split('@')[0] ?? jid, version };
  if (title !== undefined) agent['title'] = title;
  return {
    manifestSpecVersion: '0',
    agent,
    tools: tools.map((name) => ({
      name,
      inputSchema: { type: 'object', properties: { [name]: { type: 'string' } } },
      'urn:xmpp:agent-api:0': { maximumTimeoutSeconds: 120 },
    })),
  };
}

const endpointArbitrary = (localpart: string): fc.Arbitrary<ModelEndpoint> => {
  const jid = `${localpart}@${DOMAINS.gateway}`;
  return fc
    .record({
      versions: fc.uniqueArray(
        fc.record({
          version: fc.constantFrom(...VERSIONS),
          tools: fc.uniqueArray(fc.constantFrom(...TOOL_NAMES), { maxLength: 5 }),
          title: fc.option(fc.constantFrom('Weather Agent', 'Calc', 'ALPHA'), { nil: undefined }),
        }),
        { minLength: 1, maxLength: 3, selector: (entry) => entry.version },
      ),
      activeIndex: fc.option(fc.nat(2), { nil: undefined }),
      hidden: fc.boolean(),
      restrictedInvocation: fc.boolean(),
      available: fc.boolean(),
    })
    .map(({ versions, activeIndex, hidden, restrictedInvocation, available }) => ({
      jid,
      versions: versions.map((entry) =>
        versionOfManifest(manifest(jid, entry.version, entry.tools, entry.title)),
      ),
      active: activeIndex === undefined ? undefined : versions[activeIndex % versions.length]?.version,
      hidden,
      restrictedInvocation,
      provisioning: 'admin',
      available,
      chat: false,
    }));
};

const SUBJECTS = [
  { domain: DOMAINS.server },
  { domain: DOMAINS.peer },
  ...(['local', 'localPeer', 'remote', 'remotePeer', 'registrant'] as const).map((kind) => ({
    principal: REFERENCE_SETTING.accounts[kind],
  })),
];

function grantArbitrary(endpoints: readonly ModelEndpoint[]): fc.Arbitrary<ModelGrant> {
  const jids = endpoints.map((endpoint) => endpoint.jid);
  const toolsOf = (jid: string): string[] => [
    ...new Set(
      endpoints.find((endpoint) => endpoint.jid === jid)?.versions.flatMap((v) => v.tools.map((t) => t.name)),
    ),
  ];
  const invokeEntry: fc.Arbitrary<[string, 'all' | ReadonlySet<string>]> =
    jids.length === 0
      ? fc.constant(['nobody@agents.example', 'all'])
      : fc.constantFrom(...jids).chain((jid) =>
          fc.oneof(
            fc.constant<[string, 'all']>([jid, 'all']),
            fc
              .subarray(toolsOf(jid).length === 0 ? ['none'] : toolsOf(jid), { minLength: 1 })
              .map((tools): [string, ReadonlySet<string>] => [jid, new Set(tools)]),
          ),
        );
  return fc.record({
    subject: fc.constantFrom(...SUBJECTS),
    seeAll: fc.boolean(),
    see: fc.subarray(jids).map((see) => new Set(see)),
    invokeAll: fc.boolean(),
    invoke: fc.array(invokeEntry, { maxLength: 3 }).map((entries) => new Map(entries)),
  });
}

/** Principals with the reference accounts (the hostile one never granted anything). */
export function principalsOf(): Record<PrincipalKind, Principal> {
  return Object.fromEntries(
    PRINCIPAL_KINDS.map((kind) => {
      const bare = REFERENCE_SETTING.accounts[kind];
      return [kind, { kind, bare, full: `${bare}/gen` }];
    }),
  ) as Record<PrincipalKind, Principal>;
}

export const worldArbitrary: fc.Arbitrary<ModelWorld> = fc
  .uniqueArray(fc.constantFrom(...LOCALPARTS), { maxLength: 7 })
  .chain((localparts) => fc.tuple(...localparts.map(endpointArbitrary)))
  .chain((endpoints) =>
    fc.record({
      endpoints: fc.constant(endpoints.toSorted((a, b) => compareUtf8(a.jid, b.jid))),
      grants: fc.array(grantArbitrary(endpoints), { maxLength: 6 }),
      pageMax: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    }),
  )
  .map(({ endpoints, grants, pageMax }) => ({
    domains: DOMAINS,
    principals: principalsOf(),
    admins: new Set(REFERENCE_SETTING.admins),
    selfRegistration: true,
    endpoints,
    grants,
    limits: {
      ...(pageMax === undefined ? {} : { pageMax }),
      rateLimits: {},
      principalRateLimits: new Map(),
      taskCapacityOf: new Map(),
    },
    blocklists: new Map(),
  }));

export const principalKindArbitrary = fc.constantFrom(...PRINCIPAL_KINDS);

/** A JID on the gateway's domain no generated endpoint has. */
export const NONEXISTENT_JID = `nobody-here@${DOMAINS.gateway}`;
