export {
  EVENT_TYPES,
  isEventType,
  terminalPayloadType,
  type EventType,
  type TerminalEventType,
} from './event-types.ts';
export { failureCodeViolation, isReservedFailureCode, type FailureCodeViolation } from './failure-code.ts';
export type {
  CancelledPayload,
  CompletedPayload,
  EventPayload,
  EventPayloads,
  FailedPayload,
  InputRequiredPayload,
  ProgressPayload,
  StatusPayload,
  TaskFailure,
  ToolResult,
} from './payload-types.ts';
export { validateEventPayload, type EventValidation, type EventViolation } from './validate-event.ts';
