/**
 * Rate limits judged by the spec model (suites/model/metered-requests.ts, limits.ts): every
 * surface whose per-sender bucket the SUT file documents, request by request against what the
 * gateway had served so far. The driver is ../support/model-driver/limit-checks.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkRateLimits } from '../support/model-driver/limit-checks.ts';

export const modelCases: readonly CaseDeclaration<'security'>[] = [
  {
    id: 'security.model-rate-limits',
    requirements: [
      'security.rate-limits',
      'errors.not-found-equivalence',
      'json-encoding.authorize-before-limits',
    ],
    profiles: ['core-directory', 'task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-42'],
    statement:
      'On every surface whose per-sender rate the SUT file documents, a burst, an overload at four times the rate and the sustained rate at half of it are each served or refused with resource-constraint exactly as the documented token bucket allows given what was served before; an unauthorized request sent over the limit still gets the not-found answer a nonexistent object gets.',
    run: checkRateLimits,
  },
];
