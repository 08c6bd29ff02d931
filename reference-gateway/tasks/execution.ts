/**
 * Dispatch (#invocation, #cancellation, #model-boundary): an admitted task runs at most once.
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
import { accepting, commit, nowText, type EngineContext } from './engine-context.ts';
import { RUNTIME_FAULT, RUNTIME_UNAVAILABLE } from './runtime-failures.ts';
import { createTaskActions } from './task-actions.ts';
import { appendEvent, reload, settle, statusPayload } from './transitions.ts';

const EMPTY_CANCELLED: JsonValue = {};

/** Dispatches on a later turn, so the admission's IQ result is not held up by the runtime. */
export function scheduleDispatch(ctx: EngineContext, taskId: string): void {
  setImmediate(() => {
    // A store closed meanwhile (shutdown, a simulated crash): crash recovery dispatches it.
    if (accepting(ctx)) dispatchNow(ctx, taskId);
  });
}

/** Runs the dispatch transaction and, if it started the task, the runtime. */
export function dispatchNow(ctx: EngineContext, taskId: string): void {
  const started = commit(ctx, (effects): StoredTask | undefined => {
    const task = reload(ctx, taskId);
    if (task === undefined || isTerminal(task.state) || task.dispatchedAt !== undefined) return undefined;
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
  });
  if (started === undefined) return;
  const runtime = ctx.runtimes.get(started.endpointJid);
  if (runtime === undefined) return;
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
