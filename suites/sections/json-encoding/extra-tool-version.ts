/**
 * A version of the conformance endpoint with one more tool, registered as the administrator, for
 * cases whose schema must reach invocation but cannot live in a fixture file: a pattern that
 * backtracks for hours (json-encoding.catastrophic-pattern), $refs to this run's canary listener
 * (json-encoding.no-external-refs-invoke). A tool of the conformance endpoint, so a runtime
 * stands behind it: a gateway may refuse an invocation of a tool nothing executes before it
 * validates the arguments. The endpoint's own version is reactivated at the end; the caller
 * decides whether the new one can be removed (a retained task pins it).
 */
import type { IqExchange } from '../../../harness/driver/index.ts';
import type { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import type { CaseContext } from '../../framework/context.ts';
import { requirePositiveControl } from '../../framework/expect.ts';
import { freshVersion, type Restorer } from '../support/provisioning.ts';
import type { TaskTarget } from '../support/task-target.ts';

export interface ExtraToolVersion {
  /** The new version's pins; its fixture manifest is the target's, for its tool list only. */
  readonly target: TaskTarget;
  /** The administrator's answer to the registration. */
  readonly registered: IqExchange;
}

/** Registers the target's manifest plus `tool` under a fresh version derived from `base`. */
export async function registerWithExtraTool(
  context: CaseContext,
  restorer: Restorer,
  admin: ProvisioningClient,
  target: TaskTarget,
  tool: JsonObject,
  base: string,
): Promise<ExtraToolVersion> {
  const value = JSON.parse(JSON.stringify(target.manifest.value)) as JsonObject & {
    agent: JsonObject;
    tools: JsonObject[];
  };
  const version = freshVersion(context, base);
  value.agent['version'] = version;
  value.tools.push(tool);
  const { hash } = canonicalDocument(value);
  restorer.reactivateAtEnd({ jid: target.jid, version: target.version, hash: target.hash });
  const registered = await admin.register(JSON.stringify(value));
  return { target: { jid: target.jid, version, hash, manifest: target.manifest }, registered };
}

/** Activates the registered version; a refusal means the case cannot tell. */
export async function activateExtraToolVersion(
  admin: ProvisioningClient,
  extra: ExtraToolVersion,
): Promise<void> {
  const { jid, version, hash } = extra.target;
  requirePositiveControl(await admin.activate(jid, version, hash), `activating ${jid} ${version}`);
}
