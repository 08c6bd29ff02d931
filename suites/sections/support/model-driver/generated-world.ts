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
import type { JsonObject } from '../../../../protocol/json/json-value.ts';
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

const versionArbitrary: fc.Arbitrary<GeneratedVersion> = fc.record(
  {
    name: fc.constantFrom(...NAME_WORDS),
    title: fc.constantFrom(...NAME_WORDS.map((word) => `${word} Agent`)),
    description: fc
      .subarray(DESCRIPTION_WORDS, { minLength: 1, maxLength: 2 })
      .map((words) => `It ${words.join(' and ')} records.`),
    tools: fc.uniqueArray(fc.constantFrom(...TOOL_NAMES), { minLength: 1, maxLength: 4 }),
  },
  { requiredKeys: ['name', 'tools'] },
);

export const generatedEndpointsArbitrary: fc.Arbitrary<readonly GeneratedEndpoint[]> = fc.array(
  fc.array(versionArbitrary, { minLength: 1, maxLength: 3 }).chain((versions) =>
    fc.record({
      versions: fc.constant(versions),
      // Mostly active; a registered endpoint never activated is listed nowhere (interp-23).
      active: fc.option(fc.nat({ max: versions.length - 1 }), { freq: 5, nil: undefined }),
    }),
  ),
  { minLength: 2, maxLength: 4 },
);

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
): Promise<ProvisionedWorld | undefined> {
  if (!hasAdmin(context)) return undefined;
  const admin = await adminFor(context);
  const [sample] = fc.sample(generatedEndpointsArbitrary, { seed, numRuns: 1 });
  const endpoints: ProvisionedEndpoint[] = [];
  for (const [index, generated] of (sample ?? []).entries()) {
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
