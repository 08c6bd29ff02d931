/**
 * The task lifecycle after admission as the model sees it (#task-states, #events,
 * #cancellation, #interactive-input, #task-recovery): a task's state and revision, what moves
 * them, and the set of answers the spec accepts to cancel, provide-input, task-state and
 * task-result at each point. Pure: a task is a value, every step returns a new one.
 *
 * Revisions: 0 is the accepted state; each committed transition and each committed progress
 * update raises it by exactly one (#events). The revision a cancel-accepted or input-accepted
 * carries is that of the transition it commits, announced by the status event at the same
 * revision (interp-33).
 *
 * Replays come first: an identical cancellation or input tuple is recognised before the
 * expected-revision, already-cancelling, expiry and terminal checks and gets the original
 * acceptance again, whatever the task did since (#cancellation, #interactive-input). A different
 * tuple in the same scope is a conflict.
 *
 * expected-revision (interp-36): equal to the current revision is the only value that must be
 * accepted. Older, with a state transition committed since, must be a conflict; older only
 * through progress, either. Above the current revision: conflict or bad-request.
 */
import type { DefinedCondition } from '../../protocol/stanza/stanza-error.ts';
import {
  findTransition,
  isTaskState,
  isTerminal,
  type TaskState,
  type TerminalState,
} from '../../protocol/task-states.ts';

/** An accepted cancellation's identity, beyond caller, target and task (#cancellation). */
export interface CancellationTuple {
  readonly expectedRevision: number;
  /** The <reason/>'s parsed character data; absent when the element is absent. */
  readonly reason?: string;
}

/** An accepted input's identity, beyond caller, target and task (#interactive-input). */
export interface InputTuple {
  readonly requestId: string;
  readonly expectedRevision: number;
  /** The RFC 8785 canonical bytes of the input. */
  readonly canonicalInput: string;
}

interface InputRequestRecord {
  readonly requestId: string;
  /** Pending, answered (with the acceptance), or ended unanswered (expired, superseded, overtaken). */
  readonly disposition:
    | { readonly kind: 'pending' }
    | { readonly kind: 'answered'; readonly tuple: InputTuple; readonly revision: number }
    | { readonly kind: 'ended' };
}

export interface ModelTask {
  readonly state: TaskState;
  readonly revision: number;
  /** The revision of the latest committed state transition (progress leaves it). */
  readonly transitionRevision: number;
  readonly cancellation?: { readonly tuple: CancellationTuple; readonly revision: number };
  /** Every input request the task made, newest last. */
  readonly inputRequests: readonly InputRequestRecord[];
}

/** A task just admitted: accepted at revision 0. */
export function admitted(): ModelTask {
  return { state: 'accepted', revision: 0, transitionRevision: 0, inputRequests: [] };
}

/** Why an observed step is not one the model permits. */
export class LifecycleViolation extends Error {
  override readonly name = 'LifecycleViolation';
  constructor(
    readonly requirement:
      'task-states.permitted-transitions' | 'task-states.terminal-immutable' | 'events.revision-increments',
    message: string,
  ) {
    super(message);
  }
}

function ended(requests: readonly InputRequestRecord[]): InputRequestRecord[] {
  return requests.map((request) =>
    request.disposition.kind === 'pending' ? { ...request, disposition: { kind: 'ended' } } : request,
  );
}

/**
 * The task after a committed transition to `to` (a new input request names its ID). Any pending
 * input request ends unanswered, except when valid input moves it on (`answerInput` does that).
 */
export function transition(task: ModelTask, to: TaskState, inputRequestId?: string): ModelTask {
  if (isTerminal(task.state))
    throw new LifecycleViolation(
      'task-states.terminal-immutable',
      `${to} after the terminal ${task.state} at revision ${String(task.revision)}`,
    );
  // input_required to input_required is a re-issue after expiry (interp-35), not in the table.
  const reissue = task.state === 'input_required' && to === 'input_required';
  if (!reissue && findTransition(task.state, to) === undefined)
    throw new LifecycleViolation(
      'task-states.permitted-transitions',
      `${task.state} → ${to} is not permitted`,
    );
  const revision = task.revision + 1;
  const requests = ended(task.inputRequests);
  return {
    ...task,
    state: to,
    revision,
    transitionRevision: revision,
    inputRequests:
      to === 'input_required'
        ? [...requests, { requestId: inputRequestId ?? '', disposition: { kind: 'pending' } }]
        : requests,
  };
}

/** The task after a committed progress update: one revision, no transition. */
export function progressed(task: ModelTask): ModelTask {
  if (isTerminal(task.state))
    throw new LifecycleViolation(
      'task-states.terminal-immutable',
      `progress after the terminal ${task.state} at revision ${String(task.revision)}`,
    );
  return { ...task, revision: task.revision + 1 };
}

/** A lifecycle event as the model reads it. */
export interface ObservedEvent {
  readonly type: 'status' | 'progress' | 'input_required' | TerminalState;
  readonly revision: number;
  /** A status event's state. */
  readonly state?: string;
  /** An input_required event's requestId. */
  readonly requestId?: string;
}

/**
 * The task after an observed event: it must come at the next revision and be a permitted step.
 * The status event announcing an acceptance the model already applied (cancelling after
 * cancel-accepted, running after input-accepted) comes at the current revision (interp-33).
 */
export function applyEvent(task: ModelTask, event: ObservedEvent): ModelTask {
  if (event.type === 'status' && event.revision === task.revision && event.state === task.state) return task;
  if (event.revision !== task.revision + 1)
    throw new LifecycleViolation(
      isTerminal(task.state) ? 'task-states.terminal-immutable' : 'events.revision-increments',
      `${event.type} at revision ${String(event.revision)} after revision ${String(task.revision)}`,
    );
  if (event.type === 'progress') return progressed(task);
  if (event.type === 'status') {
    if (event.state === undefined || !isTaskState(event.state))
      throw new LifecycleViolation(
        'task-states.permitted-transitions',
        `a status event without a task state`,
      );
    return transition(task, event.state);
  }
  return transition(task, event.type, event.requestId);
}

// ---------------------------------------------------------------------------------------------
// Answers

export type TaskAnswer =
  | { readonly kind: 'error'; readonly condition: DefinedCondition }
  | { readonly kind: 'cancel-accepted'; readonly revision: number }
  | { readonly kind: 'input-accepted'; readonly revision: number }
  /** A <task-state/> in this state at this revision (with the pending request when input is required). */
  | {
      readonly kind: 'task-state';
      readonly state: TaskState;
      readonly revision: number;
      readonly pendingInput?: string;
    }
  /** A <task-result/> of this terminal state at this revision. */
  | { readonly kind: 'task-result'; readonly state: TerminalState; readonly revision: number };

export interface TaskAlternative {
  readonly answer: TaskAnswer;
  /** What the task becomes when the gateway gives this answer. */
  readonly next: ModelTask;
}

/** The answers to one task operation, as Expectation gives them for stateless operations. */
export interface TaskExpectation {
  readonly operation: string;
  readonly requirements: readonly string[];
  readonly interpretations: readonly string[];
  readonly alternatives: readonly TaskAlternative[];
}

function refusal(task: ModelTask, ...conditions: DefinedCondition[]): TaskAlternative[] {
  return conditions.map((condition) => ({ answer: { kind: 'error', condition }, next: task }));
}

/** Where an expected revision stands against the task (interp-36). */
export type RevisionStanding = 'current' | 'stale-transition' | 'stale-progress' | 'ahead';

export function revisionStanding(task: ModelTask, expectedRevision: number): RevisionStanding {
  if (expectedRevision === task.revision) return 'current';
  if (expectedRevision > task.revision) return 'ahead';
  return expectedRevision < task.transitionRevision ? 'stale-transition' : 'stale-progress';
}

function sameCancellation(a: CancellationTuple, b: CancellationTuple): boolean {
  return a.expectedRevision === b.expectedRevision && a.reason === b.reason;
}

/** The answers to a <cancel/> by the task's own caller. */
export function cancelAnswers(task: ModelTask, tuple: CancellationTuple): TaskExpectation {
  const operation = `cancel at expected revision ${String(tuple.expectedRevision)}${tuple.reason === undefined ? '' : ` with reason ${JSON.stringify(tuple.reason)}`} of a task ${task.state} at revision ${String(task.revision)}`;
  const known = task.cancellation;
  if (known !== undefined) {
    if (sameCancellation(known.tuple, tuple))
      return {
        operation: `${operation} (an identical replay of the cancellation accepted at ${String(known.revision)})`,
        requirements: ['cancellation.identical-replay'],
        interpretations: ['interp-38'],
        alternatives: [{ answer: { kind: 'cancel-accepted', revision: known.revision }, next: task }],
      };
    return {
      operation: `${operation} (another tuple than the cancellation accepted at ${String(known.revision)})`,
      requirements: ['cancellation.different-tuple-conflict'],
      interpretations: ['interp-38'],
      alternatives: refusal(task, 'conflict'),
    };
  }
  if (isTerminal(task.state))
    return {
      operation,
      requirements: ['cancellation.settled-first-conflict'],
      interpretations: ['interp-38'],
      alternatives: refusal(task, 'conflict'),
    };
  const accepted = (): TaskAlternative => {
    const next = transition(task, 'cancelling');
    return {
      answer: { kind: 'cancel-accepted', revision: next.revision },
      next: { ...next, cancellation: { tuple, revision: next.revision } },
    };
  };
  return {
    operation,
    ...byRevision(task, tuple.expectedRevision, 'cancellation.stale-revision-conflict', accepted),
  };
}

function byRevision(
  task: ModelTask,
  expectedRevision: number,
  requirement: string,
  accepted: () => TaskAlternative,
): Omit<TaskExpectation, 'operation'> {
  switch (revisionStanding(task, expectedRevision)) {
    case 'current':
      return { requirements: [requirement], interpretations: ['interp-33'], alternatives: [accepted()] };
    case 'stale-transition':
      return {
        requirements: [requirement],
        interpretations: ['interp-36'],
        alternatives: refusal(task, 'conflict'),
      };
    case 'stale-progress':
      return {
        requirements: [requirement],
        interpretations: ['interp-36'],
        alternatives: [...refusal(task, 'conflict'), accepted()],
      };
    case 'ahead':
      return {
        requirements: [requirement],
        interpretations: ['interp-36'],
        alternatives: refusal(task, 'conflict', 'bad-request'),
      };
  }
}

/** The answers to a <provide-input/> by the task's own caller; `valid` is the input's schema verdict. */
export function provideInputAnswers(task: ModelTask, tuple: InputTuple, valid: boolean): TaskExpectation {
  const operation = `provide-input to request ${tuple.requestId} at expected revision ${String(tuple.expectedRevision)} of a task ${task.state} at revision ${String(task.revision)}`;
  const request = task.inputRequests.find((candidate) => candidate.requestId === tuple.requestId);
  if (request === undefined)
    return {
      operation: `${operation} (a request ID the task never issued)`,
      requirements: ['interactive-input.unknown-request-not-found'],
      interpretations: ['interp-37'],
      alternatives: refusal(task, 'item-not-found'),
    };
  const { disposition } = request;
  if (disposition.kind === 'answered') {
    const identical =
      disposition.tuple.expectedRevision === tuple.expectedRevision &&
      disposition.tuple.canonicalInput === tuple.canonicalInput;
    return identical
      ? {
          operation: `${operation} (an identical replay of the input accepted at ${String(disposition.revision)})`,
          requirements: ['interactive-input.identical-replay'],
          interpretations: ['interp-37'],
          alternatives: [{ answer: { kind: 'input-accepted', revision: disposition.revision }, next: task }],
        }
      : {
          operation: `${operation} (another tuple than the input accepted at ${String(disposition.revision)})`,
          requirements: ['interactive-input.different-tuple-conflict'],
          interpretations: ['interp-37'],
          alternatives: refusal(task, 'conflict'),
        };
  }
  if (disposition.kind === 'ended' || task.state !== 'input_required') {
    // Expired, superseded, or overtaken by cancellation or settlement: a conflict, never
    // item-not-found; invalid input there may also get not-acceptable (interp-37).
    return {
      operation: `${operation} (the request is no longer pending)`,
      requirements: ['interactive-input.late-answer-conflict'],
      interpretations: ['interp-35', 'interp-37'],
      alternatives: valid ? refusal(task, 'conflict') : refusal(task, 'conflict', 'not-acceptable'),
    };
  }
  const accepted = (): TaskAlternative => {
    const next = transition(task, 'running');
    const revision = next.revision;
    return {
      answer: { kind: 'input-accepted', revision },
      next: {
        ...next,
        inputRequests: task.inputRequests.map((candidate) =>
          candidate.requestId === tuple.requestId
            ? { ...candidate, disposition: { kind: 'answered', tuple, revision } }
            : candidate,
        ),
      },
    };
  };
  const decided = byRevision(
    task,
    tuple.expectedRevision,
    'interactive-input.stale-revision-conflict',
    accepted,
  );
  if (valid) return { operation, ...decided };
  // Invalid input: not-acceptable at the current revision; stale as well, either (interp-37).
  const current = revisionStanding(task, tuple.expectedRevision) === 'current';
  return {
    operation: `${operation} (input the request's schema refuses)`,
    requirements: ['interactive-input.schema-invalid-not-acceptable'],
    interpretations: ['interp-36', 'interp-37'],
    alternatives: [
      ...refusal(task, 'not-acceptable'),
      ...(current ? [] : decided.alternatives.filter((alternative) => alternative.answer.kind === 'error')),
    ],
  };
}

/** The answer to <task-state/> by the task's own caller: its state and revision now. */
export function taskStateAnswer(task: ModelTask): TaskExpectation {
  const pending = task.inputRequests.find((request) => request.disposition.kind === 'pending');
  return {
    operation: `task-state of a task ${task.state} at revision ${String(task.revision)}`,
    requirements: ['task-recovery.state-contents'],
    interpretations: [],
    alternatives: [
      {
        answer: {
          kind: 'task-state',
          state: task.state,
          revision: task.revision,
          ...(task.state === 'input_required' && pending !== undefined
            ? { pendingInput: pending.requestId }
            : {}),
        },
        next: task,
      },
    ],
  };
}

/** The answer to <task-result/> by the task's own caller (interp-39). */
export function taskResultAnswer(task: ModelTask): TaskExpectation {
  const operation = `task-result of a task ${task.state} at revision ${String(task.revision)}`;
  if (!isTerminal(task.state))
    return {
      operation,
      requirements: ['task-recovery.result-only-terminal'],
      interpretations: ['interp-39'],
      alternatives: refusal(task, 'unexpected-request'),
    };
  return {
    operation,
    requirements: ['task-recovery.result-availability'],
    interpretations: ['interp-39'],
    alternatives: [
      { answer: { kind: 'task-result', state: task.state, revision: task.revision }, next: task },
    ],
  };
}

/** Whether the task still counts against its caller's task capacity: every non-terminal state does. */
export function holdsCapacity(task: ModelTask): boolean {
  return !isTerminal(task.state);
}
