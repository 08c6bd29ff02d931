/**
 * Replay identities (#invocation, #interactive-input, #cancellation). Each is the sha-256 of
 * the RFC 8785 form of an ordered array of the spec's tuple members, so no two tuples can
 * share an encoding (every member is a JSON string, number or boolean in a fixed position).
 *
 * - Invocation: caller bare JID, target bare JID, namespace, request ID, tool, API version,
 *   manifest hash, canonical arguments, deadline. The deadline enters as its instant (exact
 *   epoch seconds plus fraction digits), so `Z` and `+02:00` spellings of one instant are the
 *   same request (interp-28 accepts either); presence versus absence always differs.
 *   We define no security-relevant extensions, and the codec admits no extra children.
 * - Input: caller, target, task ID, input request ID, expected revision, media type, RFC 8785
 *   input bytes.
 * - Cancellation: caller, target, namespace, task ID, expected revision, whether <reason/> is
 *   present and its exact parsed character data (no further normalization).
 */
import type { XmppDateTime } from '../../protocol/datetime.ts';
import { canonicalJson, sha256Base64 } from '../../protocol/json/canonical.ts';
import { MEDIA_TYPE_JSON, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import type { Hash } from '../../protocol/stanza/hash.ts';

function digest(tuple: (string | number | boolean | null)[]): string {
  return sha256Base64(Buffer.from(canonicalJson(tuple), 'utf8'));
}

export interface InvocationIdentity {
  readonly callerJid: string;
  readonly endpointJid: string;
  readonly requestId: string;
  readonly tool: string;
  readonly apiVersion: string;
  readonly manifestHash: Hash;
  readonly canonicalArguments: string;
  readonly deadline: XmppDateTime | undefined;
}

export function invocationFingerprint(identity: InvocationIdentity): string {
  const deadline =
    identity.deadline === undefined
      ? null
      : `${identity.deadline.epochSeconds.toString()}.${identity.deadline.fraction}`;
  return digest([
    'invoke',
    identity.callerJid,
    identity.endpointJid,
    NS_AGENT_TASK,
    identity.requestId,
    identity.tool,
    identity.apiVersion,
    identity.manifestHash.algo,
    identity.manifestHash.value,
    identity.canonicalArguments,
    deadline,
  ]);
}

export interface InputIdentity {
  readonly callerJid: string;
  readonly endpointJid: string;
  readonly taskId: string;
  readonly requestId: string;
  readonly expectedRevision: number;
  readonly canonicalInput: string;
}

export function inputFingerprint(identity: InputIdentity): string {
  return digest([
    'provide-input',
    identity.callerJid,
    identity.endpointJid,
    identity.taskId,
    identity.requestId,
    identity.expectedRevision,
    MEDIA_TYPE_JSON,
    identity.canonicalInput,
  ]);
}

export interface CancelIdentity {
  readonly callerJid: string;
  readonly endpointJid: string;
  readonly taskId: string;
  readonly expectedRevision: number;
  readonly reason: string | undefined;
}

export function cancelFingerprint(identity: CancelIdentity): string {
  return digest([
    'cancel',
    identity.callerJid,
    identity.endpointJid,
    NS_AGENT_TASK,
    identity.taskId,
    identity.expectedRevision,
    identity.reason !== undefined,
    identity.reason ?? '',
  ]);
}
