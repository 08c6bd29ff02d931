/**
 * Task recovery (#task-recovery; interp-04, interp-39): the source of truth after lost
 * notifications. Both operations authorize through task-access.ts, so nonexistent, expired,
 * other-caller and other-endpoint task IDs share one code path and one fault object.
 * Syntactically invalid task IDs never get here: the codec rejects them (bad-request).
 *
 * - <task-state/> carries the endpoint, exact version and manifest hash, state, revision,
 *   created/updated, retain-until, the effective deadline, result-available (true exactly
 *   for terminal tasks: every terminal state has a retained payload, interp-39) and,
 *   while input is pending, the complete input_required object.
 * - <task-result/> exists only for terminal tasks and carries the terminal event's payload
 *   and revision; a non-terminal task answers unexpected-request (type wait).
 */
import { parseDateTime } from '../../protocol/datetime.ts';
import { buildTaskResult, buildTaskState, type TaskRequest } from '../../protocol/stanza/task-recovery.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { EngineContext } from './engine-context.ts';
import { pendingInputJson } from './interactive-input.ts';
import { authorizedTask } from './task-access.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';

export function taskState(
  ctx: EngineContext,
  requester: Requester,
  targetJid: string,
  request: TaskRequest,
): Outcome {
  // task-recovery.caller-authorization, task-recovery.indistinguishable-not-found,
  // errors.task-ops-survive-visibility-change, task-message-routing.delivery-independent
  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const pending = pendingInputJson(ctx, task);
  return answer(
    // task-recovery.state-contents, task-recovery.result-availability,
    // interactive-input.pending-in-state, invocation.pin-before-admission: the pinned version and
    // hash, never the active one.
    buildTaskState({
      taskId: task.taskId,
      endpoint: task.endpointJid,
      state: task.state,
      revision: task.revision,
      apiVersion: task.apiVersion,
      created: parseDateTime(task.created),
      updated: parseDateTime(task.updated),
      ...(task.deadline === undefined ? {} : { deadline: parseDateTime(task.deadline) }),
      retainUntil: parseDateTime(task.retainUntil),
      resultAvailable: isTerminal(task.state),
      manifestHash: task.manifestHash,
      ...(pending === undefined ? {} : { pendingInputJson: pending }),
    }),
  );
}

export function taskResult(
  ctx: EngineContext,
  requester: Requester,
  targetJid: string,
  request: TaskRequest,
): Outcome {
  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  // task-recovery.result-only-terminal: the terminal event's payload, for terminal tasks only.
  if (!isTerminal(task.state) || task.resultJson === undefined) return refuse(FAULT.unexpectedRequest);
  return answer(
    buildTaskResult({
      taskId: task.taskId,
      state: task.state,
      revision: task.revision,
      json: task.resultJson,
    }),
  );
}
