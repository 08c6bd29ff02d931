/**
 * The task-lifecycle model against the rules it encodes: revisions in both directions for cancel
 * and provide-input, replays recognised before every other check, conflicts for other tuples,
 * terminal immutability, and a random walk that never leaves the permitted transitions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTransition, isTerminal, TASK_STATES } from '../../protocol/task-states.ts';
import {
  admitted,
  applyEvent,
  cancelAnswers,
  holdsCapacity,
  LifecycleViolation,
  progressed,
  provideInputAnswers,
  taskResultAnswer,
  taskStateAnswer,
  transition,
  type TaskExpectation,
} from './tasks.ts';

function answers(expected: TaskExpectation): string[] {
  return expected.alternatives
    .map(({ answer }) =>
      answer.kind === 'error'
        ? answer.condition
        : `${answer.kind}@${String('revision' in answer ? answer.revision : '')}`,
    )
    .toSorted();
}

const running = transition(admitted(), 'running');
const asking = transition(running, 'input_required', 'in-1');

describe('cancel', () => {
  it('accepts only the current revision after a transition, either after progress, never ahead', () => {
    expect(answers(cancelAnswers(running, { expectedRevision: 1 }))).toEqual(['cancel-accepted@2']);
    expect(answers(cancelAnswers(running, { expectedRevision: 0 }))).toEqual(['conflict']);
    expect(answers(cancelAnswers(running, { expectedRevision: 2 }))).toEqual(['bad-request', 'conflict']);
    const progressedTask = progressed(running);
    expect(answers(cancelAnswers(progressedTask, { expectedRevision: 1 }))).toEqual([
      'cancel-accepted@3',
      'conflict',
    ]);
  });

  it('replays an identical tuple before any other check, even after settlement; another tuple conflicts', () => {
    const accepted = cancelAnswers(running, { expectedRevision: 1, reason: 'r' }).alternatives[0]?.next;
    if (accepted === undefined) throw new Error('no acceptance');
    expect(accepted.state).toBe('cancelling');
    const settled = transition(accepted, 'cancelled');
    for (const task of [accepted, settled]) {
      expect(answers(cancelAnswers(task, { expectedRevision: 1, reason: 'r' }))).toEqual([
        'cancel-accepted@2',
      ]);
      expect(answers(cancelAnswers(task, { expectedRevision: 1 }))).toEqual(['conflict']);
      expect(answers(cancelAnswers(task, { expectedRevision: task.revision, reason: 'r' }))).toEqual([
        'conflict',
      ]);
    }
  });

  it('refuses a settled task never cancelled with conflict, at any revision', () => {
    const done = transition(running, 'completed');
    for (const expectedRevision of [0, 1, 2, 3])
      expect(answers(cancelAnswers(done, { expectedRevision }))).toEqual(['conflict']);
  });
});

describe('provide-input', () => {
  const tuple = { requestId: 'in-1', expectedRevision: 2, canonicalInput: '{"a":1}' };
  it('accepts the current revision and moves to running; stale and ahead as interp-36 says', () => {
    const expected = provideInputAnswers(asking, tuple, true);
    expect(answers(expected)).toEqual(['input-accepted@3']);
    expect(expected.alternatives[0]?.next.state).toBe('running');
    expect(answers(provideInputAnswers(asking, { ...tuple, expectedRevision: 1 }, true))).toEqual([
      'conflict',
    ]);
    expect(answers(provideInputAnswers(asking, { ...tuple, expectedRevision: 3 }, true))).toEqual([
      'bad-request',
      'conflict',
    ]);
    expect(answers(provideInputAnswers(asking, { ...tuple, requestId: 'other' }, true))).toEqual([
      'item-not-found',
    ]);
    expect(answers(provideInputAnswers(asking, tuple, false))).toEqual(['not-acceptable']);
    expect(answers(provideInputAnswers(asking, { ...tuple, expectedRevision: 1 }, false))).toEqual([
      'conflict',
      'not-acceptable',
    ]);
  });

  it('replays the identical answer after later transitions and settlement; another tuple conflicts', () => {
    const answered = provideInputAnswers(asking, tuple, true).alternatives[0]?.next;
    if (answered === undefined) throw new Error('no acceptance');
    for (const task of [answered, transition(answered, 'completed')]) {
      expect(answers(provideInputAnswers(task, tuple, true))).toEqual(['input-accepted@3']);
      expect(answers(provideInputAnswers(task, { ...tuple, canonicalInput: '{"a":2}' }, true))).toEqual([
        'conflict',
      ]);
      expect(answers(provideInputAnswers(task, { ...tuple, expectedRevision: task.revision }, true))).toEqual(
        ['conflict'],
      );
    }
  });

  it('answers a request that ended unanswered with conflict, never item-not-found', () => {
    const reissued = transition(asking, 'input_required', 'in-2');
    expect(answers(provideInputAnswers(reissued, { ...tuple, expectedRevision: 3 }, true))).toEqual([
      'conflict',
    ]);
    const cancelling = transition(asking, 'cancelling');
    expect(answers(provideInputAnswers(cancelling, { ...tuple, expectedRevision: 3 }, true))).toEqual([
      'conflict',
    ]);
  });
});

describe('recovery and capacity', () => {
  it('gives task-result only for a terminal task, and capacity is held until then', () => {
    expect(answers(taskResultAnswer(running))).toEqual(['unexpected-request']);
    const cancelling = transition(running, 'cancelling');
    expect(holdsCapacity(cancelling)).toBe(true);
    const failed = transition(cancelling, 'failed');
    expect(holdsCapacity(failed)).toBe(false);
    expect(answers(taskResultAnswer(failed))).toEqual(['task-result@3']);
    expect(taskStateAnswer(asking).alternatives[0]?.answer).toEqual({
      kind: 'task-state',
      state: 'input_required',
      revision: 2,
      pendingInput: 'in-1',
    });
  });

  it('refuses events off the next revision, after a terminal state, or outside the table', () => {
    expect(() => applyEvent(running, { type: 'progress', revision: 3 })).toThrow(LifecycleViolation);
    expect(() => applyEvent(transition(running, 'completed'), { type: 'progress', revision: 3 })).toThrow(
      /terminal/,
    );
    expect(() => transition(transition(running, 'cancelling'), 'running')).toThrow(/not permitted/);
    const cancelAccepted = cancelAnswers(running, { expectedRevision: 1 }).alternatives[0]?.next;
    if (cancelAccepted === undefined) throw new Error('no acceptance');
    expect(applyEvent(cancelAccepted, { type: 'status', state: 'cancelling', revision: 2 })).toBe(
      cancelAccepted,
    );
  });

  it('keeps every random walk on permitted transitions with revisions one apart', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...TASK_STATES, 'progress' as const), { maxLength: 12 }),
        (moves) => {
          let task = admitted();
          for (const move of moves) {
            const before = task;
            try {
              task =
                move === 'progress'
                  ? progressed(task)
                  : transition(task, move, `in-${String(task.revision)}`);
            } catch (problem) {
              expect(problem).toBeInstanceOf(LifecycleViolation);
              const allowed =
                move === 'progress'
                  ? !isTerminal(before.state)
                  : findTransition(before.state, move) !== undefined ||
                    (before.state === 'input_required' && move === 'input_required');
              expect(allowed).toBe(false);
              continue;
            }
            expect(task.revision).toBe(before.revision + 1);
          }
        },
      ),
    );
  });
});
