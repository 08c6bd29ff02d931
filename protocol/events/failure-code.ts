/**
 * Task failure codes (#errors, #registrar-failure-codes): one of the reserved unqualified codes,
 * or a deployment-defined code that is namespace-qualified. The schema only fixes the alphabet
 * `[A-Za-z0-9_.:-]{1,128}`.
 *
 * Our test for "namespace-qualified": the code contains a `:` and no colon-separated segment is
 * empty, so there is a non-empty qualifier before the last colon and a non-empty name after it.
 * That admits the spec's reverse-DNS form (`com.example.weather:quota-exceeded`) and URN-style
 * qualifiers (`urn:example:weather:quota-exceeded`) without guessing which namespace styles a
 * deployment may use; a stricter test (say, requiring a dot in the qualifier) would fail codes
 * the spec does not forbid. Reserved codes are compared exactly, so `Unavailable` is neither.
 */
import { RESERVED_FAILURE_CODES } from '../namespaces.ts';

export type FailureCodeViolation = 'unqualified' | 'empty-segment';

export function isReservedFailureCode(code: string): boolean {
  return (RESERVED_FAILURE_CODES as readonly string[]).includes(code);
}

/** Why a failure code is not allowed, or undefined when it is. */
export function failureCodeViolation(code: string): FailureCodeViolation | undefined {
  if (isReservedFailureCode(code)) return undefined;
  const segments = code.split(':');
  if (segments.length < 2) return 'unqualified';
  if (segments.some((segment) => segment === '')) return 'empty-segment';
  return undefined;
}
