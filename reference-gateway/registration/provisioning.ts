/**
 * The registration IQ operations as the wiring calls them: who may do what (#registration-flow,
 * #security, #rules), then the registry. The sender is the server-stamped `from`, reduced to
 * its normalized bare JID and domain (the catalog's Requester is one).
 *
 * Authority:
 * - Administrators (configured bare JIDs, on any domain: configuring them is the explicit
 *   enablement #security asks for) may use every operation.
 * - Self-registration: only <register/>, only from a sender on a local C2S domain, and only for
 *   a manifest whose normalized `agent.jid` equals the sender's bare JID (#registration-flow,
 *   #rules). "Federation alone MUST NOT grant either authority."
 * - Non-admins get `forbidden` for every administrative operation before the target is even
 *   parsed, so the answer cannot depend on whether it exists (interp-24).
 * - resource-constraint only after authorization (#json-encoding, interp-42): a
 *   self-registrant whose manifest exceeds a parse limit cannot be authorized (its claim is
 *   unreadable) and gets `forbidden`. The rate limit (#security: "rate-limit registration") is
 *   checked here for the same reason: a self-registrant is authorized only once its claim has
 *   been read. Every request takes its token first, so refused requests are charged too.
 *
 * Self-registration registers; it does not activate. Activation is an administrative
 * operation, and a C2S account's bare JID is not routed to this gateway anyway
 * (interp-07).
 *
 * An administrator provisions virtual endpoints, so the manifest's JID must be on a domain this
 * gateway hosts (#addressing); a C2S account's endpoint is registered by that account itself.
 */
import { JidError, normalizeBareJid } from '../../protocol/jid/index.ts';
import type {
  Activate,
  Active,
  EndpointOperation,
  Registration,
  Removed,
  RemoveVersion,
} from '../../protocol/stanza/index.ts';
import type { Principal } from '../policy/access-policy.ts';
import type { RateDecision } from '../policy/rate-limiter.ts';
import {
  claimedEndpointJid,
  manifestLimitFault,
  parseManifestText,
  validateParsedManifest,
  type ManifestLimits,
} from './manifest-intake.ts';
import { refuse, type Outcome } from './registration-fault.ts';
import type { RegisterResult, Registry } from './registry.ts';

export interface ProvisioningAuthority {
  /** Normalized bare JIDs trusted with Administrative Provisioning. */
  readonly admins: readonly string[];
  /** Normalized domains of the server's C2S accounts: the only possible self-registrants. */
  readonly localDomains: readonly string[];
  readonly selfRegistration: boolean;
  /** Normalized domains whose JIDs this gateway hosts as virtual endpoints (the component domain). */
  readonly hostedDomains: readonly string[];
}

/** The part of the gateway's RateLimiter this service uses. */
export interface ProvisioningRateLimiter {
  take(operation: 'registration' | 'administration', principal: string): RateDecision;
}

const UNLIMITED: ProvisioningRateLimiter = { take: () => ({ allowed: true }) };

function domainOf(bareJid: string): string {
  return bareJid.slice(bareJid.indexOf('@') + 1);
}

export class Provisioning {
  readonly #registry: Registry;
  readonly #limits: ManifestLimits;
  readonly #admins: ReadonlySet<string>;
  readonly #localDomains: ReadonlySet<string>;
  readonly #hostedDomains: ReadonlySet<string>;
  readonly #selfRegistration: boolean;
  readonly #rateLimiter: ProvisioningRateLimiter;

  constructor(
    registry: Registry,
    authority: ProvisioningAuthority,
    limits: ManifestLimits,
    rateLimiter: ProvisioningRateLimiter = UNLIMITED,
  ) {
    this.#registry = registry;
    this.#limits = limits;
    this.#rateLimiter = rateLimiter;
    this.#admins = new Set(authority.admins);
    this.#localDomains = new Set(authority.localDomains);
    this.#hostedDomains = new Set(authority.hostedDomains);
    this.#selfRegistration = authority.selfRegistration;
  }

  isAdmin(sender: Principal): boolean {
    return this.#admins.has(sender.bareJid);
  }

  /** Whether this sender could self-register its own JID (what #self-register promises). */
  maySelfRegister(sender: Principal): boolean {
    return this.#selfRegistration && this.#localDomains.has(sender.domain);
  }

  /**
   * <register/>: `manifestJson` is the <manifest/> character data, as sent.
   *
   * registration-flow.federation-grants-nothing, rules.self-registration-own-jid,
   * security.rate-limits, json-encoding.authorize-before-limits: authority first (an admin, or a
   * local account registering its own bare JID), the rate and parse limits only after it.
   */
  async register(sender: Principal, manifestJson: string): Promise<Outcome<RegisterResult>> {
    const rate = this.#rateLimiter.take('registration', sender.bareJid);
    const admin = this.isAdmin(sender);
    const selfEligible = this.maySelfRegister(sender);
    if (!admin && !selfEligible) {
      return refuse(this.#selfRegistration ? 'not-local-sender' : 'self-registration-unavailable');
    }
    // An admin is authorized now; spare the parse when it is over its rate.
    if (admin && !rate.allowed) return refuse('rate-limited');
    const parsed = parseManifestText(manifestJson, this.#limits);
    if (!parsed.ok) {
      return parsed.fault.reason === 'json-limit' && !admin ? refuse('unverifiable-claim') : parsed;
    }
    const claim = claimedEndpointJid(parsed.value);
    if (!claim.ok) return refuse('manifest-invalid', [claim.violation]);
    const ownJid = selfEligible && claim.jid === sender.bareJid;
    if (!ownJid) {
      if (!admin) return refuse('jid-mismatch');
      if (!this.#hostedDomains.has(domainOf(claim.jid))) return refuse('domain-not-hosted');
    }
    if (!rate.allowed) return refuse('rate-limited');
    const limitFault = manifestLimitFault(parsed.value, this.#limits);
    if (limitFault !== undefined) return { ok: false, fault: limitFault };
    const accepted = await validateParsedManifest(parsed.value);
    if (!accepted.ok) return accepted;
    return this.#registry.register(accepted.value);
  }

  activate(sender: Principal, request: Activate): Outcome<Active> {
    return this.#administer(sender, request.jid, (jid) =>
      this.#registry.activate(jid, request.version, request.hash),
    );
  }

  /** The result is the <deactivated/> element's content. */
  deactivate(sender: Principal, request: EndpointOperation): Outcome<EndpointOperation> {
    return this.#administer(sender, request.jid, (jid) => this.#registry.deactivate(jid));
  }

  registrationStatus(sender: Principal, request: EndpointOperation): Outcome<Registration> {
    return this.#administer(sender, request.jid, (jid) => this.#registry.status(jid));
  }

  removeVersion(sender: Principal, request: RemoveVersion): Outcome<Removed> {
    return this.#administer(sender, request.jid, (jid) => this.#registry.removeVersion(jid, request.version));
  }

  removeEndpoint(sender: Principal, request: EndpointOperation): Outcome<Removed> {
    return this.#administer(sender, request.jid, (jid) => this.#registry.removeEndpoint(jid));
  }

  /**
   * Authorize first, then read the target: a non-admin learns nothing about it (interp-24).
   *
   * security.admin-authentication: forbidden for a non-admin before the target is even parsed.
   */
  #administer<T>(sender: Principal, rawJid: string, operation: (jid: string) => Outcome<T>): Outcome<T> {
    const rate = this.#rateLimiter.take('administration', sender.bareJid);
    if (!this.isAdmin(sender)) return refuse('not-admin');
    if (!rate.allowed) return refuse('rate-limited');
    let jid: string;
    try {
      jid = normalizeBareJid(rawJid);
    } catch (error) {
      if (!(error instanceof JidError)) throw error;
      return refuse('bad-jid');
    }
    return operation(jid);
  }
}
