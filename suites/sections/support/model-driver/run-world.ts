/**
 * The model's world for the run that is going on: what the gateway under test was actually given
 * (the ReferenceWorld, which already leaves out what admin-iq provisioning could not register and
 * refuses decisions that wait on an unconfirmed checklist item) in the setting of this run (its
 * gateway JID, its accounts, the SUT file's documented page cap).
 *
 * Grants are not copied from the world file: each role the run can act as gets one principal grant
 * holding exactly the endpoints and tools ReferenceWorld says it may see and invoke. Those are the
 * world file's semantics as the suites read them (suites/fixtures), independent of any gateway, and
 * a decision the run cannot make (an unconfirmed item) ends the case as cantTell here, before any
 * stanza is judged. The driver only acts as these roles, so nothing is lost for them.
 */
import { compareUtf8, normalizeBareJid, normalizeJid, parseBareJid } from '../../../../protocol/jid/index.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { MissingFixture } from '../../../framework/verdicts.ts';
import type { JsonObject } from '../../../../protocol/json/json-value.ts';
import {
  referenceWorldOf,
  requireWorld,
  type CallerRole,
  type FixtureEndpoint,
  type ReferenceWorld,
} from '../../../fixtures/reference-world.ts';
import {
  modelEndpointOf,
  type ModelEndpoint,
  type WorldDomains,
  type ModelGrant,
  type ModelWorld,
  type Principal,
  type PrincipalKind,
} from '../../../model/index.ts';

/** The caller roles the driver acts as, and the model principal each one is. */
export const DRIVEN_ROLES = [
  'local',
  'localPeer',
  'remote',
  'remotePeer',
  'toolGrantee',
  'denied',
  'admin',
] as const;
export type DrivenRole = (typeof DRIVEN_ROLES)[number];

const KIND_OF_ROLE: Readonly<Record<DrivenRole, PrincipalKind>> = {
  local: 'local',
  localPeer: 'localPeer',
  remote: 'remote',
  remotePeer: 'remotePeer',
  toolGrantee: 'toolGrantee',
  denied: 'hostile',
  admin: 'admin',
};

/** The world the model judges against, and which run role is which of its principals. */
export interface RunWorld {
  readonly model: ModelWorld;
  /** The roles this run has an account for, in DRIVEN_ROLES order. */
  readonly roles: readonly DrivenRole[];
  principalOf(role: DrivenRole): Principal;
}

function roleJid(world: ReferenceWorld, role: CallerRole): string | undefined {
  try {
    return world.jidOf(role);
  } catch (problem) {
    if (problem instanceof MissingFixture) return undefined;
    throw problem;
  }
}

/**
 * The run's endpoints through the model's one endpoint converter (world-file.ts), as the world
 * file would write them. Runtime availability is told by presence only and the driver never asks
 * what depends on it, so no endpoint is given a runtime or a chat role here.
 */
function endpointsOf(endpoints: readonly FixtureEndpoint[], domains: WorldDomains): ModelEndpoint[] {
  return endpoints.map((endpoint) =>
    modelEndpointOf(
      {
        jid: endpoint.jid,
        versions: endpoint.versions.map((manifest) => ({ manifest: manifest.value })),
        ...(endpoint.active === undefined ? {} : { active: endpoint.active.version }),
        hidden: endpoint.hidden,
        restrictedInvocation: endpoint.restrictedInvocation,
      },
      { domains, chatEndpoints: [] },
    ),
  );
}

/** One principal grant per role: what ReferenceWorld lets it see and invoke, nothing more. */
function grantOf(
  world: ReferenceWorld,
  endpoints: readonly FixtureEndpoint[],
  role: DrivenRole,
  bare: string,
): ModelGrant {
  const see = new Set<string>();
  const invoke = new Map<string, Set<string>>();
  for (const endpoint of endpoints) {
    if (world.maySee(role, endpoint)) see.add(endpoint.jid);
    const names = new Set(endpoint.versions.flatMap((manifest) => manifest.tools.map((tool) => tool.name)));
    const granted = [...names].filter((name) => world.mayInvoke(role, endpoint, name));
    if (granted.length > 0) invoke.set(endpoint.jid, new Set(granted));
  }
  return { subject: { principal: bare }, seeAll: false, see, invokeAll: false, invoke };
}

/**
 * The run's world as the model sees it, with the endpoints a case provisioned itself
 * (`provisioned`, world-file shaped: generated-world.ts), which the run's grants cover as they
 * cover any endpoint they do not name, acting as the `driven` roles the run has an account for.
 * MissingFixture (cantTell) when the run has no fixture world, or when a grant decision waits on
 * an unconfirmed checklist item.
 */
export function runWorldOf(
  context: CaseContext,
  provisioned: readonly JsonObject[] = [],
  driven: readonly DrivenRole[] = DRIVEN_ROLES,
): RunWorld {
  const world = requireWorld(context);
  const added = referenceWorldOf(
    { endpoints: [...provisioned] },
    world.roles,
    'the generated world',
  ).endpoints;
  // A version added to a run endpoint joins it; the endpoint keeps its flags and active version.
  const endpoints = [
    ...world.endpoints.map((endpoint) => {
      const extra = added.filter((other) => other.jid === endpoint.jid).flatMap((other) => other.versions);
      return extra.length === 0 ? endpoint : { ...endpoint, versions: [...endpoint.versions, ...extra] };
    }),
    ...added.filter((endpoint) => !world.endpoints.some((known) => known.jid === endpoint.jid)),
  ];
  const local = world.jidOf('local');
  const remote = world.jidOf('remote');
  const denied = world.jidOf('denied');
  const domainOf = (jid: string): string => parseBareJid(jid).domainpart;
  const principals = new Map<DrivenRole, Principal>();
  for (const role of driven) {
    const jid = roleJid(world, role);
    if (jid === undefined) continue;
    const bare = normalizeBareJid(jid);
    principals.set(role, { kind: KIND_OF_ROLE[role], bare, full: normalizeJid(`${bare}/model`) });
  }
  const roles = DRIVEN_ROLES.filter((role) => principals.has(role));
  const grants = roles.map((role) => grantOf(world, endpoints, role, principals.get(role)?.bare ?? ''));
  const pageMax = context.sut.limits?.rsmPageMax;
  const principalRecord = Object.fromEntries(
    [...principals.values()].map((principal) => [principal.kind, principal]),
  ) as ModelWorld['principals'];
  const domains: WorldDomains = {
    gateway: normalizeBareJid(context.sut.gatewayJid),
    delegated: [],
    server: domainOf(local),
    peer: domainOf(remote),
    hostile: domainOf(denied),
  };
  const model: ModelWorld = {
    domains,
    principals: principalRecord,
    admins: new Set(principals.has('admin') ? [principals.get('admin')?.bare ?? ''] : []),
    selfRegistration: false,
    endpoints: endpointsOf(endpoints, domains).toSorted((a, b) => compareUtf8(a.jid, b.jid)),
    grants,
    limits: {
      ...(pageMax === undefined ? {} : { pageMax }),
      rateLimits: {},
      principalRateLimits: new Map(),
      taskCapacityOf: new Map(),
    },
    blocklists: new Map(),
  };
  return {
    model,
    roles,
    principalOf(role) {
      const principal = principals.get(role);
      if (principal === undefined) throw new MissingFixture(`the run has no ${role} account`);
      return principal;
    },
  };
}
