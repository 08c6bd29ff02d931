/**
 * Filling a caller's documented task capacity (rules.resource-bounds) with open waits, and
 * emptying it again: shared by the capacity cases of #rules.
 */
import { documentedRateLimitsOf } from '../../../harness/sut/index.ts';
import { expectThat } from '../../framework/expect.ts';
import { instantFromNow } from '../support/gateway-clock.ts';
import { isTerminalState, statusState } from '../support/task-events.ts';
import { expectCancelAccepted, expectTaskState } from '../support/task-replies.ts';
import type { SentInvoke, TaskSession } from '../support/task-session.ts';

/** The largest documented per-caller task capacity the run fills (each task costs a few stanzas). */
export const MAX_FILLED_CAPACITY = 500;

/** A task that waits until it is cancelled (the conformance tools' open wait, which confirms a cancellation). */
export const OPEN_WAIT = { steps: [{ wait: {} }, { complete: {} }] };

/** Open waits sent at once while filling: a burst of admissions can meet a gateway's pending-work or validation-time limits. */
const FILL_BATCH = 10;

/** Back-offs before sending a refused fill invocation again (the identical request). */
export const FILL_RETRIES_MS = [100, 400, 1_600] as const;

/**
 * Sends `count` invocations of an open wait from `caller`, a few at a time and no faster than the
 * SUT's documented invocation rate, sending one refused with resource-constraint again (the
 * identical request: it created no task) after a pause (TaskSession.invokePatiently): the fill
 * must meet only the capacity.
 * Each invocation's last exchange.
 */
export async function invokeOpenWaits(
  tasks: TaskSession,
  count: number,
  retry = true,
): Promise<SentInvoke[]> {
  const { context } = tasks;
  const rate = documentedRateLimitsOf(context.sut.limits, tasks.caller.bareJid).invocation;
  const batch = Math.min(
    FILL_BATCH,
    rate === undefined ? FILL_BATCH : Math.max(1, Math.floor(rate.burst / 2)),
  );
  // A deadline, so that tasks a broken run leaves behind end by themselves.
  const deadline = instantFromNow(context.sut.taskTimeoutMs + 60_000);
  const sendOne = (): Promise<SentInvoke> =>
    tasks.invokePatiently('script', OPEN_WAIT, { deadline }, retry ? FILL_RETRIES_MS : []);
  const sent: SentInvoke[] = [];
  while (sent.length < count) {
    const size = Math.min(batch, count - sent.length);
    sent.push(...(await Promise.all(Array.from({ length: size }, sendOne))));
    if (rate !== undefined && sent.length < count) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil((size / rate.perSecond) * 1000)));
    }
  }
  return sent;
}

/** Cancels every open-wait task and waits until each settles (any terminal state: #cancellation). */
export async function cancelAndSettle(tasks: TaskSession, taskIds: readonly string[]): Promise<void> {
  await Promise.all(
    taskIds.map(async (taskId) => {
      const running = await tasks.awaitEvent(taskId, 'status', () => true);
      const revision = statusState(running) === undefined ? 0 : running.event.revision;
      expectCancelAccepted(await tasks.cancel(taskId, revision), 'rules.resource-bounds');
      await tasks.awaitSettled(taskId);
      const state = expectTaskState(await tasks.state(taskId), 'rules.resource-bounds');
      expectThat(
        `${taskId}: ${state.state}`,
        'rules.resource-bounds',
        'every task the case filled the capacity with settled once cancelled',
        isTerminalState(state.state),
      );
    }),
  );
}
