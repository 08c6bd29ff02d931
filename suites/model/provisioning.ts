/**
 * Administrative Provisioning and Self Registration (#registration-flow, #security, #errors).
 *
 * Who: only a trusted administrator provisions; anyone else gets forbidden or item-not-found,
 * the same whether or not the target exists (security.admin-authentication, interp-24), and
 * federation alone grants nothing (registration-flow.federation-grants-nothing). Self-registration
 * is for a local account's own bare JID only (rules.self-registration-own-jid).
 *
 * For what: the gateway hosts endpoints below its own domain or domains delegated to it
 * (#addressing). Model position (not in spec-positions.md): provisioning a JID on any other domain
 * must not succeed, since no server routes that JID to the gateway, and a C2S account's JID is
 * that account's to register (#registration-flow: self-registration proves control of the JID);
 * a gateway that registered either would act for an address it does not host (#security, sender
 * spoofing). The spec names no condition, so every refusal condition of the #errors table that
 * fits passes. Endpoints a local account
 * self-registered live on the server's domain; whether an administrator may manage them the spec
 * does not say, so success and those refusals both pass.
 *
 * Outcomes for hosted targets follow the operation table of #registration-flow and interp-24.
 */
import {
  JidError,
  bareJidEquals,
  normalizeBareJid,
  parseBareJid,
  parseJid,
} from '../../protocol/jid/index.ts';
import { hostedEndpoint } from './directory.ts';
import { error, expectation, pass, type Alternative, type Expectation } from './expectation.ts';
import { hostedDomains, versionOf, type ModelEndpoint, type ModelWorld, type Principal } from './world.ts';

export const ADMIN_OPERATIONS = [
  'register',
  'activate',
  'deactivate',
  'registration-status',
  'remove-version',
  'remove-endpoint',
] as const;
export type AdminOperation = (typeof ADMIN_OPERATIONS)[number];

/** The successful result child of each operation (#registration-flow's table). */
export const RESULT_ELEMENT: Readonly<Record<AdminOperation, string>> = {
  register: 'registered',
  activate: 'active',
  deactivate: 'deactivated',
  'registration-status': 'registration',
  'remove-version': 'removed',
  'remove-endpoint': 'removed',
};

export interface AdminRequest {
  readonly operation: AdminOperation;
  /** The target JID as sent. */
  readonly jid: string;
  readonly version?: string;
  /** The hash child (activate) or the hash of the manifest sent (register). */
  readonly hash?: string;
  /** register: whether the manifest validates (#manifest). */
  readonly manifestValid?: boolean;
  /** register: a removed version's tombstone holds this version (interp-24). */
  readonly tombstone?: 'identical' | 'different';
  /** remove-version / remove-endpoint: a retained task or result depends on the version(s). */
  readonly retainedByTask?: boolean;
}

const REFUSALS_OUTSIDE = [
  'item-not-found',
  'bad-request',
  'not-acceptable',
  'not-allowed',
  'forbidden',
] as const;

/** A target that cannot be an endpoint identifier: a malformed JID or one with a resource. */
function malformedTarget(jid: string): boolean {
  try {
    return parseJid(jid).resourcepart !== undefined;
  } catch (problem) {
    if (problem instanceof JidError) return true;
    throw problem;
  }
}

function hostsDomainOf(world: ModelWorld, jid: string): boolean {
  return hostedDomains(world).includes(parseBareJid(normalizeBareJid(jid)).domainpart);
}

function result(operation: AdminOperation): Alternative {
  return pass({ kind: 'provisioned', element: RESULT_ELEMENT[operation] });
}

function onHostedTarget(request: AdminRequest, endpoint: ModelEndpoint | undefined): Alternative[] {
  const { operation } = request;
  if (operation === 'register') {
    if (request.manifestValid === false) return [pass(error('bad-request')), pass(error('not-acceptable'))];
    const existing =
      endpoint === undefined || request.version === undefined
        ? undefined
        : versionOf(endpoint, request.version);
    if (existing !== undefined)
      return existing.hash === request.hash ? [result(operation)] : [pass(error('conflict'))];
    if (request.tombstone === 'different') return [pass(error('conflict'))];
    if (request.tombstone === 'identical')
      return [result(operation), pass(error('conflict'), 'a restore may be refused (interp-24)')];
    return [result(operation)];
  }
  if (endpoint === undefined) {
    // Status of a JID with nothing registered: the nonexistent object's item-not-found, or an empty registration.
    return operation === 'registration-status'
      ? [pass(error('item-not-found')), pass({ kind: 'provisioned', element: 'registration', versions: [] })]
      : [pass(error('item-not-found'))];
  }
  const version = request.version === undefined ? undefined : versionOf(endpoint, request.version);
  switch (operation) {
    case 'activate':
      if (version === undefined) return [pass(error('item-not-found'))];
      return version.hash === request.hash
        ? [result(operation)]
        : [pass(error('conflict')), pass(error('item-not-found'))];
    case 'deactivate':
      // Deactivating an inactive endpoint: the spec is silent; the pointer is already absent.
      return endpoint.active === undefined
        ? [result(operation), pass(error('conflict'))]
        : [result(operation)];
    case 'registration-status':
      // Every registered version, the active one marked, each with its hash (#registration-flow).
      return [
        pass({
          kind: 'provisioned',
          element: RESULT_ELEMENT[operation],
          versions: endpoint.versions.map((registered) => ({
            id: registered.version,
            active: registered.version === endpoint.active,
            hash: registered.hash,
          })),
        }),
      ];
    case 'remove-version':
      if (version === undefined) return [pass(error('item-not-found'))];
      if (endpoint.active === version.version || request.retainedByTask === true) {
        return [pass(error('conflict')), pass(error('not-allowed'))];
      }
      return [result(operation)];
    case 'remove-endpoint':
      return request.retainedByTask === true
        ? [pass(error('conflict')), pass(error('not-allowed'))]
        : [result(operation)];
  }
}

/** The answers to an administrative IQ from `principal`. */
export function administration(world: ModelWorld, principal: Principal, request: AdminRequest): Expectation {
  const operation = `${request.operation} ${request.jid}${request.version === undefined ? '' : ` ${request.version}`} by ${principal.bare}`;
  if (!world.admins.has(principal.bare)) {
    return expectation({
      operation,
      requirements: ['security.admin-authentication', 'registration-flow.federation-grants-nothing'],
      interpretations: ['interp-24'],
      alternatives: [pass(error('forbidden')), pass(error('item-not-found'))],
      sameAsNonexistent: true,
      unauthorized: true,
    });
  }
  const requirements = ['registration-flow.admin-operations'];
  if (malformedTarget(request.jid)) {
    return expectation({
      operation,
      requirements: [...requirements, 'namespaces.no-resourcepart'],
      interpretations: ['interp-25'],
      alternatives: [pass(error('bad-request')), pass(error('jid-malformed')), pass(error('not-acceptable'))],
    });
  }
  const endpoint = hostedEndpoint(world, request.jid);
  if (!hostsDomainOf(world, request.jid)) {
    const refusals = REFUSALS_OUTSIDE.map((condition) => pass(error(condition)));
    const selfRegistered = endpoint?.provisioning === 'self';
    // Reading is not provisioning: nothing is registered under such a JID, and an empty
    // registration says so as truthfully as for a nonexistent JID of the gateway's own domain.
    if (request.operation === 'registration-status' && !selfRegistered)
      refusals.push(pass({ kind: 'provisioned', element: 'registration', versions: [] }));
    return expectation({
      operation,
      // Registering a JID of another domain or account would have the gateway act for an address
      // it does not host (#security: no sender spoofing for virtual endpoint JIDs; #addressing).
      requirements:
        request.operation === 'register' && !selfRegistered
          ? ['security.no-sender-spoofing', 'addressing.endpoint-bare-jid', ...requirements]
          : requirements,
      alternatives: selfRegistered ? [...onHostedTarget(request, endpoint), ...refusals] : refusals,
    });
  }
  const alternatives = onHostedTarget(request, endpoint);
  return expectation({
    operation,
    requirements: [
      ...requirements,
      ...(request.operation === 'register'
        ? ['registration-flow.version-immutable', 'registration-flow.validate-before-commit']
        : []),
      ...(request.operation.startsWith('remove') ? ['registration-flow.removal-blocked-by-tasks'] : []),
    ],
    interpretations: ['interp-11', 'interp-24'],
    alternatives,
  });
}

/**
 * A <register/> from the principal for a manifest whose agent.jid is `manifestJid`, outside
 * the administrative path (Self Registration).
 */
export function selfRegistration(
  world: ModelWorld,
  principal: Principal,
  manifestJid: string,
  manifestValid = true,
): Expectation {
  const operation = `self-registration of ${manifestJid} by ${principal.bare}`;
  const local = parseJid(principal.bare).domainpart === world.domains.server;
  if (!local) {
    return expectation({
      operation,
      requirements: ['registration-flow.federation-grants-nothing', 'security.federation-deny-default'],
      interpretations: ['interp-24'],
      alternatives: (['forbidden', 'not-allowed', 'item-not-found', 'service-unavailable'] as const).map(
        (condition) => pass(error(condition)),
      ),
    });
  }
  if (!world.selfRegistration) {
    return expectation({
      operation,
      requirements: ['conformance.no-false-advertising'],
      interpretations: ['interp-07'],
      alternatives: [pass(error('service-unavailable')), pass(error('feature-not-implemented'))],
    });
  }
  const own = bareJidEquals(manifestJid, principal.bare);
  if (!own) {
    return expectation({
      operation,
      requirements: ['rules.self-registration-own-jid'],
      interpretations: ['interp-24'],
      alternatives: [pass(error('forbidden')), pass(error('not-allowed')), pass(error('item-not-found'))],
    });
  }
  return expectation({
    operation,
    requirements: ['rules.self-registration-own-jid', 'registration-flow.validate-before-commit'],
    interpretations: ['interp-11'],
    alternatives: manifestValid
      ? [pass({ kind: 'provisioned', element: 'registered' })]
      : [pass(error('bad-request')), pass(error('not-acceptable'))],
  });
}
