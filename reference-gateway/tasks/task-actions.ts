/**
 * The TaskActions a runtime gets for one task (#model-boundary, #rules: the target alone
 * reports progress and settles its task). Every action is a request: the engine checks it,
 * then commits it in one transaction whose boundary also applies the deadline (#cancellation)
 * and the terminal-state rule (output after terminal settlement is discarded).
 *
 * Checks that need no lock (payload schema, outputSchema validation, declared support) run
 * before the transaction; everything that depends on the task's current state runs inside it,
 * re-read from the store.
 */
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { ProgressPayload, TaskFailure, ToolResult } from '../../protocol/events/index.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import type {
  ActionRefusal,
  ActionResult,
  InputOutcome,
  InputRequest,
  TaskActions,
} from '../runtime/tool-runtime.ts';
import type { StoredTask } from '../store/task-records.ts';
import { expireIfDue } from './deadlines.ts';
import { accepting, commit, type EngineContext, type Effects } from './engine-context.ts';
import { issueInputRequest } from './interactive-input.ts';
import { checkSchema } from './schema-check.ts';
import { MutationRefused, appendEvent, payloadIsValid, reload, settle } from './transitions.ts';

const OK: ActionResult = Object.freeze({ ok: true });
const refused = (refusal: ActionRefusal): ActionResult => ({ ok: false, refusal });

/**
 * Commits `mutate` against the current task, or refuses: 'settled' when the task is already
 * terminal, 'deadline-expired' when the deadline came first (the task is then settled failed
 * in this very transaction), 'invalid' when the mutation breaks a schema or limit.
 */
export function commitAction(
  ctx: EngineContext,
  taskId: string,
  mutate: (task: StoredTask, effects: Effects) => void,
): ActionResult {
  // After shutdown nothing can commit any more; the next start settles the task.
  if (!accepting(ctx)) return refused('settled');
  return commit(ctx, (effects) => {
    const task = reload(ctx, taskId);
    // cancellation.output-after-cancelled-discarded: output after settlement changes neither state
    // nor result.
    if (task === undefined || isTerminal(task.state)) return refused('settled');
    // cancellation.deadline-at-commit
    if (expireIfDue(ctx, effects, task) !== undefined) return refused('deadline-expired');
    try {
      mutate(task, effects);
    } catch (error) {
      if (error instanceof MutationRefused) return refused('invalid');
      throw error;
    }
    return OK;
  });
}

// rules.only-target-settles, security.model-output-not-routing: progress and settlement come only
// through these actions of the executing runtime; nothing a tool returns chooses where a stanza
// goes.
export function createTaskActions(ctx: EngineContext, task: StoredTask): TaskActions {
  const live = ctx.live.entry(task.taskId);
  const pinned = ctx.pinned.find(task.endpointJid, task.apiVersion, task.tool);
  const extension = pinned?.extension ?? {};
  const supportsProgress = ctx.features.progress && extension.supportsProgress === true;
  const supportsInput = ctx.features.input && extension.supportsInput === true;
  const taskId = task.taskId;

  return {
    cancellation: live.cancellation.signal,
    settled: live.settled.signal,

    progress(update: ProgressPayload): Promise<ActionResult> {
      if (live.settled.signal.aborted) return Promise.resolve(refused('settled'));
      // A feature the endpoint does not advertise is not emitted (#conformance).
      const payload = update as unknown as JsonValue;
      // manifest.endpoint-features-prevail, events.progress-percent-range
      if (!supportsProgress || !payloadIsValid('progress', payload))
        return Promise.resolve(refused('invalid'));
      return Promise.resolve(
        commitAction(ctx, taskId, (current, effects) => {
          appendEvent(ctx, effects, current, { to: current.state, type: 'progress', payload });
        }),
      );
    },

    requestInput(request: InputRequest): Promise<InputOutcome | ActionRefusal> {
      if (live.settled.signal.aborted) return Promise.resolve('settled');
      // Input without declared support would be a feature the endpoint does not advertise
      // (interp-05 warns about exactly that).
      if (!supportsInput) return Promise.resolve('invalid');
      return issueInputRequest(ctx, taskId, request);
    },

    async complete(result: ToolResult, summary?: string): Promise<ActionResult> {
      if (live.settled.signal.aborted) return refused('settled');
      const payload = (summary === undefined ? { result } : { result, summary }) as unknown as JsonValue;
      if (!payloadIsValid('completed', payload)) return refused('invalid');
      // rules.resource-bounds: result size.
      if (Buffer.byteLength(canonicalJson(payload), 'utf8') > ctx.limits.resultMaxBytes)
        return refused('invalid');
      // #events: structuredContent is validated against outputSchema before completion; a
      // result with isError true is still a completion and carries no such promise
      // (interp-40).
      const outputSchema = pinned === undefined ? undefined : ctx.pinned.schema(pinned, 'output');
      // events.output-schema-validated, events.iserror-is-completed: structuredContent validated
      // before completion; an isError result still completes.
      if (outputSchema !== undefined && result.isError !== true) {
        if (result.structuredContent === undefined) return refused('invalid');
        const verdict = await checkSchema(ctx, await outputSchema, result.structuredContent);
        if (verdict !== 'valid') return refused('invalid');
      }
      return commitAction(ctx, taskId, (current, effects) => {
        settle(ctx, effects, current, 'completed', payload);
      });
    },

    /**
     * The runtime contract's optional confirmation (#cancellation: the target chooses and
     * commits the terminal state). Allowed from any non-terminal state (#task-states), normally
     * after `cancellation` aborted; the reason becomes the cancelled payload's `reason`.
     */
    confirmCancellation(reason?: string): Promise<ActionResult> {
      if (live.settled.signal.aborted) return Promise.resolve(refused('settled'));
      const payload: JsonValue = reason === undefined ? {} : { reason };
      if (!payloadIsValid('cancelled', payload)) return Promise.resolve(refused('invalid'));
      return Promise.resolve(
        commitAction(ctx, taskId, (current, effects) => {
          settle(ctx, effects, current, 'cancelled', payload);
        }),
      );
    },

    fail(failure: TaskFailure): Promise<ActionResult> {
      if (live.settled.signal.aborted) return Promise.resolve(refused('settled'));
      // The schema and the reserved-or-qualified code rule (protocol/events/failure-code.ts).
      // errors.failed-event-shape, errors.qualified-codes: the failure is refused unless its code
      // is reserved or namespace-qualified.
      const payload = { error: failure } as unknown as JsonValue;
      if (!payloadIsValid('failed', payload)) return Promise.resolve(refused('invalid'));
      return Promise.resolve(
        commitAction(ctx, taskId, (current, effects) => {
          settle(ctx, effects, current, 'failed', payload);
        }),
      );
    },
  };
}
