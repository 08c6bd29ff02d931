/**
 * `"fixtures": "admin-iq"` (docs/sut.md): the run provisions the fixture world through the
 * spec's Administrative Provisioning protocol (#registration-flow: register, activate, and for
 * the cleanup deactivate, remove-version, remove-endpoint) as the SUT file's adminJid, before the
 * first case, and removes what it created after the last one (also when the run fails).
 *
 * The protocol registers manifests and moves the active pointer; it cannot express policy
 * grants, hidden endpoints, restricted invocation or which runtime executes an endpoint's tools.
 * Those become an operator checklist, printed at start and written into the statement; until
 * the SUT file confirms an item (`fixturesConfirmed`), the cases that depend on it cannot tell
 * (ReferenceWorld, suites/fixtures/reference-world.ts).
 */
import type { Caller } from '../harness/driver/index.ts';
import { StanzaErrorReply } from '../harness/driver/index.ts';
import { ProvisioningClient } from '../harness/provisioning/provisioning-client.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/json/json-value.ts';
import { normalizeBareJid } from '../protocol/jid/index.ts';
import {
  parseRegistered,
  parseRegistration,
  provisioningRequest,
  StanzaParseError,
  type Hash,
  type ProvisioningRequest,
} from '../protocol/stanza/index.ts';

/** One thing the operator must set up by hand, with the stable ID the SUT file confirms it by. */
export interface ChecklistItem {
  /** `grants`, `hidden:JID`, `restricted-invocation:JID` or `runtime:JID`. */
  readonly id: string;
  readonly text: string;
}

interface WorldEndpoint {
  readonly jid: string;
  readonly versions: readonly { readonly manifest: JsonObject }[];
  readonly active?: string | null;
  readonly hidden?: boolean;
  readonly restrictedInvocation?: boolean;
  readonly runtime?: string;
}

function endpointsOf(world: JsonValue): WorldEndpoint[] {
  if (!isJsonObject(world) || !Array.isArray(world['endpoints'])) return [];
  return world['endpoints'] as unknown as WorldEndpoint[];
}

function describeGrant(grant: JsonValue): string {
  if (!isJsonObject(grant)) return JSON.stringify(grant);
  const who =
    typeof grant['principal'] === 'string'
      ? `principal ${grant['principal']}`
      : `domain ${JSON.stringify(grant['domain'] ?? null)}`;
  const list = (value: JsonValue | undefined): string =>
    Array.isArray(value) && value.length > 0
      ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ')
      : 'nothing';
  return `${who}: sees ${list(grant['see'])}; invokes ${list(grant['invoke'])}`;
}

/** What the world asks for that Administrative Provisioning cannot express, item by item. */
export function operatorChecklist(world: JsonValue): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  const grants = isJsonObject(world) && Array.isArray(world['grants']) ? world['grants'] : [];
  if (grants.length > 0) {
    items.push({
      id: 'grants',
      text: `configure exactly these policy grants (#rules; deny everyone else): ${grants.map(describeGrant).join(' | ')}`,
    });
  }
  for (const endpoint of endpointsOf(world)) {
    const jid = normalizeBareJid(endpoint.jid);
    if (endpoint.hidden === true) {
      items.push({
        id: `hidden:${jid}`,
        text: `hide ${jid}: only a grant naming it lets a caller see it (a "see everything" grant does not)`,
      });
    }
    if (endpoint.restrictedInvocation === true) {
      items.push({
        id: `restricted-invocation:${jid}`,
        text: `restrict invocation of ${jid}: only a grant naming it lets a caller invoke it`,
      });
    }
    if (endpoint.runtime !== undefined) {
      items.push({
        id: `runtime:${jid}`,
        text: `execute the tools of ${jid} with the ${endpoint.runtime} tools (docs/conformance-tools.md: natively, or by hosting agentconf conformance-tools)`,
      });
    }
  }
  return items;
}

/** The checklist items the SUT file does not confirm. */
export function unconfirmedItems(
  checklist: readonly ChecklistItem[],
  confirmed: readonly string[],
): ChecklistItem[] {
  const done = new Set(confirmed);
  return checklist.filter((item) => !done.has(item.id));
}

/** What provisioning did, for the log and the statement, and how to undo it. */
export interface ProvisionedWorld {
  /** The world as actually provisioned: endpoints and versions the gateway refused are left out. */
  readonly world: JsonValue;
  /** One line per operation that went wrong; empty when everything was provisioned. */
  readonly problems: readonly string[];
  readonly registered: number;
  readonly activated: number;
  /** Removes what provisioning created; returns one line per removal that failed. */
  cleanup(): Promise<string[]>;
}

function reason(error: unknown): string {
  if (error instanceof StanzaErrorReply || error instanceof StanzaParseError) {
    return error.message.split('\n')[0] ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The versions the endpoint has now, or undefined when it is not registered. */
async function versionsOf(admin: ProvisioningClient, jid: string): Promise<Set<string> | undefined> {
  try {
    const payload = await admin.call(provisioningRequest.registrationStatus(jid));
    if (payload === undefined) return new Set();
    return new Set(parseRegistration(payload).versions.map((version) => version.id));
  } catch (error) {
    if (error instanceof StanzaErrorReply) return undefined;
    throw error;
  }
}

/**
 * Registers every version of every endpoint of `world` (manifests inlined, as
 * inlineWorldFile gives them) and activates each endpoint's active version, as `adminCaller`.
 */
export async function provisionWorld(
  adminCaller: Caller,
  gateway: string,
  world: JsonValue,
): Promise<ProvisionedWorld> {
  const admin = new ProvisioningClient(adminCaller, gateway);
  const problems: string[] = [];
  const kept: JsonObject[] = [];
  let registered = 0;
  let activated = 0;
  /** Endpoints that did not exist before (removed whole) and versions added to existing ones. */
  const createdEndpoints: string[] = [];
  const addedVersions: { jid: string; version: string }[] = [];
  const activatedOnExisting: string[] = [];
  for (const endpoint of endpointsOf(world)) {
    const jid = normalizeBareJid(endpoint.jid);
    const before = await versionsOf(admin, jid);
    const versions: { manifest: JsonObject }[] = [];
    const hashes = new Map<string, Hash>();
    for (const { manifest } of endpoint.versions) {
      const agent = isJsonObject(manifest['agent']) ? manifest['agent'] : {};
      const label = `${jid} ${typeof agent['version'] === 'string' ? agent['version'] : '(no version)'}`;
      try {
        const payload = await admin.call(provisioningRequest.register(JSON.stringify(manifest)));
        if (payload === undefined) throw new Error('an empty result instead of <registered/>');
        const answer = parseRegistered(payload);
        hashes.set(answer.version, answer.hash);
        versions.push({ manifest });
        registered += 1;
        if (before !== undefined && !before.has(answer.version))
          addedVersions.push({ jid, version: answer.version });
      } catch (error) {
        problems.push(`register ${label}: ${reason(error)}`);
      }
    }
    if (versions.length === 0) continue;
    if (before === undefined) createdEndpoints.push(jid);
    let active: string | null = null;
    const wanted = endpoint.active ?? null;
    const hash = wanted === null ? undefined : hashes.get(wanted);
    if (wanted !== null && hash !== undefined) {
      try {
        await admin.call(provisioningRequest.activate(jid, wanted, hash));
        active = wanted;
        activated += 1;
        if (before !== undefined) activatedOnExisting.push(jid);
      } catch (error) {
        problems.push(`activate ${jid} ${wanted}: ${reason(error)}`);
      }
    } else if (wanted !== null) {
      problems.push(`activate ${jid} ${wanted}: that version was not registered`);
    }
    kept.push({ ...(endpoint as unknown as JsonObject), versions, active });
  }
  const provisioned: JsonObject = { ...(isJsonObject(world) ? world : {}), endpoints: kept };
  return {
    world: provisioned,
    problems,
    registered,
    activated,
    async cleanup() {
      const failures: string[] = [];
      const attempt = async (what: string, request: ProvisioningRequest): Promise<unknown> => {
        try {
          await admin.call(request);
          return undefined;
        } catch (error) {
          failures.push(`${what}: ${reason(error)}`);
          return error;
        }
      };
      for (const jid of activatedOnExisting)
        await attempt(`deactivate ${jid}`, provisioningRequest.deactivate(jid));
      for (const { jid, version } of addedVersions) {
        await attempt(`remove-version ${jid} ${version}`, provisioningRequest.removeVersion(jid, version));
      }
      for (const jid of createdEndpoints) {
        try {
          await admin.call(provisioningRequest.removeEndpoint(jid));
        } catch (error) {
          // #registration-flow: removal must fail while a retained task depends on a version, and
          // the run's own tasks are retained for a while; hiding the endpoint is what is left.
          if (!(error instanceof StanzaErrorReply) || error.error.condition !== 'not-allowed') {
            failures.push(`remove-endpoint ${jid}: ${reason(error)}`);
            continue;
          }
          const refused = await attempt(`deactivate ${jid}`, provisioningRequest.deactivate(jid));
          if (refused === undefined)
            failures.push(
              `remove-endpoint ${jid}: refused with not-allowed (the gateway keeps an endpoint while it retains tasks of it, #registration-flow): deactivated instead; remove it once its tasks expire`,
            );
        }
      }
      return failures;
    },
  };
}
