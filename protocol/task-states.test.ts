import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  findTransition,
  isEventType,
  isTaskState,
  isTerminal,
  progressAllowed,
  TASK_STATES,
  terminalStateOfEvent,
  transitionEvent,
  type TaskState,
} from './task-states.ts';

// The permitted pairs written out by hand from #task-states, independent of the TRANSITIONS table.
const PERMITTED: Record<TaskState, TaskState[]> = {
  accepted: ['running', 'input_required', 'cancelling', 'cancelled', 'failed', 'completed'],
  running: ['input_required', 'cancelling', 'cancelled', 'failed', 'completed'],
  input_required: ['running', 'cancelling', 'cancelled', 'failed', 'completed'],
  cancelling: ['cancelled', 'failed', 'completed'],
  cancelled: [],
  failed: [],
  completed: [],
};

describe('task state machine (#task-states)', () => {
  it.each(TASK_STATES.flatMap((from) => TASK_STATES.map((to) => [from, to] as const)))(
    '%s → %s is permitted exactly when the spec lists it',
    (from, to) => {
      expect(findTransition(from, to) !== undefined).toBe(PERMITTED[from].includes(to));
    },
  );

  it('never re-enters input_required directly (interp-35)', () => {
    expect(findTransition('input_required', 'input_required')).toBeUndefined();
  });

  it('names the event each transition emits', () => {
    expect(transitionEvent('accepted', 'running')).toBe('status');
    expect(transitionEvent('input_required', 'running')).toBe('status');
    expect(transitionEvent('running', 'cancelling')).toBe('status');
    expect(transitionEvent('accepted', 'input_required')).toBe('input_required');
    expect(transitionEvent('cancelling', 'completed')).toBe('completed');
    expect(transitionEvent('running', 'failed')).toBe('failed');
    expect(transitionEvent('input_required', 'cancelled')).toBe('cancelled');
    expect(() => transitionEvent('completed', 'running')).toThrow(/not permitted/);
  });

  it('knows terminal states, progress and event types', () => {
    expect(TASK_STATES.filter(isTerminal)).toEqual(['cancelled', 'failed', 'completed']);
    expect(progressAllowed('cancelling')).toBe(true);
    expect(progressAllowed('completed')).toBe(false);
    expect(isTaskState('working')).toBe(false);
    expect(isEventType('progress')).toBe(true);
    expect(isEventType('accepted')).toBe(false);
    expect(EVENT_TYPES.map(terminalStateOfEvent)).toEqual([
      undefined,
      undefined,
      undefined,
      'completed',
      'failed',
      'cancelled',
    ]);
  });
});
