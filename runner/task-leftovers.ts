/**
 * Clean cases for tasks: each attempt's admitted tasks are settled when it ends, and what could
 * not be settled is remembered for the rest of the run. A later task case then starts only once
 * those leftovers are terminal; one still outstanding makes it cantTell naming the task and its
 * owner, instead of letting it fail on a requirement the leftover (a filled per-caller capacity,
 * say) broke for it.
 */
import type { Caller } from '../harness/driver/index.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import { unsettledTasks, type AttemptCaller } from './attempt-tasks.ts';
import { settleTask, type SettleOptions } from './task-settling.ts';

/** A task a case left that its attempt's clean-up could not bring to a terminal state. */
export interface TaskLeftover {
  readonly taskId: string;
  readonly target: string;
  readonly owner: string;
  /** The case whose attempt was admitted the task. */
  readonly leftBy: string;
  /** The last clean-up's account of it. */
  readonly how: string;
}

/** Where a leftover's owner gets a caller: the run's long-lived one for that account. */
export type OwnerCaller = (bareJid: string) => Promise<Caller> | undefined;

/** The bound on one task's settling: a cancelled task should settle well before a task timeout. */
export const SETTLE_BOUND_MS = 10_000;

export function describeLeftover(leftover: TaskLeftover): string {
  return `task ${leftover.taskId} of ${leftover.owner} at ${leftover.target} (left by ${leftover.leftBy}): ${leftover.how}`;
}

/** The cases that need the suite's callers to have no task outstanding: those that count toward task profiles. */
export function startsTasks(testCase: ConformanceCase): boolean {
  return testCase.profiles.some((profile) => profile === 'task-execution' || profile === 'interactive-tasks');
}

export class TaskLeftovers {
  readonly #options: SettleOptions;
  readonly #ownerCaller: OwnerCaller;
  #leftovers: TaskLeftover[] = [];

  constructor(ownerCaller: OwnerCaller, options: SettleOptions) {
    this.#ownerCaller = ownerCaller;
    this.#options = options;
  }

  get outstanding(): readonly TaskLeftover[] {
    return this.#leftovers;
  }

  /**
   * Settles, concurrently, every task the attempt got admitted and saw no terminal event of;
   * notes each on `note` (the attempt's transcript) and returns what could not be settled, which
   * is remembered for the run.
   */
  async settleAttempt(
    caseId: string,
    callers: readonly AttemptCaller[],
    note: (text: string) => void,
  ): Promise<TaskLeftover[]> {
    const tasks = unsettledTasks(callers);
    const results = await Promise.all(
      tasks.map(async (task) => {
        const caller = task.invoker.status === 'online' ? task.invoker : await this.#callerOf(task.owner);
        const settling =
          typeof caller === 'string'
            ? { settled: false, how: caller }
            : await settleTask(caller, task.target, task.taskId, this.#options);
        note(`clean-up: task ${task.taskId} of ${task.owner} at ${task.target}: ${settling.how}`);
        return settling.settled
          ? undefined
          : {
              taskId: task.taskId,
              target: task.target,
              owner: task.owner,
              leftBy: caseId,
              how: settling.how,
            };
      }),
    );
    const left = results.filter((leftover) => leftover !== undefined);
    this.#leftovers.push(...left);
    return left;
  }

  /**
   * Asks once more after every leftover (a cancelled task may settle after the bound), cancelling
   * it again but not waiting: the ones now terminal are forgotten, the rest returned. An
   * unsettleable task costs each later task case a round trip or two, not a bound.
   */
  async recheck(note: (text: string) => void): Promise<readonly TaskLeftover[]> {
    if (this.#leftovers.length === 0) return [];
    const checked = await Promise.all(
      this.#leftovers.map(async (leftover) => {
        const caller = await this.#callerOf(leftover.owner);
        const settling =
          typeof caller === 'string'
            ? { settled: false, how: caller }
            : await settleTask(caller, leftover.target, leftover.taskId, { boundMs: 0 });
        note(
          `leftover task ${leftover.taskId} of ${leftover.owner} (left by ${leftover.leftBy}): ${settling.how}`,
        );
        return settling.settled ? undefined : { ...leftover, how: settling.how };
      }),
    );
    this.#leftovers = checked.filter((leftover) => leftover !== undefined);
    return this.#leftovers;
  }

  /** The owner's caller, or why there is none (then the task stays a leftover, saying so). */
  async #callerOf(owner: string): Promise<Caller | string> {
    const connecting = this.#ownerCaller(owner);
    if (connecting === undefined) return `${owner} is none of the run's accounts: nothing can settle it`;
    try {
      return await connecting;
    } catch (error) {
      return `no caller of ${owner} to settle it with: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
