/**
 * Dispatch (#invocation, #cancellation, #model-boundary): an admitted task runs at most once.
 * Tasks ready in the same turn share the dispatch transaction (DispatchQueue).
 *
 * The dispatch transaction checks the deadline ("before initial dispatch"), settles a task
 * cancelled before it ever ran, writes the execution record (`dispatched_at`) and commits
 * accepted → running with its status event — all before the runtime is called. After a crash,
 * a task with an execution record is never run again (crash-recovery.ts settles it), so no
 * admitted task executes twice.
 *
 * The runtime sees only the tool name, version, validated arguments, deadline and an opaque
 * handle. When `execute` ends without the task settled, the engine decides: a task in
 * `cancelling` is settled `cancelled` (the tool honoured the advisory cancellation); anything
 * else is a runtime fault, settled failed with a retryable code and a fixed message.
 */
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type { ToolInvocation } from '../runtime/tool-runtime.ts';
import type { StoredTask } from '../store/task-records.ts';
import { STORED_JSON_LIMITS } from './caller-json.ts';
import { expireIfDue } from './deadlines.ts';
import { Effects, accepting, commit, nowText, type EngineContext } from './engine-context.ts';
import { RUNTIME_FAULT, RUNTIME_UNAVAILABLE } from './runtime-failures.ts';
import type { GroupCommitter } from './group-commit.ts';
import { createTaskActions } from './task-actions.ts';
import { appendEvent, reload, settle, statusPayload } from './transitions.ts';

const EMPTY_CANCELLED: JsonValue = {};

/**
 * Dispatches on a later turn, so the admission's IQ result is not held up by the runtime. The
 * tasks that become ready in the same turn (one admission group, say) are dispatched together:
 * one transaction, one savepoint each, one fsync for all their execution records. When the
 * next admission group is already waiting, they ride along in its transaction instead
 * (group-commit.ts), which saves that fsync too.
 */
export class DispatchQueue {
  readonly #ctx: () => EngineContext;
  readonly #committer: GroupCommitter | undefined;
  #pending: string[] = [];
  #scheduled = false;

  constructor(ctx: () => EngineContext, committer?: GroupCommitter) {
    this.#ctx = ctx;
    this.#committer = committer;
  }

  schedule(taskId: string): void {
    this.#pending.push(taskId);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const taskIds = this.#pending;
      this.#pending = [];
      const ctx = this.#ctx();
      // Closed or a store closed meanwhile (shutdown, a simulated crash): crash recovery dispatches them.
      if (!accepting(ctx)) return;
      const committer = this.#committer;
      if (committer === undefined || committer.waiting === 0) {
        dispatchAll(ctx, taskIds);
        return;
      }
      const batch = new DispatchBatch(ctx, taskIds);
      committer.ride({
        work: () => {
          batch.write();
        },
        committed: () => {
          batch.start();
        },
        // Its writes rolled back with the group: they get a transaction of their own.
        failed: () => {
          if (accepting(ctx)) dispatchAll(ctx, taskIds);
        },
      });
    });
  }
}

/** Runs the dispatch transaction of one task and, if it started the task, the runtime. */
export function dispatchNow(ctx: EngineContext, taskId: string): void {
  dispatchAll(ctx, [taskId]);
}

/**
 * The dispatch of several tasks: `write` inside a transaction (a savepoint each, so a task whose
 * dispatch throws rolls back alone and stays admitted for crash recovery), `start` after that
 * transaction committed (events, then runtimes).
 */
class DispatchBatch {
  readonly #ctx: EngineContext;
  readonly #taskIds: readonly string[];
  readonly #started: StoredTask[] = [];
  readonly #effects: Effects[] = [];

  constructor(ctx: EngineContext, taskIds: readonly string[]) {
    this.#ctx = ctx;
    this.#taskIds = taskIds;
  }

  write(): void {
    const ctx = this.#ctx;
    for (const taskId of this.#taskIds) {
      const own = new Effects();
      try {
        const task = ctx.store.transaction(() => dispatchWork(ctx, own, taskId));
        this.#effects.push(own);
        if (task !== undefined) this.#started.push(task);
      } catch (error) {
        ctx.log(`task dispatch failed (${error instanceof Error ? error.name : typeof error})`);
      }
    }
  }

  /** Once the dispatch commit is durable: events, then runtimes (unless the engine stopped meanwhile). */
  start(): void {
    for (const own of this.#effects) own.run(this.#ctx.log);
    if (!accepting(this.#ctx)) return;
    for (const task of this.#started) startRuntime(this.#ctx, task);
  }
}

/**
 * The dispatch of `taskIds` in one transaction of its own. It commits without waiting for the
 * disk; the runtimes start once it is durable, so a power loss can never leave a task that ran
 * without its execution record.
 */
export function dispatchAll(ctx: EngineContext, taskIds: readonly string[]): void {
  const batch = new DispatchBatch(ctx, taskIds);
  try {
    ctx.store.transactionDeferred(() => {
      batch.write();
    });
  } catch (error) {
    // Nothing committed: the tasks stay admitted without an execution record.
    ctx.log(`task dispatch commit failed (${error instanceof Error ? error.name : typeof error})`);
    return;
  }
  ctx.store.afterDurable(() => {
    batch.start();
  });
}

/** The dispatch checks and writes of one task, inside a transaction; the started task or undefined. */
function dispatchWork(ctx: EngineContext, effects: Effects, taskId: string): StoredTask | undefined {
  const task = reload(ctx, taskId);
  // invocation.replay-same-task: an admitted task runs at most once; an execution record is never
  // dispatched again.
  if (task === undefined || isTerminal(task.state) || task.dispatchedAt !== undefined) return undefined;
  // cancellation.deadline-at-commit: the deadline is checked before initial dispatch.
  if (expireIfDue(ctx, effects, task) !== undefined) return undefined;
  if (task.state === 'cancelling') {
    settle(ctx, effects, task, 'cancelled', EMPTY_CANCELLED);
    return undefined;
  }
  if (!ctx.runtimes.has(task.endpointJid)) {
    settle(ctx, effects, task, 'failed', RUNTIME_UNAVAILABLE);
    return undefined;
  }
  ctx.store.tasks.markDispatched(task.taskId, nowText(ctx));
  return appendEvent(ctx, effects, task, {
    to: 'running',
    type: 'status',
    payload: statusPayload('running'),
  });
}

function startRuntime(ctx: EngineContext, started: StoredTask): void {
  const runtime = ctx.runtimes.get(started.endpointJid);
  if (runtime === undefined) return;
  const taskId = started.taskId;
  // security.model-handles-bound, security.content-is-data: the runtime gets an opaque handle and
  // data; it never names a wire address.
  const invocation: ToolInvocation = {
    taskHandle: started.handle,
    tool: started.tool,
    apiVersion: started.apiVersion,
    arguments: parseStrictJson(started.argumentsJson, STORED_JSON_LIMITS),
    ...(started.deadline === undefined ? {} : { deadline: started.deadline }),
  };
  const actions = createTaskActions(ctx, started);
  let execution: Promise<void>;
  try {
    execution = runtime.execute(invocation, actions);
  } catch (error) {
    execution = Promise.reject(error instanceof Error ? error : new Error('runtime threw'));
  }
  execution.then(
    () => {
      afterExecute(ctx, taskId, undefined);
    },
    (error: unknown) => {
      afterExecute(ctx, taskId, error);
    },
  );
}

function afterExecute(ctx: EngineContext, taskId: string, error: unknown): void {
  if (!accepting(ctx)) return;
  if (error !== undefined) {
    // The class name only: exception messages may carry secrets or payloads (#privacy).
    // privacy.log-redaction
    ctx.log(`task runtime threw (${error instanceof Error ? error.name : typeof error})`);
  }
  commit(ctx, (effects) => {
    const task = reload(ctx, taskId);
    if (task === undefined || isTerminal(task.state)) return;
    if (expireIfDue(ctx, effects, task) !== undefined) return;
    if (task.state === 'cancelling') settle(ctx, effects, task, 'cancelled', EMPTY_CANCELLED);
    else settle(ctx, effects, task, 'failed', RUNTIME_FAULT);
  });
  ctx.live.settled(taskId);
}
