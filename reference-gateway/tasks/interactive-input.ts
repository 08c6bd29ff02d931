/**
 * Interactive input (#interactive-input; interp-33–interp-37).
 *
 * Issuing: at most one request is pending per task (the schema enforces it too); the request
 * ID comes from the CSPRNG; the input_required event carries the complete request, which state
 * responses repeat while it is pending. Its inputSchema must compile, so that every answer can
 * be validated authoritatively.
 *
 * Answering, in this order:
 * 1. task authorization and a known request ID for that task, else item-not-found;
 * 2. the strict parse of <input/> (its canonical bytes are part of the identity);
 * 3. replay identity, before any expiry, revision, answered or terminal check: the same tuple
 *    as the accepted answer → the original <input-accepted/>; a different tuple → conflict;
 * 4. a request no longer pending (expired, superseded by cancellation or settlement) → conflict;
 * 5. the request's schema, within the budget → not-acceptable (or resource-constraint);
 * 6. at the commit boundary: deadline (settles the task; conflict), expiry compared with the
 *    current instant (expires it now; conflict), expected revision equal to the current one
 *    (else conflict), then input_required → running at revision N, whose status event is also
 *    at N, and the acceptance recorded with N (interp-33).
 *
 * Expiry: at or after expiresAt the request is marked expired and the task goes back to
 * running in the same transaction (interp-35 accepts running followed by a new
 * input_required); the runtime's waiter gets 'expired' and decides to ask again or settle.
 * Expired and superseded requests keep their rows until the task is purged, so a late answer
 * gets conflict rather than item-not-found.
 */
import { isAtOrAfter, parseDateTime, toEpochMillis } from '../../protocol/datetime.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { buildInputAccepted, type ProvideInput } from '../../protocol/stanza/task-input.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { ActionRefusal, InputOutcome, InputRequest } from '../runtime/tool-runtime.ts';
import type { StoredInputRequest, StoredTask } from '../store/task-records.ts';
import { STORED_JSON_LIMITS, parseCallerJson } from './caller-json.ts';
import { nowDateTime } from './clock.ts';
import { expireIfDue } from './deadlines.ts';
import { accepting, commit, type EngineContext, type Effects } from './engine-context.ts';
import { inputFingerprint } from './fingerprints.ts';
import { checkSchema } from './schema-check.ts';
import { authorizedTask } from './task-access.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { MutationRefused, appendEvent, reload, statusPayload } from './transitions.ts';

// --- issuing ---------------------------------------------------------------------------------

type Issued = { readonly requestId: string; readonly expiresAt: string | undefined } | ActionRefusal;

export async function issueInputRequest(
  ctx: EngineContext,
  taskId: string,
  request: InputRequest,
): Promise<InputOutcome | ActionRefusal> {
  let schemaJson: string;
  try {
    schemaJson = canonicalJson(request.inputSchema);
    await ctx.pinned.adHocSchema(schemaJson);
  } catch {
    return 'invalid';
  }
  if (request.expiresAt !== undefined) {
    try {
      parseDateTime(request.expiresAt);
    } catch {
      return 'invalid';
    }
  }
  if (!accepting(ctx)) return 'settled';
  const issued = commit(ctx, (effects): Issued => {
    const task = reload(ctx, taskId);
    if (task === undefined || isTerminal(task.state)) return 'settled';
    if (expireIfDue(ctx, effects, task) !== undefined) return 'deadline-expired';
    if (task.state === 'input_required') return 'input-pending';
    // cancelling → input_required is not a permitted transition (#task-states).
    if (task.state === 'cancelling') return 'invalid';
    if (
      request.expiresAt !== undefined &&
      isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(request.expiresAt))
    ) {
      return 'invalid';
    }
    const issuedBefore = ctx.store.tasks.events(taskId).filter((e) => e.type === 'input_required').length;
    // security.rate-limits: input requests per task are capped.
    if (issuedBefore >= ctx.limits.maxInputRequestsPerTask) return 'invalid';
    const requestId = generateIdentifier('input-');
    const payload = (at: string): JsonValue => ({
      requestId,
      question: request.question,
      inputSchema: request.inputSchema,
      createdAt: at,
      ...(request.expiresAt === undefined ? {} : { expiresAt: request.expiresAt }),
    });
    try {
      const next = appendEvent(ctx, effects, task, {
        to: 'input_required',
        type: 'input_required',
        payload,
        pendingInputId: requestId,
      });
      const event = ctx.store.tasks.event(taskId, next.revision);
      if (event === undefined) throw new Error('the input_required event was not stored');
      ctx.store.tasks.insertInputRequest({
        taskId,
        requestId,
        payloadJson: event.payloadJson,
        expiresAt: request.expiresAt,
        issuedRevision: next.revision,
        acceptedFingerprint: undefined,
        acceptedRevision: undefined,
        acceptedInputJson: undefined,
      });
    } catch (error) {
      if (error instanceof MutationRefused) return 'invalid';
      throw error;
    }
    return { requestId, expiresAt: request.expiresAt };
  });
  if (typeof issued === 'string') return issued;
  // Registered synchronously after the commit: no answer can be processed in between.
  return new Promise<InputOutcome>((resolve) => {
    const live = ctx.live.entry(taskId);
    live.inputWaiter = { requestId: issued.requestId, resolve };
    if (issued.expiresAt !== undefined) armInputExpiry(ctx, taskId, issued.requestId, issued.expiresAt);
  });
}

function armInputExpiry(ctx: EngineContext, taskId: string, requestId: string, expiresAt: string): void {
  const live = ctx.live.entry(taskId);
  live.inputTimer?.cancel();
  const delay = Math.max(0, toEpochMillis(parseDateTime(expiresAt)) - ctx.clock.now());
  live.inputTimer = ctx.clock.setTimer(delay, () => {
    if (!accepting(ctx)) return;
    const early = commit(ctx, (effects) => {
      const task = reload(ctx, taskId);
      if (task === undefined || isTerminal(task.state)) return false;
      if (expireIfDue(ctx, effects, task) !== undefined) return false;
      const pending = ctx.store.tasks.inputRequest(taskId, requestId);
      if (pending?.status !== 'pending') return false;
      if (!isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(expiresAt))) return true;
      expire(ctx, effects, task, requestId);
      return false;
    });
    // Milliseconds truncate finer digits: a timer that fired a hair early tries again.
    if (early) {
      ctx.live.entry(taskId).inputTimer = ctx.clock.setTimer(1, () => {
        armInputExpiry(ctx, taskId, requestId, expiresAt);
      });
    }
  });
}

/**
 * Expires the pending request and returns the task to running, atomically.
 *
 * interactive-input.expiry-outcome: the request expires and the task returns to running in one
 * transaction; the runtime then asks anew (a new ID) or settles.
 */
function expire(ctx: EngineContext, effects: Effects, task: StoredTask, requestId: string): void {
  ctx.store.tasks.closeInputRequest(task.taskId, requestId, 'expired');
  appendEvent(ctx, effects, task, { to: 'running', type: 'status', payload: statusPayload('running') });
  effects.later(() => {
    ctx.live.resolveInput(task.taskId, requestId, { kind: 'expired' });
  });
}

// --- answering -------------------------------------------------------------------------------

/**
 * Steps 3 and 4: an outcome decided by the stored request alone, or undefined to go on.
 *
 * interactive-input.identical-replay, interactive-input.different-tuple-conflict,
 * interactive-input.late-answer-conflict: decided by the stored request before any expiry, revision
 * or terminal check; expired and superseded requests answer conflict.
 */
function decidedByRecord(stored: StoredInputRequest, fingerprint: string): Outcome | undefined {
  if (stored.status === 'answered') {
    if (stored.acceptedFingerprint !== fingerprint || stored.acceptedRevision === undefined) {
      return refuse(FAULT.conflict);
    }
    return answer(buildInputAccepted({ taskId: stored.taskId, revision: stored.acceptedRevision }));
  }
  return stored.status === 'pending' ? undefined : refuse(FAULT.conflict);
}

export async function provideInput(
  ctx: EngineContext,
  requester: Requester,
  targetJid: string,
  request: ProvideInput,
): Promise<Outcome> {
  // task-recovery.caller-authorization, task-recovery.indistinguishable-not-found: the invoking
  // caller's bare JID alone, and one item-not-found for everything else.
  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  const stored =
    task === undefined ? undefined : ctx.store.tasks.inputRequest(task.taskId, request.requestId);
  if (task === undefined || stored === undefined) return refuse(FAULT.itemNotFound);
  // json-encoding.ijson-rejection: before the input is accepted.
  const parsed = parseCallerJson(request.inputJson, ctx.limits.json);
  if (!parsed.ok) return refuse(parsed.fault);
  const canonicalInput = canonicalJson(parsed.value);
  const fingerprint = inputFingerprint({
    callerJid: task.callerJid,
    endpointJid: task.endpointJid,
    taskId: task.taskId,
    requestId: request.requestId,
    expectedRevision: request.expectedRevision,
    canonicalInput,
  });
  const early = decidedByRecord(stored, fingerprint);
  if (early !== undefined) return early;

  const pending = parseStrictJson(stored.payloadJson, STORED_JSON_LIMITS) as JsonObject;
  let verdict;
  try {
    const schema = await ctx.pinned.adHocSchema(canonicalJson(pending['inputSchema'] ?? {}));
    verdict = await checkSchema(ctx, schema, parsed.value);
  } catch {
    verdict = 'limit' as const;
  }
  if (verdict === 'invalid') return refuse(FAULT.notAcceptable);
  if (verdict === 'limit') return refuse(FAULT.resourceConstraint);

  return commit(ctx, (effects): Outcome => {
    const current = reload(ctx, task.taskId);
    const record = ctx.store.tasks.inputRequest(task.taskId, request.requestId);
    if (current === undefined || record === undefined) return refuse(FAULT.itemNotFound);
    // Another answer may have committed while this one was validated.
    const decided = decidedByRecord(record, fingerprint);
    if (decided !== undefined) return decided;
    if (isTerminal(current.state)) return refuse(FAULT.conflict);
    // interactive-input.race-loser-conflict, cancellation.deadline-at-commit
    if (expireIfDue(ctx, effects, current) !== undefined) return refuse(FAULT.conflict);
    if (
      // interactive-input.expiry-enforced: at or after expiresAt by the target's clock at commit
      // time.
      record.expiresAt !== undefined &&
      isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(record.expiresAt))
    ) {
      expire(ctx, effects, current, record.requestId);
      return refuse(FAULT.conflict);
    }
    if (current.pendingInputId !== record.requestId || request.expectedRevision !== current.revision) {
      return refuse(FAULT.conflict);
    }
    const next = appendEvent(ctx, effects, current, {
      to: 'running',
      type: 'status',
      payload: statusPayload('running'),
    });
    // interactive-input.acceptance-retention: the acceptance is kept with the task's rows until the
    // task is purged.
    ctx.store.tasks.recordInputAnswer(task.taskId, record.requestId, {
      fingerprint,
      revision: next.revision,
      inputJson: canonicalInput,
    });
    effects.later(() => {
      ctx.live.resolveInput(task.taskId, record.requestId, { kind: 'answered', input: parsed.value });
    });
    return answer(buildInputAccepted({ taskId: task.taskId, revision: next.revision }));
  });
}

/**
 * For state responses: the complete pending request object (#task-recovery).
 *
 * interactive-input.pending-in-state
 */
export function pendingInputJson(ctx: EngineContext, task: StoredTask): string | undefined {
  if (task.state !== 'input_required' || task.pendingInputId === undefined) return undefined;
  return ctx.store.tasks.inputRequest(task.taskId, task.pendingInputId)?.payloadJson;
}
