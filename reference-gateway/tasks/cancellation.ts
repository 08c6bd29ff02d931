/**
 * Cancellation (#cancellation; interp-33, interp-38), in this order:
 * 1. task authorization, else item-not-found;
 * 2. replay identity, before revision, already-cancelling and terminal checks: the tuple of
 *    the accepted cancellation → the original <cancel-accepted/> (also after settlement);
 *    any other tuple → conflict (one cancellation is accepted per task);
 * 3. effective #cancel support (the gateway's switch and the tool's supportsCancellation),
 *    else service-unavailable (interp-38);
 * 4. terminal settlement committed first → conflict;
 * 5. the deadline at the commit boundary: it settles the task failed, so → conflict;
 * 6. expected revision equal to the current revision, else conflict;
 * 7. commit → cancelling at revision N with its status event at N and the acceptance record
 *    at N; a pending input request is superseded in the same transaction.
 *
 * Cancellation is advisory: the runtime's `cancellation` signal is aborted and the runtime may
 * still complete or fail; when it returns without settling, execution.ts settles cancelled.
 */
import type { Cancel } from '../../protocol/stanza/task-cancel.ts';
import { buildCancelAccepted } from '../../protocol/stanza/task-cancel.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { Requester } from '../catalog/catalog.ts';
import { nowText, commit, type EngineContext } from './engine-context.ts';
import { expireIfDue } from './deadlines.ts';
import { cancelFingerprint } from './fingerprints.ts';
import { authorizedTask } from './task-access.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { appendEvent, reload, statusPayload } from './transitions.ts';

export function cancelTask(
  ctx: EngineContext,
  requester: Requester,
  targetJid: string,
  cancel: Cancel,
): Outcome {
  // task-recovery.caller-authorization, task-recovery.indistinguishable-not-found,
  // errors.task-ops-survive-visibility-change
  const task = authorizedTask(ctx, requester, targetJid, cancel.taskId);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const fingerprint = cancelFingerprint({
    callerJid: task.callerJid,
    endpointJid: task.endpointJid,
    taskId: task.taskId,
    expectedRevision: cancel.expectedRevision,
    reason: cancel.reason,
  });
  return commit(ctx, (effects): Outcome => {
    const current = reload(ctx, task.taskId);
    if (current === undefined) return refuse(FAULT.itemNotFound);
    const accepted = ctx.store.tasks.cancellation(current.taskId);
    if (accepted !== undefined) {
      // cancellation.identical-replay, cancellation.different-tuple-conflict: decided by the stored
      // acceptance before revision, cancelling or terminal checks.
      return accepted.fingerprint === fingerprint
        ? answer(buildCancelAccepted({ taskId: current.taskId, revision: accepted.revision }))
        : refuse(FAULT.conflict);
    }
    const pinned = ctx.pinned.find(current.endpointJid, current.apiVersion, current.tool);
    if (!ctx.features.cancel || pinned?.extension.supportsCancellation !== true) {
      return refuse(FAULT.serviceUnavailable);
    }
    if (isTerminal(current.state)) return refuse(FAULT.conflict);
    // cancellation.deadline-at-commit
    if (expireIfDue(ctx, effects, current) !== undefined) return refuse(FAULT.conflict);
    if (cancel.expectedRevision !== current.revision) return refuse(FAULT.conflict);
    const superseded = current.pendingInputId;
    // interactive-input.race-loser-conflict: an accepted cancellation supersedes the pending input
    // request.
    if (superseded !== undefined) {
      ctx.store.tasks.closeInputRequest(current.taskId, superseded, 'superseded');
    }
    const next = appendEvent(ctx, effects, current, {
      to: 'cancelling',
      type: 'status',
      payload: statusPayload('cancelling'),
    });
    // cancellation.acceptance-retention: kept with the task's rows until the task is purged.
    ctx.store.tasks.insertCancellation({
      taskId: current.taskId,
      fingerprint,
      revision: next.revision,
      reason: cancel.reason,
      acceptedAt: nowText(ctx),
    });
    effects.later(() => {
      ctx.live.cancelling(current.taskId);
      // The runtime's wait for the superseded request ends: it can no longer be answered.
      if (superseded !== undefined) ctx.live.resolveInput(current.taskId, superseded, { kind: 'settled' });
    });
    return answer(buildCancelAccepted({ taskId: current.taskId, revision: next.revision }));
  });
}
