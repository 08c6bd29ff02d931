/**
 * Rate limits judged by the spec model (suites/model/metered-requests.ts, limits.ts): every
 * surface whose per-sender bucket the SUT file documents, request by request against what the
 * gateway had served so far; registration (a self-registrant's own JID) in a case of its own,
 * counted toward Self Registration. The driver is ../support/model-driver/limit-checks.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { FEATURE } from '../../../protocol/namespaces.ts';
import { checkRateLimits, REQUEST_SURFACES } from '../support/model-driver/limit-checks.ts';

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
      'On every surface whose per-sender rate the SUT file documents, a burst, an overload at four times the rate and the sustained rate at half of it are each served or refused with resource-constraint as the documented token bucket allows given what was served before (refused sooner is fine, served past it is not), and once the bucket has been idle for a full refill a request is served on every surface; an unauthorized request sent over the limit still gets the not-found answer a nonexistent object gets.',
    run: (context) => checkRateLimits(context, REQUEST_SURFACES),
  },
  {
    id: 'security.model-registration-rate-limit',
    requirements: [
      'security.rate-limits',
      'errors.not-found-equivalence',
      'json-encoding.authorize-before-limits',
    ],
    profiles: ['self-registration'],
    level: 'MUST',
    features: [FEATURE.selfRegister],
    interpretations: ['interp-19', 'interp-42'],
    statement:
      'A self-registrant registering its own bare JID past the registration rate the SUT file documents (a burst, an overload at four times the rate, the sustained rate at half of it) is served or refused with resource-constraint as the documented token bucket allows (refused sooner is fine, served past it is not), and served once the bucket has been idle for a full refill; a manifest claiming a registered endpoint’s JID, sent over the limit, keeps the refusal a never-registered JID gets, byte for byte.',
    run: (context) => checkRateLimits(context, ['registration']),
  },
];
