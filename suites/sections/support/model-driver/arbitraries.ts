/**
 * fast-check arbitraries of model steps over a given world: random principals, and arguments drawn
 * from what the world holds plus what it does not — hidden and nonexistent endpoint JIDs, tool
 * names and versions no manifest has, nodes of other versions, stale hashes, UIDs outside the
 * visible set for RSM. The world is an input, so a generated world plugs in unchanged.
 */
import fc from 'fast-check';
import { FEATURE, NODE_DIRECTORY } from '../../../../protocol/namespaces.ts';
import { encodeCollectionNode, encodeToolNode } from '../../../../protocol/tool-node.ts';
import { parseBareJid } from '../../../../protocol/jid/index.ts';
import type { RsmRequest } from '../../../../protocol/stanza/index.ts';
import {
  activeVersionOf,
  mayInvoke,
  maySee,
  searchBounds,
  searchFields,
  type ModelWorld,
  type Principal,
} from '../../../model/index.ts';
import type { ModelOperation, ModelStep } from './operations.ts';
import type { DrivenRole } from './run-world.ts';

/** A well-formed sha-256 Base64 value no manifest of any world has (32 zero bytes). */
export const FOREIGN_HASH = Buffer.alloc(32).toString('base64');

/** A tool name no manifest has. */
const ABSENT_TOOL = 'absent.tool';

/** A version label no manifest has; also what an admin `register` step claims. */
const ABSENT_VERSION = '0.0.0-absent';

/** What the world names, and names it does not have, for the operations to draw from. */
export interface Target {
  readonly jid: string;
  readonly version: string;
  readonly tool: string;
  readonly hash: string;
}

export interface WorldVocabulary {
  readonly roles: readonly DrivenRole[];
  readonly jids: readonly string[];
  readonly absentJids: readonly string[];
  readonly versions: readonly string[];
  readonly tools: readonly string[];
  readonly hashes: readonly string[];
  readonly nicks: readonly string[];
  /** (endpoint, version, tool) triples the world holds, grouped by endpoint so each is as likely. */
  readonly targets: readonly (readonly Target[])[];
  /**
   * Per role, the triples on the edge of its grants: tools of an endpoint it may invoke only some
   * of, endpoints it may invoke but not see or see but not invoke. Where access bugs live.
   */
  readonly edges: ReadonlyMap<DrivenRole, readonly Target[]>;
  /** Endpoints the case provisioned itself (generated-world.ts): refusals of changes to them harm nothing. */
  readonly scratch: readonly string[];
  /** Well-formed JIDs on domains the gateway does not host; a JID with a resource. */
  readonly outside: readonly string[];
  readonly malformed: readonly string[];
  /** Each role's own bare JID: a requester naming itself (a registrant's own JID). */
  readonly selves: ReadonlyMap<DrivenRole, string>;
  /** Each active endpoint's active version: removing it must be refused. */
  readonly active: readonly Target[];
}

/**
 * The targets of an endpoint a principal may invoke some tools of: every tool it may invoke, and,
 * per version, the tools it may not that a plausible bug admits — a longer name starting with a
 * granted one or one differing only in case (names matched loosely), the neighbours of each
 * granted tool in UTF-8 order and the first and last tool (a range, or the whole endpoint). On an
 * endpoint with a few tools that is all of them; on toolbox's forty it keeps the edge steps few.
 */
function partialGrantEdges(real: readonly Target[], invocable: readonly Target[]): Target[] {
  const granted = new Set(invocable);
  const names = new Set(invocable.map((target) => target.tool));
  const loose = (tool: string): boolean =>
    [...names].some((name) => tool.startsWith(name) || tool.toLowerCase() === name.toLowerCase());
  const kept = new Set<Target>(invocable);
  for (const version of new Set(real.map((target) => target.version))) {
    const tools = real.filter((target) => target.version === version);
    tools.forEach((target, index) => {
      const nextToGranted = [tools[index - 1], tools[index + 1]].some(
        (neighbour) => neighbour !== undefined && granted.has(neighbour),
      );
      if (nextToGranted || index === 0 || index === tools.length - 1 || loose(target.tool)) kept.add(target);
    });
  }
  return real.filter((target) => kept.has(target));
}

function edgeTargets(
  world: ModelWorld,
  principal: Principal,
  targets: readonly (readonly Target[])[],
): Target[] {
  const invocableOf = (group: readonly Target[]): Target[] => {
    const endpoint = world.endpoints.find((candidate) => candidate.jid === group[0]?.jid);
    return endpoint === undefined
      ? []
      : group.filter(
          (target) => target.tool !== ABSENT_TOOL && mayInvoke(world, principal, endpoint, target.tool),
        );
  };
  // Names the principal may invoke somewhere: the same name elsewhere is not granted by them.
  const grantedNames = new Set(targets.flatMap((group) => invocableOf(group).map((target) => target.tool)));
  return targets.flatMap((group) => {
    const endpoint = world.endpoints.find((candidate) => candidate.jid === group[0]?.jid);
    if (endpoint === undefined) return [];
    const real = group.filter((target) => target.tool !== ABSENT_TOOL);
    const invocable = invocableOf(group);
    // A grant that names some tools: each one it names (a gateway keeping one of several per-tool
    // grants refuses a named tool), and the ones it does not name that a bug reaches first.
    if (invocable.length > 0 && invocable.length < real.length) return partialGrantEdges(real, invocable);
    // Seeing without invoking, or invoking without seeing.
    if (maySee(world, principal, endpoint) !== invocable.length > 0) return real;
    if (invocable.length === 0) return real.filter((target) => grantedNames.has(target.tool));
    // Several tools granted on one endpoint: a gateway keeping only one of several grants (the
    // first or the last) refuses the first or the last of them, whatever the grants' order.
    const first = invocable[0];
    const last = invocable[invocable.length - 1];
    return first === undefined || last === undefined || first === last ? [] : [first, last];
  });
}

/**
 * Each role's grant edges. The tool grantee is there for its own per-tool grants; elsewhere it has
 * its domain's grants, which remotePeer's edges already try: a target remotePeer tries with the
 * same decision is left to it (weather's tools, a shared name), so the grantee's steps stay few
 * under a documented invocation rate.
 */
function edgesOfRoles(
  world: ModelWorld,
  roles: readonly DrivenRole[],
  principalOf: (role: DrivenRole) => Principal,
  targets: readonly (readonly Target[])[],
): Map<DrivenRole, readonly Target[]> {
  const edges = new Map(roles.map((role) => [role, edgeTargets(world, principalOf(role), targets)]));
  const peerEdges = edges.get('remotePeer');
  const grantee = edges.get('toolGrantee');
  if (peerEdges === undefined || grantee === undefined) return edges;
  const decision = (role: DrivenRole, target: Target): string => {
    const endpoint = world.endpoints.find((candidate) => candidate.jid === target.jid);
    if (endpoint === undefined) return 'absent';
    const principal = principalOf(role);
    return `${String(maySee(world, principal, endpoint))} ${String(mayInvoke(world, principal, endpoint, target.tool))}`;
  };
  const triedByPeer = (target: Target): boolean =>
    peerEdges.some(
      (tried) =>
        tried.jid === target.jid &&
        tried.version === target.version &&
        tried.tool === target.tool &&
        decision('remotePeer', tried) === decision('toolGrantee', target),
    );
  edges.set(
    'toolGrantee',
    grantee.filter((target) => !triedByPeer(target)),
  );
  return edges;
}

export function vocabularyOf(
  world: ModelWorld,
  roles: readonly DrivenRole[],
  principalOf: (role: DrivenRole) => Principal,
  scratch: readonly string[] = [],
): WorldVocabulary {
  const { gateway, server, peer, hostile } = world.domains;
  const versions = world.endpoints.flatMap((endpoint) => endpoint.versions);
  const jids = world.endpoints.map((endpoint) => endpoint.jid);
  const fields = world.endpoints.flatMap((endpoint) => searchFields(endpoint));
  // Words of descriptions: no reading of #search matches on them, so they must find nothing new.
  const descriptionWords = versions.flatMap((version) =>
    (version.description ?? '').split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 5),
  );
  const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];
  const targets = world.endpoints.map((endpoint) =>
    endpoint.versions.flatMap((version) =>
      [...version.tools.map((tool) => tool.name), ABSENT_TOOL].map((tool) => ({
        jid: endpoint.jid,
        version: version.version,
        tool,
        hash: version.hash,
      })),
    ),
  );
  return {
    roles,
    jids,
    // One before every endpoint in octet order, one after, one in the middle of the alphabet.
    absentJids: ['0-absent', 'model-absent', 'zz-absent'].map((local) => `${local}@${gateway}`),
    versions: unique([...versions.map((version) => version.version), ABSENT_VERSION]),
    tools: unique([...versions.flatMap((version) => version.tools.map((tool) => tool.name)), ABSENT_TOOL]),
    hashes: unique([...versions.map((version) => version.hash), FOREIGN_HASH]),
    nicks: unique([
      ...fields,
      ...fields.map((field) => field.toUpperCase()),
      ...fields.filter((field) => field.length > 2).map((field) => field.slice(1, -1)),
      ...jids.map((jid) => parseBareJid(jid).localpart ?? ''),
      ...descriptionWords,
      'absent-nick',
    ]).filter((nick) => nick !== ''),
    targets,
    edges: edgesOfRoles(world, roles, principalOf, targets),
    scratch,
    outside: [server, peer, hostile].map((domain) => `model-absent@${domain}`),
    malformed: [`model-absent@${gateway}/model`],
    selves: new Map(roles.map((role) => [role, principalOf(role).bare])),
    active: world.endpoints.flatMap((endpoint) => {
      const active = activeVersionOf(endpoint);
      return active === undefined
        ? []
        : [{ jid: endpoint.jid, version: active.version, tool: '', hash: active.hash }];
    }),
  };
}

function rsmArbitrary(uids: readonly string[]): fc.Arbitrary<RsmRequest> {
  const max = fc.integer({ min: 0, max: 4 });
  const uid = fc.constantFrom(...uids);
  return fc.oneof(
    max.map((size) => ({ max: size })),
    fc.record({ max, after: uid }),
    fc.record({ max, before: fc.oneof(fc.constant(''), uid) }),
    fc.record({ max, index: fc.integer({ min: 0, max: 12 }) }),
  );
}

export type OperationFamily =
  'directory' | 'search' | 'endpoint-info' | 'tool-discovery' | 'metadata' | 'invocation' | 'provisioning';

/** The operations of one family over the vocabulary. */
export function operationArbitrary(
  vocabulary: WorldVocabulary,
  family: OperationFamily,
  role: DrivenRole,
): fc.Arbitrary<ModelOperation> {
  const jid = fc.constantFrom(...vocabulary.jids, ...vocabulary.absentJids);
  const version = fc.constantFrom(...vocabulary.versions);
  const tool = fc.constantFrom(...vocabulary.tools);
  const hash = fc.constantFrom(...vocabulary.hashes);
  // Three in four targets name a tool of a version of the endpoint addressed; the rest mix freely.
  const edges = vocabulary.edges.get(role) ?? [];
  // Every endpoint as likely as every other (not every tool), and the role's grant edges as often.
  const choices: fc.WeightedArbitrary<Target>[] = [
    {
      weight: 2,
      arbitrary: fc.constantFrom(...vocabulary.targets).chain((group) => fc.constantFrom(...group)),
    },
    { weight: 1, arbitrary: fc.record({ jid, version, tool, hash }) },
  ];
  if (edges.length > 0) choices.push({ weight: 2, arbitrary: fc.constantFrom(...edges) });
  const target = fc.oneof(...choices);
  switch (family) {
    case 'directory':
      return fc
        .record(
          {
            node: fc.constant(NODE_DIRECTORY),
            rsm: rsmArbitrary([...vocabulary.jids, ...vocabulary.absentJids]),
          },
          { requiredKeys: [] },
        )
        .map((parts) => ({ kind: 'directory' as const, ...parts }));
    case 'search':
      return fc
        .record(
          {
            nick: fc.oneof(
              { weight: 9, arbitrary: fc.constantFrom(...vocabulary.nicks) },
              { weight: 1, arbitrary: fc.constant('') },
            ),
            rsm: rsmArbitrary([...vocabulary.jids, ...vocabulary.absentJids]),
          },
          { requiredKeys: ['nick'] },
        )
        .map((parts) => ({ kind: 'search' as const, ...parts }));
    case 'endpoint-info':
      return fc.oneof(
        fc.record({ jid }).map((parts) => ({ kind: 'endpoint-info' as const, ...parts })),
        // The endpoint feature var is not a node (endpoint-info.feature-var-not-node).
        fc
          .record({ jid, node: fc.constant(FEATURE.endpoint) })
          .map((parts) => ({ kind: 'endpoint-info' as const, ...parts })),
        fc.record({ jid }).map((parts) => ({ kind: 'endpoint-items' as const, ...parts })),
      );
    case 'tool-discovery': {
      const collection = target.map((pinned) => ({
        jid: pinned.jid,
        node: encodeCollectionNode(pinned.version),
      }));
      const toolNode = target.map((pinned) => ({
        jid: pinned.jid,
        node: encodeToolNode(pinned.version, pinned.tool),
      }));
      return fc.oneof(
        fc.oneof(collection, toolNode).map((at) => ({ kind: 'endpoint-info' as const, ...at })),
        fc
          .record(
            { at: collection, rsm: fc.record({ max: fc.integer({ min: 0, max: 4 }) }) },
            { requiredKeys: ['at'] },
          )
          .map(({ at, rsm }) => ({
            kind: 'collection-items' as const,
            ...at,
            ...(rsm === undefined ? {} : { rsm }),
          })),
      );
    }
    case 'metadata':
      return fc.oneof(
        fc
          .record({ jid, version }, { requiredKeys: ['jid'] })
          .map((parts) => ({ kind: 'manifest' as const, ...parts })),
        fc
          .record({
            at: target,
            direction: fc.constantFrom('input' as const, 'output' as const),
            // Mostly the hash of the version named; sometimes another version's, or none's.
            stale: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hash }),
          })
          .map(({ at, direction, stale }) => ({
            kind: 'schema' as const,
            jid: at.jid,
            tool: at.tool,
            version: at.version,
            direction,
            manifestHash: stale ?? at.hash,
          })),
      );
    case 'provisioning':
      return provisioningArbitrary(vocabulary, role, target);
    case 'invocation':
      return fc.record({ at: target, stale: fc.option(hash, { freq: 2 }) }).map(({ at, stale }) => ({
        kind: 'invoke' as const,
        jid: at.jid,
        tool: at.tool,
        version: at.version,
        manifestHash: stale ?? at.hash,
      }));
  }
}

type AdminStep = ModelOperation & { kind: 'admin' };

/**
 * Administrative IQs whose only permitted outcomes leave the world as it is, so that the model's
 * world stays the gateway's: from a non-admin, registration-status of anything (refused), and any
 * operation on the case's own endpoints, nonexistent, foreign, malformed or its own JID (all
 * refused); from the administrator, registration-status of the case's own endpoints and of
 * targets it does not host, changes to targets the gateway does not host or that do not exist,
 * registration of a manifest claiming a JID the gateway does not host (another domain's, another
 * account's), activation with a hash no manifest has or of an absent version, removal of an
 * active version (all refused).
 */
function provisioningArbitrary(
  vocabulary: WorldVocabulary,
  role: DrivenRole,
  target: fc.Arbitrary<Target>,
): fc.Arbitrary<ModelOperation> {
  const self = vocabulary.selves.get(role) ?? vocabulary.absentJids[0] ?? '';
  const unhosted = [...vocabulary.absentJids, ...vocabulary.outside, ...vocabulary.malformed, self];
  // The administrator's listing of a run endpoint shows versions other cases may leave behind
  // (one a retained task blocks from removal, interp-24), which the world file does not hold:
  // only the case's own endpoints have a registration history the model knows whole.
  const listed = role === 'admin' ? vocabulary.scratch : vocabulary.jids;
  const status = fc
    .constantFrom(...listed, ...unhosted)
    .map((jid): AdminStep => ({ kind: 'admin', request: 'registration-status', jid }));
  const change = (jids: readonly string[]): fc.Arbitrary<AdminStep> =>
    fc
      .record({
        request: fc.constantFrom('activate', 'deactivate', 'remove-version', 'remove-endpoint'),
        jid: fc.constantFrom(...jids),
        version: fc.constantFrom(...vocabulary.versions),
        manifestHash: fc.constantFrom(...vocabulary.hashes),
      })
      .map((parts): AdminStep => ({ kind: 'admin', ...parts }));
  if (role !== 'admin') return fc.oneof(status, change([...vocabulary.scratch, ...unhosted]));
  const registerAbroad = fc
    .constantFrom(...claimedElsewhere(vocabulary, role))
    .map((jid): AdminStep => ({ kind: 'admin', request: 'register', jid, version: ABSENT_VERSION }));
  const refusedOnHosted: fc.Arbitrary<AdminStep>[] = [
    target.map((at): AdminStep => ({
      kind: 'admin',
      request: 'activate',
      jid: at.jid,
      version: at.version,
      manifestHash: FOREIGN_HASH,
    })),
    target.map((at): AdminStep => ({
      kind: 'admin',
      request: 'activate',
      jid: at.jid,
      version: ABSENT_VERSION,
      manifestHash: at.hash,
    })),
  ];
  if (vocabulary.active.length > 0)
    refusedOnHosted.push(
      fc.constantFrom(...vocabulary.active).map((at): AdminStep => ({
        kind: 'admin',
        request: 'remove-version',
        jid: at.jid,
        version: at.version,
      })),
    );
  return fc.oneof(status, change(unhosted), registerAbroad, ...refusedOnHosted);
}

/**
 * JIDs the administrator must not register a manifest for: well-formed JIDs on the domains the
 * gateway does not host (the C2S server's, the federated peer's, the hostile one's) and the bare
 * JIDs of the run's other accounts (C2S and federated), never the administrator's own (which it
 * may self-register as the C2S account it is).
 */
function claimedElsewhere(vocabulary: WorldVocabulary, admin: DrivenRole): string[] {
  const accounts = [...vocabulary.selves].filter(([role]) => role !== admin).map(([, jid]) => jid);
  return [...new Set([...vocabulary.outside, ...accounts])];
}

/** Steps: a random principal of the run and an operation of the family. */
export function stepArbitrary(vocabulary: WorldVocabulary, family: OperationFamily): fc.Arbitrary<ModelStep> {
  return fc
    .constantFrom(...vocabulary.roles)
    .chain((role) => operationArbitrary(vocabulary, family, role).map((operation) => ({ role, operation })));
}

/** Description words at least this long are tried as nicks: shorter ones tend to occur in names. */
const DESCRIPTION_WORD_MIN = 5;

/**
 * Nicks only an agent description holds, each with a role that sees the endpoint: no reading of
 * #search matches a description, so each must find nothing the names do not already find.
 */
function descriptionOnlySearches(
  world: ModelWorld,
  roles: readonly DrivenRole[],
  principalOf: (role: DrivenRole) => Principal,
): ModelStep[] {
  return world.endpoints.flatMap((endpoint) => {
    const description = activeVersionOf(endpoint)?.description ?? '';
    const role = roles.find((candidate) => maySee(world, principalOf(candidate), endpoint));
    if (role === undefined) return [];
    const nick = description
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= DESCRIPTION_WORD_MIN)
      .find((word) => {
        const bounds = searchBounds(world, principalOf(role), word);
        return ![...bounds.permitted, ...bounds.tolerated].includes(endpoint.jid);
      });
    return nick === undefined ? [] : [{ role, operation: { kind: 'search' as const, nick } }];
  });
}

/**
 * Administrative IQs at the edges of who and what: every non-admin asking the status of and
 * deactivating one of the case's own endpoints, and the administrator asking the status of and
 * removing every kind of target the gateway does not host (a foreign domain, itself, a JID with a
 * resource, a nonexistent endpoint of its own domain), registering a manifest for each JID it
 * does not host (every other domain, every other account of the run) and removing an active
 * version.
 */
function provisioningEdges(vocabulary: WorldVocabulary): ModelStep[] {
  const scratch = vocabulary.scratch[0];
  const steps: ModelStep[] = [];
  for (const role of vocabulary.roles) {
    const self = vocabulary.selves.get(role) ?? '';
    if (role !== 'admin') {
      for (const jid of scratch === undefined ? [] : [scratch]) {
        steps.push({ role, operation: { kind: 'admin', request: 'registration-status', jid } });
        steps.push({ role, operation: { kind: 'admin', request: 'deactivate', jid } });
      }
      continue;
    }
    const unhosted = [
      ...vocabulary.outside,
      self,
      ...vocabulary.malformed,
      ...vocabulary.absentJids.slice(0, 1),
    ];
    for (const jid of unhosted) {
      steps.push({ role, operation: { kind: 'admin', request: 'registration-status', jid } });
      steps.push({ role, operation: { kind: 'admin', request: 'remove-endpoint', jid } });
    }
    for (const jid of claimedElsewhere(vocabulary, role))
      steps.push({ role, operation: { kind: 'admin', request: 'register', jid, version: ABSENT_VERSION } });
    for (const jid of scratch === undefined ? [] : [scratch])
      steps.push({ role, operation: { kind: 'admin', request: 'registration-status', jid } });
    const active =
      vocabulary.active.find((target) => vocabulary.scratch.includes(target.jid)) ?? vocabulary.active[0];
    if (active !== undefined)
      steps.push({
        role,
        operation: { kind: 'admin', request: 'remove-version', jid: active.jid, version: active.version },
      });
  }
  return steps;
}

/**
 * The steps every check tries before random ones, one step each, whatever the seed: the edges where
 * a plausible bug hides and random sampling finds it only by luck. For invocation, every grant edge
 * of every role (a tool a partial tool grant leaves out, an endpoint seen but not invocable or
 * invocable but not seen), sent with a hash no manifest has so that an authorized request stops at
 * the hash check and nothing starts; for search, every description-only nick.
 */
export function edgeSteps(
  world: ModelWorld,
  vocabulary: WorldVocabulary,
  family: OperationFamily,
  principalOf: (role: DrivenRole) => Principal,
): ModelStep[] {
  const distinct = (steps: readonly ModelStep[]): ModelStep[] => [
    ...new Map(steps.map((step) => [JSON.stringify(step), step])).values(),
  ];
  switch (family) {
    case 'invocation':
      return vocabulary.roles.flatMap((role) =>
        (vocabulary.edges.get(role) ?? []).map((target) => ({
          role,
          operation: {
            kind: 'invoke' as const,
            jid: target.jid,
            tool: target.tool,
            version: target.version,
            manifestHash: FOREIGN_HASH,
          },
        })),
      );
    case 'search':
      return distinct(descriptionOnlySearches(world, vocabulary.roles, principalOf));
    case 'provisioning':
      return distinct(provisioningEdges(vocabulary));
    default:
      return [];
  }
}
