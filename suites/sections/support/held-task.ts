/** Tasks of the conformance tools held running by a `wait` step while a case checks something. */
import type { ValidTaskEvent } from '../../../harness/driver/index.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { isTerminal } from '../../../protocol/task-states.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { decided, escalating, tooShort } from './escalating.ts';
import { expectTaskState } from './task-replies.ts';
import type { InvokeOptions, StartedTask, TaskSession } from './task-session.ts';

/**
 * The holds `whileHeld` tries, each 4× the one before, for a slow or loaded machine. The first is
 * about five times what the checks of a held task take on a quiet machine (~20 ms), since every
 * case waits for its task to settle: a hold that ends too soon costs one retry, a long first hold
 * costs every case its length.
 */
export const HOLDS_MS = [100, 400, 1_600, 6_400] as const;

export interface HeldTask extends StartedTask {
  /** The status event announcing that the task runs. */
  readonly running: ValidTaskEvent;
}

const isRunningPayload = (payload: JsonValue): boolean =>
  isJsonObject(payload) && payload['state'] === 'running';

/**
 * Runs `during` while a task of the conformance tools is held running by a `wait` step — never
 * by #cancel or #input, so that a gateway without interactive features decides core Task
 * Execution cases too. The task then completes by itself with `{}`. When it turns out to have
 * settled before `during` was done (a slow machine), `during` did not run wholly while the task
 * was held, so it runs again on a task held four times longer; what `during` throws while its
 * task was still held is the verdict. Returns the held task, still unsettled, and what `during`
 * returned.
 */
export async function whileHeld<T>(
  session: TaskSession,
  during: (task: HeldTask) => Promise<T>,
  options: InvokeOptions = {},
  retry: {
    /** Undoes what `during` changed (an activation, a deactivation) before the next, longer hold. */
    readonly beforeRetry?: () => Promise<void>;
  } = {},
): Promise<{ task: HeldTask; value: T }> {
  const outcome = await escalating(
    HOLDS_MS,
    async ({ ms }) => {
      const started = await session.start('script', { steps: [{ wait: { ms } }, { complete: {} }] }, options);
      const running = await session.awaitEvent(started.accepted.taskId, 'status', isRunningPayload);
      const task = { ...started, running };
      let checked: { value: T } | { error: unknown };
      try {
        checked = { value: await during(task) };
      } catch (error) {
        checked = { error };
      }
      const state = expectTaskState(
        await session.state(started.accepted.taskId),
        'task-recovery.state-contents',
      );
      if (!isTerminal(state.state)) {
        if ('error' in checked) throw checked.error;
        return decided({ task, value: checked.value });
      }
      await session.awaitSettled(started.accepted.taskId);
      return tooShort(undefined);
    },
    async () => {
      await retry.beforeRetry?.();
    },
  );
  if (outcome.kind === 'decided') return outcome.value;
  throw new CannotTell(
    `a task held running by a wait of ${String(outcome.ms)} ms settled before the case's checks were done: the machine is too slow to tell`,
  );
}
