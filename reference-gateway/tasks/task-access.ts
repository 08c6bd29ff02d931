/**
 * Task-specific caller authorization (#task-recovery, #interactive-input, #cancellation,
 * #errors): a task is visible to exactly its caller's bare JID, through the endpoint it was
 * invoked at, from any resource. Neither endpoint visibility nor invocation permission is
 * consulted (#errors: task operations are not denied because visibility later changes;
 * interp-26 accepts continued access after a revoked invocation grant).
 *
 * Nonexistent, purged, expired, other-caller and other-endpoint tasks all come back as
 * undefined from one lookup followed by one combined comparison, so the answers and the work
 * done for them are the same (#security: unknown, expired and unauthorized lookups are
 * indistinguishable).
 */
import { JidError, normalizeBareJid } from '../../protocol/jid/index.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { StoredTask } from '../store/task-records.ts';
import type { EngineContext } from './engine-context.ts';

/** The normalized target bare JID, or undefined when it is not one. */
export function normalizedTarget(targetJid: string): string | undefined {
  try {
    return normalizeBareJid(targetJid);
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

// task-recovery.caller-authorization, task-recovery.indistinguishable-not-found,
// errors.not-found-equivalence, errors.task-ops-survive-visibility-change,
// idempotency.immediate-sender: the task's own caller bare JID at its own endpoint, whatever the
// visibility now; every other case is the same undefined.
export function authorizedTask(
  ctx: EngineContext,
  requester: Requester,
  targetJid: string,
  taskId: string,
): StoredTask | undefined {
  const target = normalizedTarget(targetJid) ?? '';
  const task = ctx.store.tasks.task(taskId);
  const owner = task?.callerJid === requester.bareJid;
  const addressed = task?.endpointJid === target;
  // A terminal task past retain-until is expired even before the purge deletes it.
  // events.queryable-until-retain-until: a non-terminal task stays queryable however long it runs.
  const retained = task !== undefined && (!isTerminal(task.state) || ctx.clock.now() < task.retainUntilMs);
  return owner && addressed && retained ? task : undefined;
}
