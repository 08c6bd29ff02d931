/**
 * The task engine's records as the store reads and writes them: plain data, no database types.
 * Date-time text is what the engine put on the wire (XEP-0082, interp-31); `…Ms`
 * columns are the same instants in epoch milliseconds, only for purge scans and timers.
 */
import type { EventType, TaskState } from '../../protocol/task-states.ts';

export interface StoredTask {
  readonly taskId: string;
  /** The opaque handle the runtime sees instead of the task ID (#model-boundary). */
  readonly handle: string;
  /** Normalized caller bare JID: the principal every task operation authorizes (#task-recovery). */
  readonly callerJid: string;
  /** Where events go: the invoking full JID, or the bare JID after the route was lost. */
  readonly notifyJid: string;
  readonly endpointJid: string;
  readonly tool: string;
  readonly apiVersion: string;
  readonly manifestHash: { readonly algo: string; readonly value: string };
  /** RFC 8785 text of the validated arguments. */
  readonly argumentsJson: string;
  /** The effective deadline (the caller's, or the enforced default), XEP-0082 text. */
  readonly deadline: string | undefined;
  readonly state: TaskState;
  readonly revision: number;
  readonly created: string;
  readonly updated: string;
  readonly retainUntil: string;
  readonly retainUntilMs: number;
  /** The execution record: set, durably, before the runtime is first called. */
  readonly dispatchedAt: string | undefined;
  readonly pendingInputId: string | undefined;
  /** The terminal event payload (RFC 8785 text), present exactly when the state is terminal. */
  readonly resultJson: string | undefined;
}

export type NewTask = Omit<StoredTask, 'dispatchedAt' | 'pendingInputId' | 'resultJson'>;

/** The mutable part of a task row that a committed mutation rewrites. */
export interface TaskUpdate {
  readonly state: TaskState;
  readonly revision: number;
  readonly updated: string;
  readonly pendingInputId: string | undefined;
  readonly resultJson: string | undefined;
}

/** The replay record of one admission (#invocation). */
export interface StoredReplay {
  readonly callerJid: string;
  readonly endpointJid: string;
  readonly requestId: string;
  /** Base64 sha-256 over the fingerprint tuple. */
  readonly fingerprint: string;
  readonly taskId: string;
  /** The <accepted/> attributes, kept so a replay answers byte-identically. */
  readonly created: string;
  readonly retainUntil: string;
  readonly keepUntilMs: number;
}

export interface StoredEvent {
  readonly taskId: string;
  readonly revision: number;
  readonly eventId: string;
  readonly type: EventType;
  /** RFC 8785 text of the validated payload. */
  readonly payloadJson: string;
  readonly created: string;
}

export type InputRequestStatus = 'pending' | 'answered' | 'expired' | 'superseded';

export interface StoredInputRequest {
  readonly taskId: string;
  readonly requestId: string;
  /** The complete input_required object (RFC 8785 text), as state responses carry it. */
  readonly payloadJson: string;
  readonly expiresAt: string | undefined;
  readonly status: InputRequestStatus;
  readonly issuedRevision: number;
  readonly acceptedFingerprint: string | undefined;
  readonly acceptedRevision: number | undefined;
  readonly acceptedInputJson: string | undefined;
}

export interface StoredCancellation {
  readonly taskId: string;
  readonly fingerprint: string;
  readonly revision: number;
  readonly reason: string | undefined;
  readonly acceptedAt: string;
}
