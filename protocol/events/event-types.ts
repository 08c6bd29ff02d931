/**
 * Lifecycle event types (#events) and the payload a terminal task's <task-result/> carries:
 * "the same object as the corresponding terminal event payload" (#event-json-schemas,
 * interp-39: for every terminal state, not only completed).
 */
import { isTerminal, type TaskState } from '../task-states.ts';

export { EVENT_TYPES, isEventType, type EventType } from '../task-states.ts';

export type TerminalEventType = 'completed' | 'failed' | 'cancelled';

/** The event type whose payload schema a task-result in `state` follows; undefined while non-terminal. */
export function terminalPayloadType(state: TaskState): TerminalEventType | undefined {
  return isTerminal(state) ? state : undefined;
}
