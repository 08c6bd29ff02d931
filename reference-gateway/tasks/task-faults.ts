/**
 * The IQ errors task operations answer (#errors, interp-42 for the types). Shared
 * frozen objects, as in discovery: nonexistent, expired, unauthorized and cross-tenant tasks
 * return the very same fault object through the same code path (#task-recovery), and a fault
 * never carries text or the request's JSON (#errors: no reflection of attacker input).
 */
import { FAULT, type StanzaFault } from '../discovery/faults.ts';

export const TASK_FAULT = {
  itemNotFound: FAULT.itemNotFound,
  badRequest: FAULT.badRequest,
  conflict: FAULT.conflict,
  serviceUnavailable: FAULT.serviceUnavailable,
  notAcceptable: Object.freeze({ condition: 'not-acceptable', type: 'modify' }),
  resourceConstraint: Object.freeze({ condition: 'resource-constraint', type: 'wait' }),
  unexpectedRequest: Object.freeze({ condition: 'unexpected-request', type: 'wait' }),
  forbidden: Object.freeze({ condition: 'forbidden', type: 'auth' }),
} as const satisfies Record<string, StanzaFault>;

export { answer, refuse, type Outcome, type StanzaFault } from '../discovery/faults.ts';
