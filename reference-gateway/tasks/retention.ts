/**
 * Retention (#events: state and results stay queryable until retain-until; #invocation,
 * #interactive-input, #cancellation: acceptance records for the longer of window, lifetime and
 * retention; #registration-flow: a retained version cannot be removed). The gateway calls
 * `purge` periodically; tests call it with a moved clock.
 *
 * One transaction: terminal tasks whose retain-until has passed are deleted with their events,
 * input requests and cancellation record (cascade), and their version references released;
 * replay records are deleted once past their keep-until and their task is gone or terminal.
 * Non-terminal tasks are never purged: their state stays queryable for their whole lifetime.
 */
import type { EngineContext } from './engine-context.ts';

export interface PurgeReport {
  readonly tasks: number;
  readonly replays: number;
}

/** The holder name of a task's version reference. */
export function versionHolder(taskId: string): string {
  return `task:${taskId}`;
}

// events.queryable-until-retain-until, invocation.replay-retention,
// interactive-input.acceptance-retention, cancellation.acceptance-retention: only terminal tasks
// past retain-until go, with their acceptances; a replay record outlives its window, its task's
// lifetime and retention.
export function purgeExpired(ctx: EngineContext): PurgeReport {
  const nowMs = ctx.clock.now();
  return ctx.store.transaction(() => {
    const purged = ctx.store.tasks.purgeTasks(nowMs);
    for (const task of purged) {
      ctx.store.registrations.release(task.endpointJid, task.apiVersion, versionHolder(task.taskId));
    }
    const replays = ctx.store.tasks.purgeReplays(nowMs);
    return { tasks: purged.length, replays };
  });
}
