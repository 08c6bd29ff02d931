/**
 * Loading the fixture world into the store at start: the deployment-local administration that
 * #registration-flow allows instead of provisioning IQs. The same rules as <register/> apply
 * (intake, immutability, tombstones); the world is trusted, so no authorization step.
 *
 * Idempotent: loading the same world again changes nothing. In detail:
 * - a listed version already stored with the same content is left alone; with different
 *   content it is a startup error (the world may not rewrite an immutable version);
 * - a listed version an administrator removed (tombstone, same content) stays removed: the
 *   world does not resurrect it; different content is a startup error, forever;
 * - the declared active version is applied only when it differs from what the world declared
 *   at the previous load (world_declarations), so later administrative activations and
 *   deactivations survive restarts;
 * - the world's grants and endpoint overrides replace the previous world's as a whole.
 * Everything is checked first and written in one transaction: a world with any problem
 * changes nothing, and the error lists every problem.
 */
import type { FixtureWorld, WorldEndpoint } from '../config/fixture-world.ts';
import type { EndpointPolicy } from '../policy/policy-rules.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { intakeManifest, type AcceptedManifest, type ManifestLimits } from './manifest-intake.ts';
import type { Outcome, RegistrationFault } from './registration-fault.ts';

export interface WorldProblem {
  /** JSON pointer in the world file. */
  readonly path: string;
  readonly message: string;
}

export class WorldProvisioningError extends Error {
  override readonly name = 'WorldProvisioningError';
  constructor(
    readonly source: string,
    readonly problems: readonly WorldProblem[],
  ) {
    super(
      [
        `${source}: the fixture world cannot be loaded (${problems.length} problem(s))`,
        ...problems.map((p) => `${p.path}: ${p.message}`),
      ].join('\n  '),
    );
  }
}

export interface WorldReport {
  /** Versions stored by this load. */
  readonly created: number;
  /** Versions that were stored already, identically. */
  readonly unchanged: number;
  /** Versions an administrator removed since an earlier load; left removed. */
  readonly keptRemoved: number;
  /** Endpoints whose active pointer this load set or cleared. */
  readonly pointersApplied: number;
  readonly policyChanged: boolean;
}

/** How a manifest is taken in: intakeManifest, or the same through the intake cache. */
export type Intake = (
  text: string | Uint8Array,
  limits: ManifestLimits,
) => Promise<Outcome<AcceptedManifest>>;

interface CheckedEndpoint {
  readonly declaration: WorldEndpoint;
  readonly versions: readonly AcceptedManifest[];
}

function describeFault(origin: string, fault: RegistrationFault): string {
  const details = (fault.violations ?? []).map(
    (v) => `${v.path === '' ? '/' : v.path} ${v.message} [${v.rule}]`,
  );
  return [
    `${origin === 'inline' ? 'the inline manifest' : origin} is refused (${fault.reason})`,
    ...details,
  ].join('; ');
}

/** Stage 1: every manifest through intake, and the world's own consistency. */
async function checkEndpoints(
  world: FixtureWorld,
  limits: ManifestLimits,
  problems: WorldProblem[],
  intake: Intake,
): Promise<CheckedEndpoint[]> {
  const checked: CheckedEndpoint[] = [];
  for (const declaration of world.endpoints) {
    const versions: AcceptedManifest[] = [];
    let refused = 0;
    for (const source of declaration.versions) {
      // One at a time: schema compilation is the expensive step and runs in a shared worker.
      const taken = await intake(source.text, limits);
      if (!taken.ok) {
        problems.push({ path: source.path, message: describeFault(source.origin, taken.fault) });
        refused += 1;
        continue;
      }
      const accepted = taken.value;
      if (accepted.endpointJid !== declaration.jid) {
        problems.push({
          path: source.path,
          message: `agent.jid is ${accepted.endpointJid}, not ${declaration.jid}`,
        });
        continue;
      }
      if (versions.some((other) => other.version === accepted.version)) {
        problems.push({ path: source.path, message: `version ${accepted.version} is listed twice` });
        continue;
      }
      versions.push(accepted);
    }
    // With a refused manifest, whether `active` names it cannot be told; that is reported already.
    if (
      refused === 0 &&
      declaration.active !== null &&
      !versions.some((v) => v.version === declaration.active)
    ) {
      problems.push({
        path: `${declaration.path}/active`,
        message: `${declaration.active} is not one of the versions listed for this endpoint`,
      });
    }
    checked.push({ declaration, versions });
  }
  return checked;
}

interface Counts {
  created: number;
  unchanged: number;
  keptRemoved: number;
  pointersApplied: number;
}

/** Stage 2, inside the transaction: the versions of one endpoint. */
function storeVersions(
  store: GatewayStore,
  endpoint: CheckedEndpoint,
  counts: Counts,
  problems: WorldProblem[],
): void {
  const tables = store.registrations;
  endpoint.versions.forEach((accepted, index) => {
    const path = endpoint.declaration.versions[index]?.path ?? endpoint.declaration.path;
    const { endpointJid: jid, version, document } = accepted;
    const stored = tables.version(jid, version);
    if (stored !== undefined) {
      if (stored.canonicalJson.equals(document.bytes)) counts.unchanged += 1;
      else
        problems.push({
          path,
          message: `version ${version} is registered with different content (conflict)`,
        });
      return;
    }
    const tombstone = tables.tombstone(jid, version);
    if (tombstone !== undefined) {
      if (tombstone.hash.value === document.hash.value) counts.keptRemoved += 1;
      else
        problems.push({
          path,
          message: `version ${version} was removed with different content (tombstone conflict)`,
        });
      return;
    }
    tables.insertVersion({ jid, version, canonicalJson: document.bytes, hash: document.hash });
    counts.created += 1;
  });
}

/** Stage 2, inside the transaction: the declared active version, when the declaration changed. */
function applyPointer(
  store: GatewayStore,
  endpoint: WorldEndpoint,
  counts: Counts,
  problems: WorldProblem[],
): void {
  const previous = store.world.declaration(endpoint.jid);
  if (previous?.version === endpoint.active) return;
  if (endpoint.active === null) {
    store.registrations.clearActiveVersion(endpoint.jid);
  } else if (store.registrations.version(endpoint.jid, endpoint.active) === undefined) {
    problems.push({
      path: `${endpoint.path}/active`,
      message: `version ${endpoint.active} was removed by an administrator and cannot be activated`,
    });
    return;
  } else {
    store.registrations.setActiveVersion(endpoint.jid, endpoint.active);
  }
  store.world.recordDeclaration(endpoint.jid, { version: endpoint.active });
  counts.pointersApplied += 1;
}

function endpointPolicies(world: FixtureWorld): EndpointPolicy[] {
  return world.endpoints
    .filter((endpoint) => endpoint.hidden || endpoint.restrictedInvocation)
    .map(({ jid, hidden, restrictedInvocation }) => ({ endpoint: jid, hidden, restrictedInvocation }));
}

export async function provisionWorld(
  store: GatewayStore,
  world: FixtureWorld,
  limits: ManifestLimits,
  intake: Intake = intakeManifest,
): Promise<WorldReport> {
  const problems: WorldProblem[] = [];
  const checked = await checkEndpoints(world, limits, problems, intake);
  if (problems.length > 0) throw new WorldProvisioningError(world.source, problems);
  const counts: Counts = { created: 0, unchanged: 0, keptRemoved: 0, pointersApplied: 0 };
  const policyChanged = store.transaction(() => {
    for (const endpoint of checked) {
      storeVersions(store, endpoint, counts, problems);
      applyPointer(store, endpoint.declaration, counts, problems);
    }
    const changed = store.policy.replaceSource('world', {
      grants: world.grants,
      endpointPolicies: endpointPolicies(world),
    });
    // Throwing rolls back every write of this load.
    if (problems.length > 0) throw new WorldProvisioningError(world.source, problems);
    return changed;
  });
  return { ...counts, policyChanged };
}
