/**
 * Brings a task a case left behind to a terminal state, or says why it could not: asks its
 * state (#task-recovery), cancels it (#cancellation; a gateway without the feature refuses, and
 * the task is then waited out) and waits, within a bound, until task-state reports it terminal. A task the gateway does not
 * know (item-not-found) holds nothing any more and counts as settled.
 */
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import {
  buildCancel,
  buildTaskStateRequest,
  parseTaskState,
  type TaskState,
} from '../protocol/stanza/index.ts';
import { isTerminal } from '../protocol/task-states.ts';

/** The task as the gateway last reported it, or why it did not. */
type Observed =
  | { readonly kind: 'state'; readonly state: TaskState }
  | { readonly kind: 'unknown-to-gateway' }
  | { readonly kind: 'no-answer'; readonly why: string };

export type Settling =
  { readonly settled: true; readonly how: string } | { readonly settled: false; readonly how: string };

export interface SettleOptions {
  /** How long the task may take to reach a terminal state once asked to. */
  readonly boundMs: number;
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}

function describeReply(exchange: IqExchange): string {
  if (exchange.parsed.type === 'error') return exchange.parsed.error.condition;
  const payload = exchange.parsed.payload;
  return payload === undefined ? 'an empty result' : `<${payload.getName()}/>`;
}

async function observe(caller: Caller, target: string, taskId: string): Promise<Observed> {
  let exchange: IqExchange;
  try {
    exchange = await caller.exchangeIq(target, 'get', buildTaskStateRequest({ taskId }));
  } catch (error) {
    return { kind: 'no-answer', why: `task-state got no answer: ${describeError(error)}` };
  }
  if (exchange.parsed.type === 'error') {
    return exchange.parsed.error.condition === 'item-not-found'
      ? { kind: 'unknown-to-gateway' }
      : { kind: 'no-answer', why: `task-state answered ${exchange.parsed.error.condition}` };
  }
  const payload = exchange.parsed.payload;
  if (payload?.getName() !== 'task-state' || payload.attrs['xmlns'] !== NS_AGENT_TASK) {
    return { kind: 'no-answer', why: `task-state answered ${exchange.reply.xml}` };
  }
  try {
    return { kind: 'state', state: parseTaskState(payload) };
  } catch (error) {
    return {
      kind: 'no-answer',
      why: `task-state answered a malformed <task-state/>: ${describeError(error)}`,
    };
  }
}

function settledOrUndefined(observed: Observed, after: string): Settling | undefined {
  if (observed.kind === 'unknown-to-gateway') {
    return { settled: true, how: `the gateway no longer knows it (item-not-found) ${after}` };
  }
  if (observed.kind === 'state' && isTerminal(observed.state.state)) {
    return {
      settled: true,
      how: `${observed.state.state} at revision ${String(observed.state.revision)} ${after}`,
    };
  }
  return undefined;
}

function describeObserved(observed: Observed): string {
  if (observed.kind === 'state')
    return `${observed.state.state} at revision ${String(observed.state.revision)}`;
  if (observed.kind === 'no-answer') return observed.why;
  return 'unknown to the gateway';
}

/** Sends <cancel/> at the revision last seen; what came back, in words. */
async function requestCancel(caller: Caller, target: string, state: TaskState): Promise<string> {
  try {
    const exchange = await caller.exchangeIq(
      target,
      'set',
      buildCancel({
        taskId: state.taskId,
        expectedRevision: state.revision,
        reason: 'agentconf: case clean-up',
      }),
    );
    return `cancel at revision ${String(state.revision)} answered ${describeReply(exchange)}`;
  } catch (error) {
    return `cancel at revision ${String(state.revision)} got no answer: ${describeError(error)}`;
  }
}

/**
 * Settles `taskId`, owned by `caller`'s account, at `target`. Never rejects: what went wrong is
 * in the result's `how`. Waiting is on the caller's events for the task (the invoking resource
 * gets them; another resource re-asks at least every 250 ms).
 */
export async function settleTask(
  caller: Caller,
  target: string,
  taskId: string,
  options: SettleOptions,
): Promise<Settling> {
  const giveUpAt = performance.now() + options.boundMs;
  let observed = await observe(caller, target, taskId);
  const already = settledOrUndefined(observed, 'already');
  if (already !== undefined) return already;
  const steps: string[] = [];
  let cancelsLeft = 2;
  for (;;) {
    // A conflict means the revision moved on: the cancel is asked again at the new one.
    if (observed.kind === 'state' && cancelsLeft > 0 && observed.state.state !== 'cancelling') {
      cancelsLeft -= 1;
      steps.push(await requestCancel(caller, target, observed.state));
    }
    const left = giveUpAt - performance.now();
    if (left <= 0) break;
    await caller.events
      .waitFor(taskId, () => true, { timeoutMs: Math.min(left, 250) }, 'any event')
      .catch(() => undefined);
    observed = await observe(caller, target, taskId);
    const done = settledOrUndefined(observed, `after ${steps.join('; ') || 'waiting'}`);
    if (done !== undefined) return done;
  }
  const tried = steps.length === 0 ? '' : ` after ${steps.join('; ')}`;
  return {
    settled: false,
    how: `still ${describeObserved(observed)} ${String(options.boundMs)} ms later${tried}`,
  };
}
