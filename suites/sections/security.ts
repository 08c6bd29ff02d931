/**
 * #security: federated discovery is denied by default — a domain no operator enabled gets an
 * empty directory and search, and every endpoint answers it like one that does not exist — and
 * provisioning is only for the authenticated administrator: everyone else gets forbidden (or
 * item-not-found), the same whether the target exists or not, and nothing changes.
 *
 * Rate limits (security.rate-limits) are not tested: the SUT config documents no rate-limit
 * thresholds a case could exceed. Invocation, sender spoofing, credentials and content-as-data
 * need task execution and belong to the task suites; registration by federated accounts is
 * registration-flow.federation-grants-nothing.
 */
import { xml } from '@xmpp/xml';
import type { IqExchange } from '../../harness/driver/index.ts';
import { FEATURE, NODE_DIRECTORY, NS, NS_AGENT_API } from '../../protocol/namespaces.ts';
import { defineSuite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import {
  expectDiscoItems,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  type ComparedReply,
} from '../framework/expect.ts';
import { requireWorld, type CallerRole } from '../fixtures/reference-world.ts';
import { callerFor, discoItems, listing } from './support/discovery.ts';
import { minimalManifest } from './support/manifests.ts';
import {
  adminFor,
  describeVersions,
  freshEndpoint,
  freshVersion,
  Provisioning,
  registeredVersions,
  unauthorizedConditions,
  withRestore,
} from './support/provisioning.ts';
import { readFound, searchLegacy } from './support/search.ts';
import { nonexistentLike, probe, SURFACES, targetOf } from './support/surfaces.ts';

const DENY = 'security.federation-deny-default';
const ADMIN_AUTH = 'security.admin-authentication';

/** The non-admin roles: local, self-registrant, federated with grants, with domain grants, denied. */
const NON_ADMINS: readonly (CallerRole | 'registrant')[] = [
  'local',
  'registrant',
  'remote',
  'remotePeer',
  'denied',
];

export const securitySuite = defineSuite('security', 'Security Considerations', [
  {
    name: 'deny-by-default',
    requirements: [DENY, 'errors.not-found-equivalence'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14', 'interp-18', 'interp-19'],
    statement:
      'A caller from a domain no grant names gets an empty directory (count 0), an empty search, and for every endpoint — active, hidden or deactivated — endpoint information and manifest answers identical to those for an endpoint that does not exist.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.denied();
      const gateway = context.sut.gatewayJid;
      const directory = await discoItems(caller, gateway, NODE_DIRECTORY, { max: 10 });
      const items = expectDiscoItems(directory, DENY);
      expectThat(
        items.items.length === 0 && (items.rsm?.count ?? 0) === 0,
        DENY,
        'an empty directory (no item, count 0 if counted)',
        directory.reply.xml,
      );
      if (context.sut.features.has(NS.search)) {
        const search = await searchLegacy(caller, gateway, {}, { max: 10 });
        if (search.parsed.type === 'error') {
          expectStanzaError(context, search, DENY, 'not-acceptable');
        } else {
          const found = readFound(search, DENY);
          expectThat(found.jids.length === 0, DENY, 'an empty search result', listing(found.jids));
        }
      }
      const nobody = freshEndpoint(context, 'nobody').jid;
      const surfaces = SURFACES.filter(
        (surface) =>
          surface.name === 'endpoint info' ||
          (surface.name === 'exact manifest' && context.sut.profiles.has('tool-discovery')),
      );
      for (const surface of surfaces) {
        const targets = world.endpoints
          .filter((endpoint) => endpoint.versions.some((v) => v.tools.length > 0))
          .map(targetOf);
        const first = targets[0];
        if (first === undefined) return;
        const missing = nonexistentLike(first, nobody);
        const replies = await Promise.all(
          [missing, ...targets].map((target) => probe(caller, target, surface)),
        );
        const compared: ComparedReply[] = replies.map((exchange, index) => {
          const target = index === 0 ? missing : targets[index - 1];
          return { label: `${surface.name} of ${target?.jid ?? ''}`, exchange, to: target?.jid ?? '' };
        });
        for (const { exchange } of compared) expectStanzaError(context, exchange, DENY, 'item-not-found');
        const [a, b, ...rest] = compared;
        if (a !== undefined && b !== undefined)
          expectIndistinguishable(context, [a, b, ...rest], 'errors.not-found-equivalence');
      }
    },
  },
  {
    name: 'admin-authentication',
    requirements: [ADMIN_AUTH, 'registration-flow.federation-grants-nothing'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-19', 'interp-24'],
    statement:
      'Every provisioning operation (register, activate, deactivate, registration-status, remove-version, remove-endpoint, and a malformed one) from a local account, the self-registrant, federated accounts and a denied domain gets forbidden or item-not-found — the same for an existing endpoint and a nonexistent one — and the existing endpoint’s registration is unchanged.',
    run: async (context: CaseContext) =>
      withRestore(context, async (restorer) => {
        const world = requireWorld(context);
        const { endpoint, other } = world.multiVersionEndpoint;
        const existing = endpoint.jid;
        const nobody = freshEndpoint(context, 'nobody').jid;
        const version = freshVersion(context);
        type Operation = (provisioning: Provisioning, jid: string) => Promise<IqExchange>;
        const operations: readonly (readonly [string, Operation])[] = [
          [
            'register',
            async (p, jid) => {
              const exchange = await p.register(JSON.stringify(minimalManifest(jid, version)));
              // Wrongly accepted: take it away again (the world endpoint loses only this version).
              if (exchange.parsed.type === 'result') {
                if (jid === nobody) restorer.track(jid);
                else restorer.removeVersionAtEnd(jid, version);
              }
              return exchange;
            },
          ],
          ['activate', (p, jid) => p.activate(jid, endpoint.active.version, endpoint.active.document.hash)],
          ['deactivate', (p, jid) => p.deactivate(jid)],
          ['registration-status', (p, jid) => p.status(jid)],
          ['remove-version', (p, jid) => p.removeVersion(jid, other.version)],
          ['remove-endpoint', (p, jid) => p.removeEndpoint(jid)],
        ];
        // Should a non-admin move the active pointer, it is moved back before later cases run.
        restorer.reactivateAtEnd({
          jid: existing,
          version: endpoint.active.version,
          hash: endpoint.active.document.hash,
        });
        for (const role of NON_ADMINS) {
          const caller =
            role === 'registrant' ? await context.callers.registrant() : await callerFor(context, role);
          const provisioning = new Provisioning(caller, context.sut.gatewayJid);
          const malformed = caller.exchangeIq(
            context.sut.gatewayJid,
            'set',
            xml('activate', { xmlns: NS_AGENT_API }),
          );
          const pairs = await Promise.all(
            operations.map(async ([name, operation]) => ({
              name,
              replies: await Promise.all([
                operation(provisioning, existing),
                operation(provisioning, nobody),
              ]),
            })),
          );
          for (const { name, replies } of pairs) {
            const [onExisting, onMissing] = replies;
            // A non-admin's <register/> for another JID is a failed self-registration (interp-24, interp-07).
            const allowed =
              name === 'register'
                ? unauthorizedConditions(context)
                : ['forbidden' as const, 'item-not-found' as const];
            expectStanzaError(context, onExisting, ADMIN_AUTH, allowed);
            expectIndistinguishable(
              context,
              [
                { label: `${role} ${name} ${existing}`, exchange: onExisting, to: context.sut.gatewayJid },
                { label: `${role} ${name} ${nobody}`, exchange: onMissing, to: context.sut.gatewayJid },
              ],
              ADMIN_AUTH,
            );
          }
          expectStanzaError(context, await malformed, ADMIN_AUTH, [
            'forbidden',
            'item-not-found',
            'bad-request',
          ]);
        }
        const admin = await adminFor(context);
        const versions = await registeredVersions(context, admin, existing, ADMIN_AUTH);
        const expected = endpoint.versions.map((manifest) => ({
          id: manifest.version,
          active: manifest === endpoint.active,
          removable: manifest !== endpoint.active,
          hash: manifest.document.hash,
        }));
        const unchanged =
          versions.length === expected.length &&
          expected.every((want) =>
            versions.some(
              (have) =>
                have.id === want.id && have.active === want.active && have.hash.value === want.hash.value,
            ),
          );
        expectThat(
          unchanged,
          ADMIN_AUTH,
          `the registration of ${existing} unchanged:\n${describeVersions(expected)}`,
          describeVersions(versions),
        );
      }),
  },
]);
