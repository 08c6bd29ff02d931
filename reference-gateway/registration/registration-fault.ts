/**
 * What a registration or provisioning operation answers when it refuses: the XMPP condition
 * and type for the IQ error (interp-42 types), plus a stable reason for logs and
 * tests. The wiring puts only `condition` and `type` on the wire. Nothing here ever carries
 * the submitted JSON (#errors, #json-encoding: "the response MUST NOT reflect the rejected
 * JSON"); `violations` are for the registrant's local tooling and the operator's log only.
 */
import type { ManifestViolation } from '../../protocol/manifest/index.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';

/** Every reason, with the error it is answered with. */
const REASONS = {
  /** An administrative operation from a non-admin, whatever the target (interp-24). */
  'not-admin': FAULT.forbidden,
  /** <register/> from a non-admin while self-registration is off (interp-07). */
  'self-registration-unavailable': FAULT.serviceUnavailable,
  /** <register/> from a non-admin outside the local C2S domains: "Federation alone MUST NOT grant" it. */
  'not-local-sender': FAULT.forbidden,
  /** Self-registration for a JID other than the sender's bare JID (#registration-flow, #rules). */
  'jid-mismatch': FAULT.forbidden,
  /**
   * A self-registrant's manifest exceeded a parse limit before `agent.jid` could be read, so the
   * claim cannot be checked; resource-constraint may only follow authorization (#json-encoding,
   * interp-42), so the strict answer is the authorization failure.
   */
  'unverifiable-claim': FAULT.forbidden,
  /** Not JSON (interp-11: bad-request or not-acceptable; we say bad-request). */
  'json-syntax': FAULT.badRequest,
  /** Not a UTF-8 JSON text (reachable from files only: XML delivers characters). */
  'json-encoding': FAULT.badRequest,
  /** Fails the I-JSON prerequisites of RFC 8785: MUST be not-acceptable (interp-11). */
  'json-ijson': FAULT.notAcceptable,
  /** A documented JSON parse limit (#json-encoding). */
  'json-limit': FAULT.resourceConstraint,
  /** A documented manifest limit: tool count, schema size, schema complexity (#rules). */
  'manifest-limit': FAULT.resourceConstraint,
  /** The sender's registration or administration rate limit (#security), after authorization. */
  'rate-limited': FAULT.resourceConstraint,
  /** Any other manifest defect; the strict side of interp-11 is not-acceptable. */
  'manifest-invalid': FAULT.notAcceptable,
  /** An administrator provisioning a JID outside the domains this gateway hosts (#addressing). */
  'domain-not-hosted': FAULT.notAllowed,
  /** Different content under a registered (jid, version) (#registration-flow). */
  'version-conflict': FAULT.conflict,
  /** Different content under a removed (jid, version): "MUST always fail with a <conflict/>". */
  'tombstone-conflict': FAULT.conflict,
  /** The request's 'jid' is not a bare JID (#errors: "invalid endpoint identifier"). */
  'bad-jid': FAULT.badRequest,
  'unknown-endpoint': FAULT.itemNotFound,
  'unknown-version': FAULT.itemNotFound,
  /** <activate/> with a hash that is not the registered one (interp-24: conflict). */
  'hash-mismatch': FAULT.conflict,
  /** <remove-version/> of the active version (interp-24: not-allowed). */
  'version-active': FAULT.notAllowed,
  /** <remove-version/> of a version a task or result retains (#manifest-retrieval). */
  'version-retained': FAULT.notAllowed,
  /** <remove-endpoint/> while any version is retained (#registration-flow). */
  'endpoint-retained': FAULT.notAllowed,
} as const satisfies Record<string, StanzaFault>;

export type RegistrationFaultReason = keyof typeof REASONS;

export interface RegistrationFault extends StanzaFault {
  readonly reason: RegistrationFaultReason;
  /** Manifest diagnostics (JSON pointers and our own messages); never for the wire. */
  readonly violations?: readonly ManifestViolation[];
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly fault: RegistrationFault };

export function succeed<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

// json-encoding.no-reflection: the wire gets condition and type only; violations stay local.
export function refuse(
  reason: RegistrationFaultReason,
  violations?: readonly ManifestViolation[],
): { readonly ok: false; readonly fault: RegistrationFault } {
  const wire = REASONS[reason];
  const fault: RegistrationFault =
    violations === undefined ? { ...wire, reason } : { ...wire, reason, violations };
  return { ok: false, fault };
}
