/**
 * Engine start after a stop or a crash (#invocation: an accepted task stays answerable;
 * invocation.durable-before-accepted, invocation.replay-same-task: after kill -9 at any point
 * the task exists, a replay returns it, and the tool ran at most once).
 *
 * Everything admitted is in the store (admission commits before <accepted/>), so every
 * accepted task is still answerable. For each non-terminal task:
 * - with an execution record (the runtime may have run, side effects unknown): settle it,
 *   never run it again — `cancelled` if a cancellation had been accepted, otherwise failed with
 *   a retryable namespace-qualified code;
 * - without one (admitted, never dispatched): re-arm its deadline and dispatch it now; the
 *   dispatch transaction checks the deadline and a prior cancellation first.
 */
import { commit, type EngineContext } from './engine-context.ts';
import { EXECUTION_INTERRUPTED } from './runtime-failures.ts';
import { expireIfDue } from './deadlines.ts';
import { reload, settle } from './transitions.ts';

export interface RecoveryReport {
  readonly settled: number;
  readonly resumed: number;
}

export function recoverTasks(ctx: EngineContext): RecoveryReport {
  let settled = 0;
  let resumed = 0;
  for (const task of ctx.store.tasks.nonTerminalTasks()) {
    // invocation.replay-same-task: a task the runtime may have started is settled, never run again;
    // one never dispatched is dispatched now.
    if (task.dispatchedAt === undefined) {
      if (task.deadline !== undefined) ctx.armDeadline(task.taskId, task.deadline);
      ctx.dispatch(task.taskId);
      resumed += 1;
      continue;
    }
    commit(ctx, (effects) => {
      const current = reload(ctx, task.taskId);
      if (current === undefined) return;
      if (expireIfDue(ctx, effects, current) !== undefined) return;
      if (current.state === 'cancelling') settle(ctx, effects, current, 'cancelled', {});
      else settle(ctx, effects, current, 'failed', EXECUTION_INTERRUPTED);
    });
    settled += 1;
  }
  return { settled, resumed };
}
