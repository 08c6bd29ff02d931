/**
 * Deadlines (#cancellation): instants compared exactly, after applying offsets and keeping
 * every fractional digit (protocol/datetime.ts). A non-terminal task whose deadline has come
 * settles failed with the reserved code deadline-expired — by its timer, and also at every
 * later commit boundary (dispatch, progress, input, cancel, completion, failure), so a late or
 * lost timer can never let a mutation commit after the deadline.
 */
import { isAtOrAfter, parseDateTime, toEpochMillis } from '../../protocol/datetime.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { StoredTask } from '../store/task-records.ts';
import { nowDateTime } from './clock.ts';
import { accepting, commit, type EngineContext, type Effects } from './engine-context.ts';
import { reload, settle } from './transitions.ts';

export const DEADLINE_FAILURE = Object.freeze({
  error: Object.freeze({
    code: 'deadline-expired',
    message: 'The deadline passed before the task settled.',
    retryable: false,
  }),
});

// cancellation.exact-instant-comparison: offsets applied, every fractional digit kept.
export function deadlineReached(ctx: EngineContext, deadline: string | undefined): boolean {
  return deadline !== undefined && isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(deadline));
}

/**
 * The commit-boundary check: settles the task failed/deadline-expired instead of the caller's
 * mutation when its deadline has come. Returns the settled task, or undefined to go on.
 *
 * cancellation.deadline-expiry, cancellation.deadline-at-commit: failed with deadline-expired
 * instead of the mutation.
 */
export function expireIfDue(ctx: EngineContext, effects: Effects, task: StoredTask): StoredTask | undefined {
  if (isTerminal(task.state) || !deadlineReached(ctx, task.deadline)) return undefined;
  return settle(ctx, effects, task, 'failed', DEADLINE_FAILURE);
}

/** Arms (or re-arms) the task's deadline timer. */
export function armDeadline(ctx: EngineContext, taskId: string, deadline: string): void {
  const live = ctx.live.entry(taskId);
  live.deadlineTimer?.cancel();
  // Milliseconds truncate finer digits; firing early only re-arms, the comparison is exact.
  const delay = Math.max(0, toEpochMillis(parseDateTime(deadline)) - ctx.clock.now());
  live.deadlineTimer = ctx.clock.setTimer(delay, () => {
    onDeadlineTimer(ctx, taskId, deadline);
  });
}

function onDeadlineTimer(ctx: EngineContext, taskId: string, deadline: string): void {
  // After shutdown (or a simulated crash) the next start's recovery owns the task.
  if (!accepting(ctx)) return;
  const due = commit(ctx, (effects) => {
    const task = reload(ctx, taskId);
    if (task === undefined || isTerminal(task.state)) return true;
    return expireIfDue(ctx, effects, task) !== undefined;
  });
  if (due) return;
  const live = ctx.live.entry(taskId);
  live.deadlineTimer = ctx.clock.setTimer(1, () => {
    onDeadlineTimer(ctx, taskId, deadline);
  });
}
