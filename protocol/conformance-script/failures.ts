/**
 * Every failure the conformance tools commit on their own (#errors: a stable code, a safe
 * message, a retryable flag). The suites predict these, so they are fixed: docs/
 * conformance-tools.md lists them. Reserved `internal-error` where one fits; the one
 * condition of our own is namespace-qualified (#registrar-failure-codes).
 */
import type { TaskFailure } from '../events/payload-types.ts';
import type { ArgumentProblem } from './argument-reader.ts';

/**
 * The gateway refused a result, failure, input request or confirmation the script produced
 * (an invalid payload, an outputSchema mismatch, an undeclared feature): the task still ends
 * with a terminal event (interp-40: a result the target cannot validate may end
 * failed with any code).
 */
export const REFUSAL_FAILURE: TaskFailure = Object.freeze({
  code: 'internal-error',
  message: 'The gateway refused what the tool reported.',
  retryable: false,
});

/** An input step's last request expired unanswered, and the script named no failure of its own. */
export const DEFAULT_EXPIRY_FAILURE: TaskFailure = Object.freeze({
  code: 'org.agentconf.conformance:input-expired',
  message: 'The input request expired without an answer.',
  retryable: false,
});

export const UNKNOWN_TOOL_FAILURE: TaskFailure = Object.freeze({
  code: 'internal-error',
  message: 'The conformance runtime has no tool of this name.',
  retryable: false,
});

/** Longest pointer quoted in a failure message: the caller's own member names, but bounded. */
const MAX_QUOTED_POINTER = 160;

/**
 * Arguments the gateway should have refused before admission (#invocation: the target
 * validates them against the registered schema), yet here they are: name only where.
 */
export function argumentFailure(problem: ArgumentProblem): TaskFailure {
  const where = problem.pointer === '' ? 'the root' : problem.pointer.slice(0, MAX_QUOTED_POINTER);
  return {
    code: 'internal-error',
    message: `The arguments do not match the tool's inputSchema (at ${where}).`,
    retryable: false,
  };
}
