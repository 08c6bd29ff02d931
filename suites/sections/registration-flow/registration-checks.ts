/**
 * What the #registration-flow cases check after each provisioning step: the <registered/> answer,
 * registration-status listing exactly the expected versions, and the version the endpoint
 * advertises; and the manifests those steps register.
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { IqExchange } from '../../../harness/driver/index.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject } from '../../../protocol/json/json-value.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FORM_TYPE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseRegistered, type Hash, type RegistrationVersion } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectExtensionForm,
  expectThat,
  formField,
  expectParsedResult,
} from '../../framework/expect.ts';
import { discoInfo } from '../support/discovery.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  describeVersions,
  freshEndpoint,
  hasAdmin,
  registeredVersions,
  registrantFor,
  type Registrant,
  type Restorer,
} from '../support/provisioning.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export function manifestWithDescription(jid: string, version: string, description: string): JsonObject {
  const manifest = minimalManifest(jid, version);
  return { ...manifest, agent: { ...(manifest['agent'] as JsonObject), description } };
}

export function versionOf(manifest: JsonObject): string {
  const agent = manifest['agent'];
  const version = isJsonObject(agent) ? agent['version'] : undefined;
  if (typeof version !== 'string') throw new Error('a manifest built here without agent.version');
  return version;
}

export function hashOf(manifest: JsonObject): Hash {
  return canonicalDocument(manifest).hash;
}

/** The registration must succeed with exactly this JID, version and canonical hash. */
export function expectRegisteredAs(
  exchange: IqExchange,
  requirement: RequirementId,
  jid: string,
  version: string,
  hash: Hash,
): void {
  const registered = expectParsedResult(exchange, requirement, NS_AGENT_API, 'registered', parseRegistered);
  expectThat(
    exchange.reply.xml,
    requirement,
    `<registered jid='${jid}' version='${version}'><hash algo='${hash.algo}'>${hash.value}</hash></registered>`,
    normalizeBareJid(registered.jid) === normalizeBareJid(jid) &&
      registered.version === version &&
      registered.hash.algo === hash.algo &&
      registered.hash.value === hash.value,
  );
}

/** registration-status must list exactly `expected` (id, active flag and hash; removability where given). */
export async function expectStatus(
  context: CaseContext,
  admin: ProvisioningClient,
  jid: string,
  expected: readonly (Omit<RegistrationVersion, 'removable'> & { readonly removable?: boolean })[],
  requirement: RequirementId,
  when: string,
): Promise<readonly RegistrationVersion[]> {
  const versions = await registeredVersions(context, admin, jid, requirement);
  const matches =
    versions.length === expected.length &&
    expected.every((want) =>
      versions.some(
        (have) =>
          have.id === want.id &&
          have.active === want.active &&
          have.hash.value === want.hash.value &&
          (want.removable === undefined || have.removable === want.removable),
      ),
    );
  expectThat(
    describeVersions(versions),
    requirement,
    `${when}, registration-status of ${jid} lists:\n${describeVersions(expected.map((want) => ({ removable: !want.active, ...want })))}`,
    matches,
  );
  return versions;
}

/** Administrator if there is one, else the self-registrant: for rules both profiles share. */
export async function adminOrSelf(context: CaseContext, purpose: string): Promise<Registrant> {
  if (hasAdmin(context)) {
    return { kind: 'admin', provisioning: await adminFor(context), jid: freshEndpoint(context, purpose).jid };
  }
  return registrantFor(context, purpose);
}

/** The endpoint's advertised version, as a local caller who may see it reads it; undefined when not visible. */
export async function advertisedVersion(context: CaseContext, jid: string): Promise<string | undefined> {
  const exchange = await discoInfo(await context.callers.local(), jid);
  if (exchange.parsed.type === 'error') return undefined;
  const info = expectDiscoInfo(exchange, 'registration-flow.admin-operations');
  const form = expectExtensionForm(
    info,
    'registration-flow.admin-operations',
    FORM_TYPE.endpointInfo,
    exchange.reply.xml,
  );
  return formField(form, 'version')?.values[0];
}

export async function registerFresh(
  restorer: Restorer,
  admin: ProvisioningClient,
  jid: string,
  manifest: JsonObject,
  requirement: RequirementId,
): Promise<Hash> {
  const hash = hashOf(manifest);
  expectRegisteredAs(
    await restorer.register(admin, jid, JSON.stringify(manifest)),
    requirement,
    jid,
    versionOf(manifest),
    hash,
  );
  return hash;
}
