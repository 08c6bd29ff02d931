/**
 * The task state machine as data (#task-states): states, terminal states, the permitted
 * transitions and the one lifecycle event each committed transition emits (#events).
 * Progress updates are not transitions but also raise the revision by one.
 */

export const TASK_STATES = [
  'accepted',
  'running',
  'input_required',
  'cancelling',
  'cancelled',
  'failed',
  'completed',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_STATES = ['cancelled', 'failed', 'completed'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];
export type NonTerminalState = Exclude<TaskState, TerminalState>;
export const NON_TERMINAL_STATES: readonly NonTerminalState[] = [
  'accepted',
  'running',
  'input_required',
  'cancelling',
];

export const EVENT_TYPES = [
  'status',
  'progress',
  'input_required',
  'completed',
  'failed',
  'cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface TransitionRule {
  readonly from: readonly NonTerminalState[];
  readonly to: TaskState;
  /** What authorizes the transition, in our words. */
  readonly action: string;
  readonly event: EventType;
}

/** The normative transition table; anything absent here is forbidden (terminal states never move). */
export const TRANSITIONS: readonly TransitionRule[] = [
  { from: ['accepted'], to: 'running', action: 'the target starts execution', event: 'status' },
  {
    from: ['accepted', 'running'],
    to: 'input_required',
    action: 'the target commits one pending input request',
    event: 'input_required',
  },
  {
    from: ['input_required'],
    to: 'running',
    action: 'the target accepts valid caller input',
    event: 'status',
  },
  {
    from: NON_TERMINAL_STATES.filter((s) => s !== 'cancelling'),
    to: 'cancelling',
    action: 'the target accepts an authorized cancellation',
    event: 'status',
  },
  {
    from: NON_TERMINAL_STATES,
    to: 'completed',
    action: 'the target commits a successful result',
    event: 'completed',
  },
  {
    from: NON_TERMINAL_STATES,
    to: 'failed',
    action: 'the target commits a failure or deadline expiry',
    event: 'failed',
  },
  {
    from: NON_TERMINAL_STATES,
    to: 'cancelled',
    action: 'the target confirms cancellation',
    event: 'cancelled',
  },
];

export function isTaskState(value: string): value is TaskState {
  return (TASK_STATES as readonly string[]).includes(value);
}

export function isTerminal(state: TaskState): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The rule permitting from → to, or undefined when the spec forbids that transition. */
export function findTransition(from: TaskState, to: TaskState): TransitionRule | undefined {
  if (isTerminal(from)) return undefined;
  return TRANSITIONS.find((rule) => rule.to === to && rule.from.includes(from));
}

/** The event a committed transition emits; throws for a forbidden transition. */
export function transitionEvent(from: TaskState, to: TaskState): EventType {
  const rule = findTransition(from, to);
  if (rule === undefined) throw new RangeError(`transition ${from} → ${to} is not permitted (#task-states)`);
  return rule.event;
}

/** Progress may be reported, and raises the revision, only while the task is non-terminal. */
export function progressAllowed(state: TaskState): boolean {
  return !isTerminal(state);
}

/** The terminal state a terminal event type settles, for matching events with task-result. */
export function terminalStateOfEvent(type: EventType): TerminalState | undefined {
  return (TERMINAL_STATES as readonly string[]).includes(type) ? (type as TerminalState) : undefined;
}
