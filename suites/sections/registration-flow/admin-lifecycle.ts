/**
 * registration-flow.admin-lifecycle: one endpoint taken through every Administrative Provisioning
 * operation, each step a function below that checks its own answers and what registration-status
 * and the endpoint's advertised version say afterwards. The case stays one case (its ID, cited
 * requirements and verdict are what reports and baselines know); its steps read in order in `run`.
 */
import type { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { FEATURE, FORM_TYPE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseActive, parseDeactivated, parseRemoved, type Hash } from '../../../protocol/stanza/index.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectParsedResult,
  expectStanzaError,
  expectThat,
  formField,
} from '../../framework/expect.ts';
import { discoInfo } from '../support/discovery.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  freshEndpoint,
  freshVersion,
  withRestore,
  type Restorer,
} from '../support/provisioning.ts';
import {
  advertisedVersion,
  expectStatus,
  hashOf,
  manifestWithDescription,
  registerFresh,
  versionOf,
} from './registration-checks.ts';

/** The endpoint the steps provision, and who provisions it. */
interface Lifecycle {
  readonly context: CaseContext;
  readonly restorer: Restorer;
  readonly admin: ProvisioningClient;
  readonly jid: string;
}

/** A registered version: its label and its canonical hash. */
interface Version {
  readonly id: string;
  readonly hash: Hash;
}

/** <register/> answers with the version's hash; the version is listed, not active. */
async function registerInactive(lifecycle: Lifecycle, manifest: JsonObject): Promise<Version> {
  const { context, restorer, admin, jid } = lifecycle;
  const version = {
    id: versionOf(manifest),
    hash: await registerFresh(restorer, admin, jid, manifest, 'registration-flow.admin-operations'),
  };
  await expectStatus(
    context,
    admin,
    jid,
    [{ id: version.id, active: false, hash: version.hash }],
    'registration-flow.admin-operations',
    'after <register/>',
  );
  return version;
}

/**
 * <activate/> with another manifest's hash is refused; with the version's own it answers
 * <active/>, and registration-status and the advertised version follow. Returns the advertised
 * version, undefined when the endpoint is not visible to the local caller.
 */
async function activateWithOwnHash(
  lifecycle: Lifecycle,
  version: Version,
  otherHash: Hash,
): Promise<string | undefined> {
  const { context, admin, jid } = lifecycle;
  const wrongHash = await admin.activate(jid, version.id, otherHash);
  expectStanzaError(wrongHash, 'registration-flow.admin-operations', ['conflict', 'item-not-found'], context);
  const active = await admin.activate(jid, version.id, version.hash);
  const selected = expectParsedResult(
    active,
    'registration-flow.admin-operations',
    NS_AGENT_API,
    'active',
    parseActive,
  );
  expectThat(
    active.reply.xml,
    'registration-flow.admin-operations',
    `<active version='${version.id}'/>`,
    selected.version === version.id,
  );
  await expectStatus(
    context,
    admin,
    jid,
    [{ id: version.id, active: true, removable: false, hash: version.hash }],
    'registration-flow.admin-operations',
    'after <activate/>',
  );
  const shown = await advertisedVersion(context, jid);
  if (shown !== undefined) {
    expectThat(
      shown,
      'registration-flow.admin-operations',
      `the endpoint-info form advertising version ${version.id}`,
      shown === version.id,
    );
  }
  return shown;
}

/**
 * A version number that looks newer selects nothing (#registration-flow: no semver ordering):
 * after registering it, the active version is still the one selected and still advertised.
 */
async function registerNewerLooking(
  lifecycle: Lifecycle,
  active: Version,
  manifest: JsonObject,
  advertised: boolean,
): Promise<Version> {
  const { context, restorer, admin, jid } = lifecycle;
  const newer = {
    id: versionOf(manifest),
    hash: await registerFresh(restorer, admin, jid, manifest, 'registration-flow.admin-operations'),
  };
  await expectStatus(
    context,
    admin,
    jid,
    [
      { id: active.id, active: true, removable: false, hash: active.hash },
      { id: newer.id, active: false, hash: newer.hash },
    ],
    'registration-flow.no-semver-ordering',
    `after registering ${newer.id}`,
  );
  if (advertised) {
    const still = await advertisedVersion(context, jid);
    expectThat(
      String(still),
      'registration-flow.no-semver-ordering',
      `still version ${active.id} advertised`,
      still === active.id,
    );
  }
  return newer;
}

/** <remove-version/> of the active version is refused; of the inactive one it answers <removed/>. */
async function removeInactiveVersion(
  lifecycle: Lifecycle,
  active: Version,
  inactive: Version,
): Promise<void> {
  const { context, admin, jid } = lifecycle;
  expectStanzaError(
    await admin.removeVersion(jid, active.id),
    'registration-flow.admin-operations',
    ['conflict', 'not-allowed'],
    context,
  );
  const removed = await admin.removeVersion(jid, inactive.id);
  const removedVersion = expectParsedResult(
    removed,
    'registration-flow.admin-operations',
    NS_AGENT_API,
    'removed',
    parseRemoved,
  );
  expectThat(
    removed.reply.xml,
    'registration-flow.admin-operations',
    `<removed version='${inactive.id}'/>`,
    removedVersion.version === inactive.id,
  );
  await expectStatus(
    context,
    admin,
    jid,
    [{ id: active.id, active: true, removable: false, hash: active.hash }],
    'registration-flow.admin-operations',
    'after <remove-version/>',
  );
}

/** <deactivate/> leaves the version listed but inactive, and the endpoint advertises no version. */
async function deactivate(lifecycle: Lifecycle, active: Version, advertised: boolean): Promise<void> {
  const { context, admin, jid } = lifecycle;
  const deactivated = await admin.deactivate(jid);
  expectParsedResult(
    deactivated,
    'registration-flow.admin-operations',
    NS_AGENT_API,
    'deactivated',
    parseDeactivated,
  );
  await expectStatus(
    context,
    admin,
    jid,
    [{ id: active.id, active: false, hash: active.hash }],
    'registration-flow.admin-operations',
    'after <deactivate/>',
  );
  if (advertised) await expectNoVersionAdvertised(context, jid);
}

/** interp-23: a deactivated endpoint answers item-not-found or service-unavailable, or at least advertises no version. */
async function expectNoVersionAdvertised(context: CaseContext, jid: string): Promise<void> {
  const after = await discoInfo(await context.callers.local(), jid);
  if (after.parsed.type === 'error') {
    expectStanzaError(
      after,
      'registration-flow.admin-operations',
      ['item-not-found', 'service-unavailable'],
      context,
    );
    return;
  }
  const info = expectDiscoInfo(after, 'registration-flow.admin-operations');
  const version = info.forms
    .filter((form) => formField(form, 'FORM_TYPE')?.values[0] === FORM_TYPE.endpointInfo)
    .flatMap((form) => formField(form, 'version')?.values ?? []);
  expectThat(
    after.reply.xml,
    'registration-flow.admin-operations',
    'no version advertised after <deactivate/>',
    version.length === 0,
  );
}

/** <remove-endpoint/> answers <removed/> without a version, and registration-status lists nothing. */
async function removeEndpoint(lifecycle: Lifecycle): Promise<void> {
  const { context, admin, jid } = lifecycle;
  const gone = await admin.removeEndpoint(jid);
  const removedEndpoint = expectParsedResult(
    gone,
    'registration-flow.admin-operations',
    NS_AGENT_API,
    'removed',
    parseRemoved,
  );
  expectThat(
    gone.reply.xml,
    'registration-flow.admin-operations',
    `<removed jid='${jid}'/> without a version`,
    removedEndpoint.version === undefined,
  );
  await expectStatus(
    context,
    admin,
    jid,
    [],
    'registration-flow.admin-operations',
    'after <remove-endpoint/>',
  );
}

export const adminLifecycle: CaseDeclaration<'registration-flow'> = {
  id: 'registration-flow.admin-lifecycle',
  // Every operation works at the #admin it rests on: the advertised feature is implemented
  // (conformance.no-false-advertising; refuses-registration fails it).
  requirements: [
    'registration-flow.admin-operations',
    'registration-flow.no-semver-ordering',
    'conformance.no-false-advertising',
  ],
  profiles: ['admin-provisioning'],
  level: 'MUST',
  features: [FEATURE.admin],
  interpretations: ['interp-23', 'interp-24'],
  statement:
    'An administrator registers a version, cannot activate it with another hash, activates it with its own, registers a “newer-looking” version that leaves the active one selected, cannot remove the active version, removes the other, deactivates and removes the endpoint — registration-status and the endpoint’s advertised version following every step.',
  run: async (context) =>
    withRestore(context, async (restorer) => {
      const lifecycle: Lifecycle = {
        context,
        restorer,
        admin: await adminFor(context),
        jid: freshEndpoint(context, 'lifecycle').jid,
      };
      const first = minimalManifest(lifecycle.jid, freshVersion(context, '1.0.0'));
      const second = manifestWithDescription(
        lifecycle.jid,
        freshVersion(context, '9.0.0'),
        'A newer-looking version.',
      );
      const v1 = await registerInactive(lifecycle, first);
      const shown = await activateWithOwnHash(lifecycle, v1, hashOf(second));
      const v2 = await registerNewerLooking(lifecycle, v1, second, shown !== undefined);
      await removeInactiveVersion(lifecycle, v1, v2);
      await deactivate(lifecycle, v1, shown !== undefined);
      await removeEndpoint(lifecycle);
    }),
};
