/**
 * The `registrant` fixture (suites/registry/requirements.json): a principal the SUT lets register
 * manifests. With Administrative Provisioning that is the administrator, registering a fresh
 * virtual endpoint on the gateway's domain; with Self Registration only, the run's C2S
 * self-registrant (callers.registrant()), registering its own bare JID (#registration-flow). Fresh endpoints are never activated, so
 * what the directory and search show the later suites does not change.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { buildRegister, buildRegistrationStatus, parseRegistration } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { NotApplicable } from '../../framework/verdicts.ts';

export interface Registrant {
  readonly caller: Caller;
  /** The agent JID this registrant may register. */
  readonly jid: string;
  /** Whether it may read registration status (the administrator may). */
  readonly admin: boolean;
}

/** Lower-case letters and digits: a localpart and a version every grammar accepts. */
const TOKEN = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The registrant for this case; `purpose` names the fresh endpoint (seeded, so a re-run of
 * the case registers the same JID and version again).
 */
export async function registrantFor(context: CaseContext, purpose: string): Promise<Registrant> {
  if (context.sut.profiles.has('admin-provisioning')) {
    const caller = await context.callers.admin();
    return {
      caller,
      jid: `agentconf-${purpose}-${context.random.string(TOKEN, 8)}@${context.sut.gatewayJid}`,
      admin: true,
    };
  }
  if (context.sut.profiles.has('self-registration')) {
    const caller = await context.callers.registrant();
    return { caller, jid: caller.bareJid, admin: false };
  }
  throw new NotApplicable(
    'the SUT claims neither Administrative Provisioning nor Self Registration: nobody can register',
  );
}

/** A seeded API version, so the same case attempt registers the same version again. */
export function freshVersion(context: CaseContext): string {
  return `1.0.0-${context.random.string(TOKEN, 10)}`;
}

/** The smallest manifest the schema accepts, with one tool whose input schema is `inputSchema`. */
export function probeManifest(
  jid: string,
  version: string,
  inputSchema: JsonObject,
  extra: JsonObject = {},
): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: 'agentconf-probe', version },
    tools: [{ name: 'probe', inputSchema, ...extra }],
  };
}

export function register(
  context: CaseContext,
  registrant: Registrant,
  manifestJson: string,
): Promise<IqExchange> {
  return registrant.caller.exchangeIq(context.sut.gatewayJid, 'set', buildRegister({ manifestJson }));
}

/**
 * Whether `version` of the registrant's JID is registered, as far as the registrant can tell:
 * undefined when it may not read registration status.
 */
export async function isRegistered(
  context: CaseContext,
  registrant: Registrant,
  version: string,
): Promise<boolean | undefined> {
  if (!registrant.admin) return undefined;
  const exchange = await registrant.caller.exchangeIq(
    context.sut.gatewayJid,
    'get',
    buildRegistrationStatus({ jid: registrant.jid }),
  );
  if (exchange.parsed.type === 'error' || exchange.parsed.payload === undefined) return false;
  return parseRegistration(exchange.parsed.payload).versions.some((entry) => entry.id === version);
}
