/**
 * Runs a parsed script against one task's actions (#model-boundary). Each step either lets
 * the script go on or stops it; a terminal step (complete, fail, cancel) always stops it (the
 * steps after a `cancel` then run as late output, below).
 *
 * Refusals: a task that is already terminal, or whose deadline passed at the commit boundary,
 * takes no more actions, so 'settled' and 'deadline-expired' stop the script silently. Any other
 * refusal of an action that must settle the task (an invalid result, input request or failure)
 * is answered with one fallback failure, `internal-error`, so the task still ends with a terminal
 * event the suite can predict (interp-40: a result the target cannot validate may end
 * failed with any code). A refused progress update is advisory and the script goes on.
 *
 * Late output (#cancellation: output arriving after terminal `cancelled` MUST be discarded):
 * the steps after a `cancel` step run once the task is terminal, each output step being one
 * attempt through the actions, whatever the engine answers. They must reach the engine — it is
 * the engine that discards them — so nothing here short-circuits on the `settled` signal.
 */
import { dateTimeFromMillis, toEpochMillis, type XmppDateTime } from '../datetime.ts';
import type { ToolResult } from '../events/payload-types.ts';
import type { JsonValue } from '../json/json-value.ts';
import type {
  ActionRefusal,
  ActionResult,
  InputOutcome,
  InputRequest,
  TaskActions,
  ToolLedger,
} from '../tool-actions.ts';
import { untilAborted, type RuntimeClock } from './clock.ts';
import { REFUSAL_FAILURE } from './failures.ts';
import type { CancelPolicy, CompleteStep, InputStep, Script, Step, WaitSpan, WaitStep } from './script.ts';

export interface ScriptContext {
  readonly actions: TaskActions;
  readonly clock: RuntimeClock;
  readonly ledger: ToolLedger;
}

type Next = 'next' | 'stop';

export async function runScript(script: Script, context: ScriptContext): Promise<void> {
  // Counted before any step, so a replayed or re-dispatched execution shows up even if it
  // never gets further (#invocation: "MUST NOT execute twice").
  if (script.ledgerKey !== undefined) context.ledger.increment(script.ledgerKey);
  const inputs: JsonValue[] = [];
  const { steps } = script;
  for (const [index, step] of steps.entries()) {
    if (context.actions.settled.aborted) return;
    if ((await runStep(step, context, inputs)) === 'stop') {
      // Only a task that is terminal gets late output: on an engine without
      // confirmCancellation the task is still cancelling here, and output would commit.
      if (step.kind === 'cancel' && isTerminalNow(context.actions)) {
        await attemptLateOutput(steps.slice(index + 1), context, inputs);
      }
      return;
    }
  }
  // Out of steps without settling: the contract makes this a runtime fault, which is what a
  // script ending this way asks for.
}

/** Read afresh: the signal aborts while a step runs (a plain read would be narrowed away). */
function isTerminalNow(actions: TaskActions): boolean {
  return actions.settled.aborted;
}

/**
 * The steps after a `cancel` step, run against a terminal task: one attempt per output step,
 * its answer ignored (no fallback failure, no stop: the gateway must discard each one). An
 * `increment` still counts, so a suite can tell from outside when the attempts were made. A
 * `wait` ends at once, as every wait does once the task has settled. A late input request is
 * made but not waited for: there is nobody left to answer it.
 */
async function attemptLateOutput(
  steps: readonly Step[],
  { actions, clock, ledger }: ScriptContext,
  inputs: readonly JsonValue[],
): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'progress':
        await actions.progress(step.update);
        break;
      case 'wait':
        break;
      case 'input': {
        const pending = actions.requestInput(inputRequestOf(step, clock));
        pending.catch(() => undefined);
        await Promise.race([pending, untilAborted(actions.settled)]);
        break;
      }
      case 'increment':
        ledger.increment(step.key);
        break;
      case 'complete':
        await completion(actions, step, inputs);
        break;
      case 'fail':
        await actions.fail(step.failure);
        break;
      case 'cancel':
        await actions.confirmCancellation?.(...(step.reason === undefined ? [] : [step.reason]));
        break;
    }
  }
}

/** One input request of a step; an expiry is counted from now. */
function inputRequestOf(step: InputStep, clock: RuntimeClock): InputRequest {
  return {
    question: step.question,
    inputSchema: step.inputSchema,
    ...(step.expiresInMs === undefined
      ? {}
      : { expiresAt: dateTimeFromMillis(clock.now() + step.expiresInMs).text }),
  };
}

function runStep(step: Step, context: ScriptContext, inputs: JsonValue[]): Promise<Next> {
  const { actions } = context;
  switch (step.kind) {
    case 'progress':
      return actions.progress(step.update).then((result) => (stopsScript(result) ? 'stop' : 'next'));
    case 'wait':
      return runWait(step, context);
    case 'input':
      return runInput(step, context, inputs);
    case 'increment':
      context.ledger.increment(step.key);
      return Promise.resolve('next');
    case 'complete':
      return settle(actions, completion(actions, step, inputs));
    case 'fail':
      return settle(actions, actions.fail(step.failure));
    case 'cancel':
      return confirmCancellation(actions, step.reason);
  }
}

/** Only a terminal task or a passed deadline stops the script after a progress update. */
function stopsScript(result: ActionResult): boolean {
  return !result.ok && isFinal(result.refusal);
}

function isFinal(refusal: ActionRefusal): boolean {
  return refusal === 'settled' || refusal === 'deadline-expired';
}

/** After an action meant to settle the task: done, or the one fallback failure. */
async function settle(actions: TaskActions, attempt: Promise<ActionResult>): Promise<Next> {
  const result = await attempt;
  if (!result.ok && !isFinal(result.refusal)) await actions.fail(REFUSAL_FAILURE);
  return 'stop';
}

function completion(
  actions: TaskActions,
  step: CompleteStep,
  inputs: readonly JsonValue[],
): Promise<ActionResult> {
  const structured = step.echoInputs ? { inputs: [...inputs] } : step.structuredContent;
  const result: ToolResult = {
    content: step.content,
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(step.isError === undefined ? {} : { isError: step.isError }),
    ...(step.meta === undefined ? {} : { _meta: step.meta }),
  };
  return step.summary === undefined ? actions.complete(result) : actions.complete(result, step.summary);
}

/**
 * Settles cancelled through TaskActions.confirmCancellation. An engine without it gets the
 * script's end instead: the reference engine settles a task that is cancelling when execute
 * returns (tasks/execution.ts), so confirming still works there, only without the reason.
 */
function confirmCancellation(actions: TaskActions, reason: string | undefined): Promise<Next> {
  if (actions.confirmCancellation === undefined) return Promise.resolve('stop');
  return settle(
    actions,
    reason === undefined ? actions.confirmCancellation() : actions.confirmCancellation(reason),
  );
}

/** A policy applied once a cancellation has been observed ('ignore' never gets here). */
function onCancellation(policy: Exclude<CancelPolicy, 'ignore'>, actions: TaskActions): Promise<Next> {
  return policy === 'confirm' ? confirmCancellation(actions, undefined) : Promise.resolve('next');
}

/** Never wakes before the instant: digits beyond the millisecond round the wake-up time up. */
function wakeAt(instant: XmppDateTime): number {
  const truncated = toEpochMillis(instant);
  return instant.fraction.slice(3).replace(/0+$/, '') === '' ? truncated : truncated + 1;
}

function sleep(span: WaitSpan, clock: RuntimeClock, signal: AbortSignal): Promise<void> {
  switch (span.kind) {
    case 'for':
      return clock.sleepUntil(clock.now() + span.ms, signal);
    case 'until':
      return clock.sleepUntil(wakeAt(span.instant), signal);
    case 'unbounded':
      return untilAborted(signal);
  }
}

async function runWait(step: WaitStep, { actions, clock }: ScriptContext): Promise<Next> {
  const { onCancel } = step;
  const interrupt =
    onCancel === 'ignore' ? actions.settled : AbortSignal.any([actions.settled, actions.cancellation]);
  await sleep(step.span, clock, interrupt);
  if (actions.settled.aborted) return 'stop';
  // Cancellation is sticky: once accepted it is seen by every later waiting step.
  if (onCancel !== 'ignore' && actions.cancellation.aborted) return onCancellation(onCancel, actions);
  return 'next';
}

/** What became of one input request, as the step sees it. */
type InputWait = InputOutcome | ActionRefusal | 'cancelled';

/**
 * A request that ended 'settled' although the task is not terminal was superseded by the
 * cancellation (the reference engine reports it so, tasks/cancellation.ts); it will never be
 * answered, so the step ends as its policy says ('ignore': without an input).
 */
function supersededByCancellation(outcome: InputWait, actions: TaskActions): boolean {
  return (
    typeof outcome === 'object' &&
    outcome.kind === 'settled' &&
    actions.cancellation.aborted &&
    !actions.settled.aborted
  );
}

async function runInput(
  step: InputStep,
  { actions, clock }: ScriptContext,
  inputs: JsonValue[],
): Promise<Next> {
  const { onCancel } = step;
  const heedsCancel = onCancel !== 'ignore';
  let reissuesLeft = step.reissue;
  for (;;) {
    // A cancelling task cannot move to input_required (#task-states), so a cancellation seen
    // before the request is handled before asking.
    if (heedsCancel && actions.cancellation.aborted) return onCancellation(onCancel, actions);
    const pending = actions.requestInput(inputRequestOf(step, clock));
    // Once cancellation is accepted the request can no longer be answered (#interactive-input:
    // an answer after the cancellation commits is a conflict), so a heeding step stops waiting
    // for it; the abandoned promise settles when the task does.
    pending.catch(() => undefined);
    const outcome: InputWait = heedsCancel
      ? await Promise.race([pending, untilAborted(actions.cancellation).then(() => 'cancelled' as const)])
      : await pending;
    if (outcome === 'cancelled' || supersededByCancellation(outcome, actions)) {
      return onCancel === 'ignore' ? 'next' : onCancellation(onCancel, actions);
    }
    if (typeof outcome === 'string') {
      if (isFinal(outcome)) return 'stop';
      await actions.fail(REFUSAL_FAILURE);
      return 'stop';
    }
    switch (outcome.kind) {
      case 'answered':
        inputs.push(outcome.input);
        return 'next';
      case 'settled':
        return 'stop';
      case 'expired':
        if (reissuesLeft === 0) return settle(actions, actions.fail(step.expiryFailure));
        reissuesLeft -= 1;
    }
  }
}
