/**
 * What a registration or provisioning operation answers when it refuses: the XMPP condition
 * and type for the IQ error (interp-42 types), plus a stable reason for logs and
 * tests. The wiring puts only `condition` and `type` on the wire. Nothing here ever carries
 * the submitted JSON (#errors, #json-encoding: "the response MUST NOT reflect the rejected
 * JSON"); `violations` are for the registrant's local tooling and the operator's log only.
 */
import type { ManifestViolation } from '../../protocol/manifest/index.ts';
import type { DefinedCondition, StanzaErrorType } from '../../protocol/stanza/index.ts';

interface Wire {
  readonly condition: DefinedCondition;
  readonly type: StanzaErrorType;
}

const FORBIDDEN: Wire = { condition: 'forbidden', type: 'auth' };
const BAD_REQUEST: Wire = { condition: 'bad-request', type: 'modify' };
const NOT_ACCEPTABLE: Wire = { condition: 'not-acceptable', type: 'modify' };
const RESOURCE_CONSTRAINT: Wire = { condition: 'resource-constraint', type: 'wait' };
const CONFLICT: Wire = { condition: 'conflict', type: 'cancel' };
const ITEM_NOT_FOUND: Wire = { condition: 'item-not-found', type: 'cancel' };
const NOT_ALLOWED: Wire = { condition: 'not-allowed', type: 'cancel' };
const SERVICE_UNAVAILABLE: Wire = { condition: 'service-unavailable', type: 'cancel' };

/** Every reason, with the error it is answered with. */
const REASONS = {
  /** An administrative operation from a non-admin, whatever the target (interp-24). */
  'not-admin': FORBIDDEN,
  /** <register/> from a non-admin while self-registration is off (interp-07). */
  'self-registration-unavailable': SERVICE_UNAVAILABLE,
  /** <register/> from a non-admin outside the local C2S domains: "Federation alone MUST NOT grant" it. */
  'not-local-sender': FORBIDDEN,
  /** Self-registration for a JID other than the sender's bare JID (#registration-flow, #rules). */
  'jid-mismatch': FORBIDDEN,
  /**
   * A self-registrant's manifest exceeded a parse limit before `agent.jid` could be read, so the
   * claim cannot be checked; resource-constraint may only follow authorization (#json-encoding,
   * interp-42), so the strict answer is the authorization failure.
   */
  'unverifiable-claim': FORBIDDEN,
  /** Not JSON (interp-11: bad-request or not-acceptable; we say bad-request). */
  'json-syntax': BAD_REQUEST,
  /** Not a UTF-8 JSON text (reachable from files only: XML delivers characters). */
  'json-encoding': BAD_REQUEST,
  /** Fails the I-JSON prerequisites of RFC 8785: MUST be not-acceptable (interp-11). */
  'json-ijson': NOT_ACCEPTABLE,
  /** A documented JSON parse limit (#json-encoding). */
  'json-limit': RESOURCE_CONSTRAINT,
  /** A documented manifest limit: tool count, schema size, schema complexity (#rules). */
  'manifest-limit': RESOURCE_CONSTRAINT,
  /** The sender's registration or administration rate limit (#security), after authorization. */
  'rate-limited': RESOURCE_CONSTRAINT,
  /** Any other manifest defect; the strict side of interp-11 is not-acceptable. */
  'manifest-invalid': NOT_ACCEPTABLE,
  /** An administrator provisioning a JID outside the domains this gateway hosts (#addressing). */
  'domain-not-hosted': NOT_ALLOWED,
  /** Different content under a registered (jid, version) (#registration-flow). */
  'version-conflict': CONFLICT,
  /** Different content under a removed (jid, version): "MUST always fail with a <conflict/>". */
  'tombstone-conflict': CONFLICT,
  /** The request's 'jid' is not a bare JID (#errors: "invalid endpoint identifier"). */
  'bad-jid': BAD_REQUEST,
  'unknown-endpoint': ITEM_NOT_FOUND,
  'unknown-version': ITEM_NOT_FOUND,
  /** <activate/> with a hash that is not the registered one (interp-24: conflict). */
  'hash-mismatch': CONFLICT,
  /** <remove-version/> of the active version (interp-24: not-allowed). */
  'version-active': NOT_ALLOWED,
  /** <remove-version/> of a version a task or result retains (#manifest-retrieval). */
  'version-retained': NOT_ALLOWED,
  /** <remove-endpoint/> while any version is retained (#registration-flow). */
  'endpoint-retained': NOT_ALLOWED,
} as const satisfies Record<string, Wire>;

export type RegistrationFaultReason = keyof typeof REASONS;

export interface RegistrationFault extends Wire {
  readonly reason: RegistrationFaultReason;
  /** Manifest diagnostics (JSON pointers and our own messages); never for the wire. */
  readonly violations?: readonly ManifestViolation[];
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly fault: RegistrationFault };

export function succeed<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function refuse(
  reason: RegistrationFaultReason,
  violations?: readonly ManifestViolation[],
): { readonly ok: false; readonly fault: RegistrationFault } {
  const wire = REASONS[reason];
  const fault: RegistrationFault =
    violations === undefined ? { ...wire, reason } : { ...wire, reason, violations };
  return { ok: false, fault };
}
