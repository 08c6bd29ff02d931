/**
 * Registration and Administrative Provisioning as the suites drive them (#registration-flow),
 * over the one ProvisioningClient: fresh endpoint identities, who registers for a case, and the
 * bookkeeping that leaves the gateway as the case found it.
 *
 * One gateway serves the whole run, and other sections count directory entries: whatever a
 * case registers is removed and whatever active pointer it moves is moved back, also when the
 * case fails. Fresh identities are drawn from `context.random` (so a case replays from its
 * seed) and carry the attempt number, because a flake re-run gets the same seed and must not
 * meet the versions or tombstones of its first attempt: a removed version's tombstone refuses
 * other content under that version forever.
 */
import type { IqExchange } from '../../../harness/driver/index.ts';
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject } from '../../../protocol/json/json-value.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import {
  parseRegistered,
  parseRegistration,
  type DefinedCondition,
  type Hash,
  type RegistrationVersion,
} from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectParsedResult,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { minimalManifest } from './manifests.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/** Lower-case letters and digits: valid in every localpart and version grammar. */
const TOKEN = 'abcdefghijklmnopqrstuvwxyz0123456789';

const attemptsBySeed = new Map<number, number>();
const attemptOfContext = new WeakMap<CaseContext, number>();

/** 0 for a case's first attempt in this process, 1 for its flake re-run (which has the same seed). */
function attemptOf(context: CaseContext): number {
  const known = attemptOfContext.get(context);
  if (known !== undefined) return known;
  const attempt = attemptsBySeed.get(context.random.seed) ?? 0;
  attemptsBySeed.set(context.random.seed, attempt + 1);
  attemptOfContext.set(context, attempt);
  return attempt;
}

/** A seeded token no other attempt of any case draws (lower-case ASCII, so octet order is plain). */
export function freshToken(context: CaseContext): string {
  const attempt = attemptOf(context);
  return `${context.random.string(TOKEN, 8)}${attempt === 0 ? '' : `r${String(attempt)}`}`;
}

/** A virtual endpoint nobody registered yet, on the gateway's own domain. */
export interface FreshEndpoint {
  readonly localpart: string;
  readonly jid: string;
}

export function freshEndpoint(context: CaseContext, purpose: string): FreshEndpoint {
  const localpart = `agentconf-${purpose}-${freshToken(context)}`;
  return { localpart, jid: `${localpart}@${context.sut.gatewayJid}` };
}

/** A version nobody registered yet, e.g. `1.0.0-k3j9x0aa`: versions are opaque labels (#registration-flow). */
export function freshVersion(context: CaseContext, prefix = '1.0.0'): string {
  return `${prefix}-${freshToken(context)}`;
}

/** Whether the SUT offers Administrative Provisioning over IQ: claimed, advertised and with an admin account. */
export function hasAdmin(context: CaseContext): boolean {
  // A claim of the profile makes the SUT config name its adminJid (docs/sut.md); a gateway
  // claiming another profile may still name one, so that the cases of that profile which set up
  // their fixture as administrator can run.
  const named = context.sut.profiles.has('admin-provisioning') || context.sut.adminJid !== undefined;
  return named && context.sut.features.has(FEATURE.admin);
}

/** What interp-24 accepts when someone without the authority registers or administers. */
export function unauthorizedConditions(context: CaseContext): DefinedCondition[] {
  const conditions: DefinedCondition[] = ['forbidden', 'not-allowed', 'item-not-found'];
  // interp-07: a gateway without self-registration may not handle <register/> from non-admins at all.
  if (!context.sut.features.has(FEATURE.selfRegister)) {
    conditions.push('service-unavailable', 'feature-not-implemented');
  }
  return conditions;
}

/** Whether the SUT lets a local C2S account register its own bare JID. */
export function hasSelfRegistration(context: CaseContext): boolean {
  return context.sut.profiles.has('self-registration') && context.sut.features.has(FEATURE.selfRegister);
}

/**
 * The administrator's provisioning IQs. Without them: NotApplicable when the SUT neither claims
 * Administrative Provisioning nor advertises #admin (an optional feature it does not offer);
 * MissingFixture when it claims the profile or advertises the feature but the suite cannot act
 * as its administrator (no #admin, or no adminJid in the SUT config).
 */
export async function adminFor(context: CaseContext): Promise<ProvisioningClient> {
  if (!hasAdmin(context)) {
    const claimed = context.sut.profiles.has('admin-provisioning');
    const advertised = context.sut.features.has(FEATURE.admin);
    if (!claimed && !advertised) {
      throw new NotApplicable('the SUT offers no Administrative Provisioning over IQ (#admin)');
    }
    throw new MissingFixture(
      claimed
        ? `the SUT claims Administrative Provisioning but does not advertise ${FEATURE.admin}: the suite cannot act as its administrator (advertise the feature, or drop the claim)`
        : `the SUT advertises ${FEATURE.admin} but its SUT config names no administrator: give adminJid (docs/sut.md)`,
    );
  }
  return new ProvisioningClient(await context.callers.admin(), context.sut.gatewayJid);
}

/**
 * The versions registration-status lists for `jid`, read by the administrator; an empty list
 * when the gateway knows no such endpoint (item-not-found, as after remove-endpoint).
 */
export async function registeredVersions(
  context: CaseContext,
  admin: ProvisioningClient,
  jid: string,
  requirement: RequirementId,
): Promise<readonly RegistrationVersion[]> {
  const exchange = await admin.status(jid);
  if (exchange.parsed.type === 'error') {
    expectStanzaError(exchange, requirement, 'item-not-found', context);
    return [];
  }
  const registration = expectParsedResult(
    exchange,
    requirement,
    NS_AGENT_API,
    'registration',
    parseRegistration,
  );
  return registration.versions;
}

/** The one line per version a failure message shows. */
export function describeVersions(versions: readonly RegistrationVersion[]): string {
  if (versions.length === 0) return '(no version)';
  return versions
    .map(
      (version) =>
        `${version.id} active=${String(version.active)} removable=${String(version.removable)} ${version.hash.algo}:${version.hash.value}`,
    )
    .join('\n');
}

/**
 * A registration must be refused with one of `conditions`. A resource-constraint instead means
 * a limit (e.g. the SUT's registration rate limit) answered before the content was judged: the
 * case cannot tell.
 */
export function expectRefused(
  exchange: IqExchange,
  requirement: RequirementId,
  conditions: readonly DefinedCondition[],
  what: string,
  context: CaseContext,
): void {
  if (exchange.parsed.type !== 'error') {
    throw new RequirementViolation(
      requirement,
      `a refusal of ${what} (<${conditions.join('/> or <')}/>)`,
      exchange.reply.xml,
      `${requirement}: ${what} was accepted`,
    );
  }
  if (
    exchange.parsed.error.condition === 'resource-constraint' &&
    !conditions.includes('resource-constraint')
  ) {
    throw new CannotTell(
      `${what} got resource-constraint: a limit (a registration rate limit?) answered before the content was judged`,
    );
  }
  expectStanzaError(exchange, requirement, conditions, context);
}

/**
 * Who registers a case's manifests: the C2S self-registrant for its own bare JID when the SUT
 * offers Self Registration, else the administrator for a fresh virtual endpoint (the registry's
 * `registrant` fixture).
 */
export interface Registrant {
  readonly kind: 'self' | 'admin';
  readonly provisioning: ProvisioningClient;
  /** The agent JID the registrant's manifests claim. */
  readonly jid: string;
}

export async function registrantFor(context: CaseContext, purpose: string): Promise<Registrant> {
  if (hasSelfRegistration(context)) {
    const caller = await context.callers.registrant();
    return {
      kind: 'self',
      provisioning: new ProvisioningClient(caller, context.sut.gatewayJid),
      jid: normalizeBareJid(caller.bareJid),
    };
  }
  const admin = await adminFor(context).catch((error: unknown) => {
    if (error instanceof NotApplicable) {
      throw new NotApplicable('the SUT offers neither Self Registration nor Administrative Provisioning');
    }
    throw error;
  });
  return { kind: 'admin', provisioning: admin, jid: freshEndpoint(context, purpose).jid };
}

/**
 * Registers `text` (the manifest as sent; by default its JSON) as the registrant, tracked by the
 * restorer: the reply must be <registered/> for the registrant's JID with the manifest's version
 * and the sha-256 of its RFC 8785 bytes, however it was formatted (#registration-flow). Returns
 * that hash.
 */
export async function expectRegistration(
  restorer: Restorer,
  registrant: Registrant,
  manifest: JsonObject,
  requirement: RequirementId,
  text = JSON.stringify(manifest),
): Promise<Hash> {
  const { hash } = canonicalDocument(manifest);
  const agent = manifest['agent'];
  const version = isJsonObject(agent) && typeof agent['version'] === 'string' ? agent['version'] : '';
  const exchange = await restorer.register(registrant.provisioning, registrant.jid, text);
  const registered = expectParsedResult(exchange, requirement, NS_AGENT_API, 'registered', parseRegistered);
  expectThat(
    exchange.reply.xml,
    requirement,
    `<registered jid='${registrant.jid}' version='${version}'> with the sha-256 of the canonical manifest, ${hash.value}`,
    normalizeBareJid(registered.jid) === normalizeBareJid(registrant.jid) &&
      registered.version === version &&
      registered.hash.algo === hash.algo &&
      registered.hash.value === hash.value,
  );
  return hash;
}

/**
 * The positive control of a registration refusal (issue 12, #registration-flow): the registrant
 * registers a valid manifest for its own claim first. A refusal of that means the refusals the
 * case checks next prove nothing (a gateway refusing every registration would pass them), so
 * the case cannot tell. The restorer removes what it registered.
 */
export async function registrationControl(
  context: CaseContext,
  restorer: Restorer,
  registrant: Registrant,
  manifest: JsonObject = minimalManifest(registrant.jid, freshVersion(context)),
): Promise<void> {
  const exchange = await restorer.register(registrant.provisioning, registrant.jid, JSON.stringify(manifest));
  requirePositiveControl(exchange, `${registrant.jid} registering a valid manifest for its own claim`);
}

interface PinnedVersion {
  readonly jid: string;
  readonly version: string;
  readonly hash: Hash;
}

/**
 * What a case changed, to put back at its end: endpoints it may have registered something
 * under (removed with remove-endpoint) and active pointers it moved (selected again).
 */
export class Restorer {
  readonly #context: CaseContext;
  readonly #endpoints = new Set<string>();
  readonly #activations: PinnedVersion[] = [];
  readonly #versions: { readonly jid: string; readonly version: string }[] = [];

  constructor(context: CaseContext) {
    this.#context = context;
  }

  /** `jid` may now hold versions this case registered: remove the endpoint at the end. */
  track(jid: string): void {
    this.#endpoints.add(jid);
  }

  /** Select `version` of a world endpoint again at the end (its active pointer is being moved). */
  reactivateAtEnd(pinned: PinnedVersion): void {
    this.#activations.push(pinned);
  }

  /** Remove one version of an endpoint that must otherwise stay (a world endpoint) at the end. */
  removeVersionAtEnd(jid: string, version: string): void {
    this.#versions.push({ jid, version });
  }

  /**
   * Sends a registration, tracking its endpoint unless the gateway refused it (a lost reply
   * counts as registered).
   */
  async register(provisioning: ProvisioningClient, jid: string, manifestJson: string): Promise<IqExchange> {
    let refused = false;
    try {
      const exchange = await provisioning.register(manifestJson);
      refused = exchange.parsed.type === 'error';
      return exchange;
    } finally {
      if (!refused) this.track(jid);
    }
  }

  /** Puts everything back; returns what could not be put back. */
  async restore(): Promise<string[]> {
    if (this.#endpoints.size === 0 && this.#activations.length === 0 && this.#versions.length === 0)
      return [];
    // Without an administrator a self-registrant's versions stay; never activated, they change
    // no directory.
    if (!hasAdmin(this.#context)) return [];
    const admin = new ProvisioningClient(await this.#context.callers.admin(), this.#context.sut.gatewayJid);
    const problems: string[] = [];
    const condition = (exchange: IqExchange): string =>
      exchange.parsed.type === 'error' ? exchange.parsed.error.condition : 'result';
    for (const { jid, version, hash } of this.#activations) {
      const exchange = await admin.activate(jid, version, hash);
      if (exchange.parsed.type !== 'result')
        problems.push(`activating ${jid} ${version} again: ${condition(exchange)}`);
    }
    for (const { jid, version } of this.#versions) {
      const exchange = await admin.removeVersion(jid, version);
      if (exchange.parsed.type !== 'result')
        problems.push(`removing ${jid} ${version}: ${condition(exchange)}`);
    }
    for (const jid of this.#endpoints) {
      const exchange = await admin.removeEndpoint(jid);
      // item-not-found: nothing was left under it (the case removed it, or nothing was registered).
      if (exchange.parsed.type === 'error' && exchange.parsed.error.condition !== 'item-not-found') {
        problems.push(`removing ${jid}: ${condition(exchange)}`);
      }
    }
    // On the transcript too: a case that failed for another reason still shows what it left behind.
    for (const problem of problems) admin.caller.transcript.note(`not restored: ${problem}`);
    return problems;
  }
}

/**
 * Runs a case body that changes registrations, then restores the gateway. A body that passed
 * but left something the administrator could not remove fails: later cases would see it.
 */
export async function withRestore<T>(
  context: CaseContext,
  body: (restorer: Restorer) => Promise<T>,
): Promise<T> {
  const restorer = new Restorer(context);
  let result: T;
  try {
    result = await body(restorer);
  } catch (error) {
    await restorer.restore().catch(() => []);
    throw error;
  }
  const problems = await restorer.restore();
  if (problems.length > 0) {
    throw new Error(`could not leave the gateway as the case found it: ${problems.join('; ')}`);
  }
  return result;
}

/**
 * Registers and activates a manifest as the administrator, for a case that needs an endpoint of
 * its own to test something else: a refusal means that case cannot tell. The restorer removes
 * the endpoint at the end.
 */
export async function provisionActive(
  restorer: Restorer,
  admin: ProvisioningClient,
  jid: string,
  version: string,
  manifest: JsonObject,
): Promise<Hash> {
  const { hash } = canonicalDocument(manifest);
  const registered = await restorer.register(admin, jid, JSON.stringify(manifest));
  if (registered.parsed.type === 'error') {
    throw new CannotTell(`could not provision ${jid} ${version}: ${registered.parsed.error.condition}`);
  }
  const activated = await admin.activate(jid, version, hash);
  if (activated.parsed.type === 'error') {
    throw new CannotTell(`could not activate ${jid} ${version}: ${activated.parsed.error.condition}`);
  }
  return hash;
}

/**
 * rules.self-registration-own-jid: `self`, whose bare JID is `own`, registers a minimal manifest
 * claiming each of `jids`, none of them its own; each must be refused as unauthorized.
 */
export async function expectForeignClaimsRefused(
  context: CaseContext,
  restorer: Restorer,
  self: ProvisioningClient,
  own: string,
  jids: readonly string[],
): Promise<void> {
  for (const jid of jids) {
    const exchange = await restorer.register(
      self,
      jid,
      JSON.stringify(minimalManifest(jid, freshVersion(context))),
    );
    expectRefused(
      exchange,
      'rules.self-registration-own-jid',
      unauthorizedConditions(context),
      `${own} registering ${jid}`,
      context,
    );
  }
}
