/**
 * The endpoint and version a task is pinned to: the fixture world's conformance endpoint (its
 * pins taken from the fixture file, never from the gateway), and further versions of it
 * registered and activated as the administrator, for cases that move its active pointer.
 */
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import type { Hash } from '../../../protocol/stanza/index.ts';
import type { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld, type FixtureEndpoint, type FixtureManifest } from '../../fixtures/reference-world.ts';

/** An endpoint and version a task is pinned to: the exact pins an invocation carries. */
export interface TaskTarget {
  readonly jid: string;
  readonly version: string;
  readonly hash: Hash;
  readonly manifest: FixtureManifest;
}

export function targetOf(endpoint: FixtureEndpoint, manifest?: FixtureManifest): TaskTarget {
  const pinned = manifest ?? endpoint.active;
  if (pinned === undefined) {
    throw new MissingFixture(
      `the fixture world gives ${endpoint.jid} no active version to pin: activate one in the world file`,
    );
  }
  return { jid: endpoint.jid, version: pinned.version, hash: pinned.document.hash, manifest: pinned };
}

/** The conformance tools' endpoint (docs/conformance-tools.md): the one with `script` and `counter`. */
export function conformanceTarget(context: CaseContext): TaskTarget {
  const world = requireWorld(context);
  const endpoint = world.conformanceEndpoint();
  if (endpoint === undefined) {
    throw new MissingFixture(
      `the fixture world (${world.source}) hosts no conformance tools: give an endpoint the manifest fixtures/manifests/conformance.json and host its tools (docs/conformance-tools.md, "Hosting the tools in another gateway")`,
    );
  }
  // With admin-iq fixtures, who executes the tools is on the operator checklist.
  world.requireConfirmed(`runtime:${endpoint.jid}`);
  if (!world.mayInvoke('local', endpoint, 'script')) {
    throw new MissingFixture(
      `the local caller (${world.jidOf('local')}) may not invoke the conformance tools in ${world.source}: grant it, or its domain, invocation of ${endpoint.jid}`,
    );
  }
  return targetOf(endpoint);
}

/**
 * Registers the target's manifest again under `version`, as the administrator: same tools and,
 * since the fixture world assigns runtimes by endpoint, the same runtime. For cases that move
 * the active pointer while a task runs or pin a task to another version. The caller decides
 * what to restore (never remove-endpoint: the endpoint belongs to the world). A refusal means
 * the case cannot tell. The returned pins reuse the target's fixture manifest for its tool list
 * only: its tool nodes name the original version.
 */
export async function registerTargetVersion(
  admin: ProvisioningClient,
  target: TaskTarget,
  version: string,
): Promise<TaskTarget> {
  const value = JSON.parse(JSON.stringify(target.manifest.value)) as JsonObject & { agent: JsonObject };
  value.agent['version'] = version;
  const { hash } = canonicalDocument(value);
  const exchange = await admin.register(JSON.stringify(value));
  if (exchange.parsed.type === 'error') {
    throw new CannotTell(
      `could not register ${target.jid} ${version} (a copy of ${target.version}): ${exchange.parsed.error.condition}`,
    );
  }
  return { jid: target.jid, version, hash, manifest: target.manifest };
}

/** Moves the endpoint's active pointer as the administrator; a refusal means the case cannot tell. */
export async function activateTarget(admin: ProvisioningClient, target: TaskTarget): Promise<void> {
  const exchange = await admin.activate(target.jid, target.version, target.hash);
  if (exchange.parsed.type === 'error') {
    throw new CannotTell(
      `could not activate ${target.jid} ${target.version}: ${exchange.parsed.error.condition}`,
    );
  }
}
