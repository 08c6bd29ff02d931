/**
 * Generated worlds provisioned through the gateway's own Administrative Provisioning
 * (#registration-flow): a seeded fast-check sample of endpoints on the gateway's domain with one
 * to three versions each, an active pointer or none, several tools per version, and agent names,
 * titles and descriptions drawn so that searches meet substrings, case variants and
 * description-only words. The administrator registers and activates them; the case's Restorer
 * removes them at the end, also when it fails, so the case leaves nothing behind.
 *
 * Admin IQs cannot express grants, hidden or restricted flags: a generated endpoint is an
 * ordinary one, which each role sees and invokes exactly as the run's grants say of such an
 * endpoint (the world file's "*" items). The model judges it with the fixture world's.
 */
import fc from 'fast-check';
import { canonicalDocument } from '../../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject } from '../../../../protocol/json/json-value.ts';
import type { ProvisioningClient } from '../../../../harness/provisioning/provisioning-client.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { CannotTell } from '../../../framework/verdicts.ts';
import { adminFor, freshEndpoint, freshVersion, hasAdmin, type Restorer } from '../provisioning.ts';

/** Names and titles: shared stems, so a nick often matches several endpoints or a part of one. */
const NAME_WORDS = ['Orbit', 'orbital', 'Ledger', 'ledgerline', 'Quill', 'Quillon', 'Ärger', 'Zephyr'];
/** Description words: in no name, title or localpart, so no reading of #search matches them. */
const DESCRIPTION_WORDS = ['tabulates', 'harvests', 'reconciles', 'archives', 'forecasts'];
/** Tool names whose UTF-8 order differs from the order of their nodes and of their case. */
const TOOL_NAMES = ['a.b', 'a-b', 'aB', 'Zed', 'zed', 'ä.list', 'run', 'run.all'];

export interface GeneratedVersion {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly tools: readonly string[];
}

export interface GeneratedEndpoint {
  readonly versions: readonly GeneratedVersion[];
  /** Which version is active; undefined: registered, never activated. */
  readonly active: number | undefined;
}

function versionArbitrary(toolNames: readonly string[]): fc.Arbitrary<GeneratedVersion> {
  return fc.record(
    {
      name: fc.constantFrom(...NAME_WORDS),
      title: fc.constantFrom(...NAME_WORDS.map((word) => `${word} Agent`)),
      description: fc
        .subarray(DESCRIPTION_WORDS, { minLength: 1, maxLength: 2 })
        .map((words) => `It ${words.join(' and ')} records.`),
      tools: fc.uniqueArray(fc.constantFrom(...toolNames), { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: ['name', 'tools'] },
  );
}

/**
 * Endpoints whose tools are drawn from TOOL_NAMES and from `grantedToolNames`, the tool names the
 * run's per-tool grants name on other endpoints: a grant must not follow a tool's name elsewhere.
 */
export function generatedEndpointsArbitrary(
  grantedToolNames: readonly string[] = [],
): fc.Arbitrary<readonly GeneratedEndpoint[]> {
  const toolNames = [...new Set([...TOOL_NAMES, ...grantedToolNames])];
  return fc.array(
    fc.array(versionArbitrary(toolNames), { minLength: 1, maxLength: 3 }).chain((versions) =>
      fc.record({
        versions: fc.constant(versions),
        // Mostly active; a registered endpoint never activated is listed nowhere (interp-23).
        active: fc.option(fc.nat({ max: versions.length - 1 }), { freq: 5, nil: undefined }),
      }),
    ),
    { minLength: 2, maxLength: 4 },
  );
}

/** The manifest a generated version is registered as. */
export function manifestOf(jid: string, version: string, generated: GeneratedVersion): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: {
      jid,
      name: generated.name,
      ...(generated.title === undefined ? {} : { title: generated.title }),
      ...(generated.description === undefined ? {} : { description: generated.description }),
      version,
    },
    tools: generated.tools.map((name) => ({
      name,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    })),
  };
}

/** One endpoint as the gateway was given it. */
export interface ProvisionedEndpoint {
  readonly jid: string;
  readonly versions: readonly { readonly version: string; readonly manifest: JsonObject }[];
  readonly active: string | undefined;
  /** What was generated: names, titles, descriptions and tools per version. */
  readonly shape: GeneratedEndpoint;
}

export interface ProvisionedWorld {
  readonly seed: number;
  readonly endpoints: readonly ProvisionedEndpoint[];
}

/** The world-file shape of what was provisioned ({ jid, versions: [{ manifest }], active }). */
export function worldFileEndpoints(world: ProvisionedWorld): JsonObject[] {
  return world.endpoints.map((endpoint) => ({
    jid: endpoint.jid,
    versions: endpoint.versions.map(({ manifest }) => ({ manifest })),
    ...(endpoint.active === undefined ? {} : { active: endpoint.active }),
  }));
}

/**
 * Samples a world from `seed` and provisions it as the administrator; undefined when the SUT
 * offers no Administrative Provisioning (the check then judges the fixture world alone). A
 * refused registration or activation of a valid manifest leaves nothing to judge: CannotTell.
 */
export async function provisionGeneratedWorld(
  context: CaseContext,
  restorer: Restorer,
  seed: number,
  grantEdges: { readonly partial: readonly PartialToolGrant[]; readonly named: readonly string[] } = {
    partial: [],
    named: [],
  },
): Promise<ProvisionedWorld | undefined> {
  if (!hasAdmin(context)) return undefined;
  const admin = await adminFor(context);
  const partialGrants = grantEdges.partial;
  const granted = partialGrants.flatMap((grant) => grant.granted);
  const [drawn = []] = fc.sample(generatedEndpointsArbitrary(granted), { seed, numRuns: 1 });
  // Whatever the seed: one active endpoint offering tool names the run grants on other endpoints.
  const shared = [...new Set([...granted, ...grantEdges.named])];
  const sample: readonly GeneratedEndpoint[] =
    shared.length === 0 ? drawn : [...drawn, { versions: [{ name: 'Namesake', tools: shared }], active: 0 }];
  const endpoints: ProvisionedEndpoint[] = [];
  for (const grant of partialGrants)
    endpoints.push(await addGrantEdgeVersion(context, restorer, admin, grant));
  for (const [index, generated] of sample.entries()) {
    const { jid } = freshEndpoint(context, `model${String(index)}`);
    const versions = generated.versions.map((version, at) => {
      const label = freshVersion(context, `${String(at + 1)}.0.0`);
      return { version: label, manifest: manifestOf(jid, label, version) };
    });
    for (const { manifest } of versions) {
      const registered = await restorer.register(admin, jid, JSON.stringify(manifest));
      if (registered.parsed.type === 'error')
        throw new CannotTell(
          `the administrator could not register generated endpoint ${jid}: ${registered.parsed.error.condition}`,
        );
    }
    const active = generated.active === undefined ? undefined : versions[generated.active];
    if (active !== undefined) {
      const activated = await admin.activate(jid, active.version, canonicalDocument(active.manifest).hash);
      if (activated.parsed.type === 'error')
        throw new CannotTell(
          `the administrator could not activate generated endpoint ${jid} ${active.version}: ${activated.parsed.error.condition}`,
        );
    }
    endpoints.push({ jid, versions, active: active?.version, shape: generated });
  }
  return { seed, endpoints };
}

/** A run endpoint some role may invoke only some tools of: the tools its grant names. */
export interface PartialToolGrant {
  readonly jid: string;
  /** The active manifest (world-file value), the base of the added version. */
  readonly manifest: JsonObject;
  readonly granted: readonly string[];
}

/**
 * Registers, never activates, a version of a run endpoint with a partial tool grant whose tools are
 * the granted names, each also lengthened ('x' granted, 'x.more' not) and cased otherwise: a grant
 * names whole tool names, exactly. The version is removed at the end; the endpoint stays.
 */
async function addGrantEdgeVersion(
  context: CaseContext,
  restorer: Restorer,
  admin: ProvisioningClient,
  grant: PartialToolGrant,
): Promise<ProvisionedEndpoint> {
  const version = freshVersion(context, '7.0.0');
  const baseTools = Array.isArray(grant.manifest['tools']) ? grant.manifest['tools'] : [];
  const template = baseTools.find(isJsonObject) ?? { inputSchema: { type: 'object' } };
  const names = [
    ...new Set(grant.granted.flatMap((name) => [name, `${name}.more`, `${name}x`, name.toUpperCase()])),
  ];
  const agent = isJsonObject(grant.manifest['agent']) ? grant.manifest['agent'] : {};
  const manifest: JsonObject = {
    ...grant.manifest,
    agent: { ...agent, version },
    tools: names.map((name) => {
      const existing = baseTools.find((tool) => isJsonObject(tool) && tool['name'] === name);
      return isJsonObject(existing) ? existing : { ...template, name };
    }),
  };
  const registered = await admin.register(JSON.stringify(manifest));
  if (registered.parsed.type === 'error')
    throw new CannotTell(
      `the administrator could not register version ${version} of ${grant.jid}: ${registered.parsed.error.condition}`,
    );
  restorer.removeVersionAtEnd(grant.jid, version);
  const shape: GeneratedEndpoint = {
    versions: [{ name: typeof agent['name'] === 'string' ? agent['name'] : '', tools: names }],
    active: undefined,
  };
  return { jid: grant.jid, versions: [{ version, manifest }], active: undefined, shape };
}

/** One line per endpoint for a failure message: enough to rebuild the world by hand. */
export function describeProvisioned(world: ProvisionedWorld): string {
  const lines = world.endpoints.map((endpoint) => {
    const versions = endpoint.versions.map(
      ({ version }, at) => `${version} ${JSON.stringify(endpoint.shape.versions[at] ?? null)}`,
    );
    return `  ${endpoint.jid} active=${endpoint.active ?? 'none'}: ${versions.join('; ')}`;
  });
  return `generated world (seed ${String(world.seed)}), provisioned by the administrator:\n${lines.join('\n')}`;
}
