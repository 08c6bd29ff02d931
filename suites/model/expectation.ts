/**
 * What the model says about one observable operation: the set of answers the spec accepts,
 * never a single guessed one. Each alternative passes outright or only with a warning (a
 * SHOULD-level or interpretation WARN, interp legend); any answer outside the set fails the
 * requirements named. Where the spec leaves a choice open the set has several members and the
 * expectation cites the interp-NN entry that reads it (docs/interpretations.md).
 *
 * Hiding is a relation between answers, not a property of one: an expectation marked
 * `sameAsNonexistent` must get the byte-identical error (type, condition, text, children, `by`,
 * `from`) that the same principal gets for the same operation on an object that does not exist
 * (errors.not-found-equivalence, interp-19). The driver compares the two stanzas.
 */
import type { DefinedCondition, StanzaErrorType } from '../../protocol/stanza/stanza-error.ts';
import type { PageExpectation } from './paging.ts';

/** A result or error the driver can match against a real reply. */
export type ModelAnswer =
  | { readonly kind: 'error'; readonly condition: DefinedCondition }
  /** A disco#items or search page, judged with judgePage. */
  | { readonly kind: 'page'; readonly page: PageExpectation }
  | EndpointInfoAnswer
  | ToolInfoAnswer
  | { readonly kind: 'identity'; readonly type: string; readonly features: readonly string[] }
  | { readonly kind: 'manifest'; readonly version: string; readonly hash: string; readonly canonical: string }
  | {
      readonly kind: 'schema';
      readonly tool: string;
      readonly version: string;
      readonly direction: 'input' | 'output';
      readonly manifestHash: string;
      readonly schemaHash: string;
    }
  /** Durable admission: an <accepted/> result (#invocation). */
  | { readonly kind: 'accepted' }
  /** Admission followed by a `failed` event with this code and no running state (interp-30). */
  | { readonly kind: 'accepted-then-failed'; readonly code: string }
  /**
   * A successful provisioning result child: registered, active, deactivated, registration, removed.
   * A <registration/> of a hosted endpoint lists exactly `versions` (#registration-flow).
   */
  | {
      readonly kind: 'provisioned';
      readonly element: string;
      readonly versions?: readonly RegisteredVersion[];
    }
  /** A presence stanza of this type sent back to the requester (RFC 6121). */
  | { readonly kind: 'presence'; readonly types: readonly string[] }
  /** Nothing comes back (a presence or message the gateway leaves unanswered). */
  | { readonly kind: 'silence' }
  /** A message from the endpoint reaches the human. */
  | { readonly kind: 'delivered' }
  /** No message from the endpoint reaches the human. */
  | { readonly kind: 'withheld' };

/** A version as registration-status must list it: its label, whether it is active, its hash. */
export interface RegisteredVersion {
  readonly id: string;
  readonly active: boolean;
  readonly hash: string;
}

export interface EndpointInfoAnswer {
  readonly kind: 'endpoint-info';
  readonly jid: string;
  /** The form's `version` and manifest hash identify the active manifest (endpoint-info.required-fields). */
  readonly version: string;
  readonly manifestHash: string;
  /** server_name should be agent.name and server_title the title or that name (WARN, interp-21). */
  readonly serverName: string;
  readonly serverTitle: string;
  readonly description?: string;
}

export interface ToolInfoAnswer {
  readonly kind: 'tool-info';
  readonly name: string;
  readonly apiVersion: string;
  readonly inputSchemaHash: string;
  /** Present fields must equal these; a field the manifest lacks must be absent (interp-08). */
  readonly outputSchemaHash?: string;
  readonly title?: string;
  readonly description?: string;
  readonly hints: {
    readonly readOnly?: boolean;
    readonly destructive?: boolean;
    readonly idempotent?: boolean;
    readonly openWorld?: boolean;
  };
}

export interface Alternative {
  readonly answer: ModelAnswer;
  /** 'warn': permitted, but reported (and failed under --strict). */
  readonly verdict: 'pass' | 'warn';
  /** Why a warn alternative warns, or which reading admits it. */
  readonly note?: string;
}

export interface Expectation {
  /** The operation, in words a failure message can print. */
  readonly operation: string;
  /** Registry IDs (suites/registry/requirements.json) an answer outside the set violates. */
  readonly requirements: readonly string[];
  /** interp-NN entries that make the set wider than one answer. */
  readonly interpretations: readonly string[];
  readonly alternatives: readonly Alternative[];
  /** The answer must be byte-identical to the one for a nonexistent object (interp-19). */
  readonly sameAsNonexistent: boolean;
  /**
   * True when the requester is not authorized for the object: a refusal that a rate limit or a
   * capacity bound may never replace (interp-42: an unauthorized requester never gets
   * resource-constraint).
   */
  readonly unauthorized: boolean;
}

export function pass(answer: ModelAnswer, note?: string): Alternative {
  return note === undefined ? { answer, verdict: 'pass' } : { answer, verdict: 'pass', note };
}

export function warn(answer: ModelAnswer, note: string): Alternative {
  return { answer, verdict: 'warn', note };
}

export function error(condition: DefinedCondition): ModelAnswer {
  return { kind: 'error', condition };
}

interface ExpectationParts {
  readonly operation: string;
  readonly requirements: readonly string[];
  readonly interpretations?: readonly string[];
  readonly alternatives: readonly Alternative[];
  readonly sameAsNonexistent?: boolean;
  readonly unauthorized?: boolean;
}

export function expectation(parts: ExpectationParts): Expectation {
  return {
    operation: parts.operation,
    requirements: parts.requirements,
    interpretations: parts.interpretations ?? [],
    alternatives: parts.alternatives,
    sameAsNonexistent: parts.sameAsNonexistent ?? false,
    unauthorized: parts.unauthorized ?? false,
  };
}

/**
 * The one refusal for an object that is nonexistent or not usable by this requester for this
 * operation: item-not-found, identical in both cases (#errors, errors.not-found-equivalence).
 */
export function notFound(
  operation: string,
  requirements: readonly string[],
  unauthorized = true,
): Expectation {
  return expectation({
    operation,
    requirements: [...requirements, 'errors.not-found-equivalence'],
    interpretations: ['interp-19'],
    alternatives: [pass(error('item-not-found'))],
    sameAsNonexistent: true,
    unauthorized,
  });
}

/** Error types RFC 6120 gives each condition (interp-42); the first is the expected one, the rest pass too. */
export const ERROR_TYPES: Readonly<Partial<Record<DefinedCondition, readonly StanzaErrorType[]>>> = {
  'bad-request': ['modify'],
  'not-acceptable': ['modify'],
  'jid-malformed': ['modify'],
  conflict: ['cancel'],
  'item-not-found': ['cancel'],
  'not-allowed': ['cancel'],
  'service-unavailable': ['cancel', 'wait'],
  forbidden: ['auth'],
  'resource-constraint': ['wait'],
  'unexpected-request': ['wait', 'modify'],
  'feature-not-implemented': ['cancel', 'modify'],
};

/** The conditions an expectation accepts, for messages and for quick matching. */
export function acceptedConditions(expected: Expectation): DefinedCondition[] {
  return expected.alternatives.flatMap((alternative) =>
    alternative.answer.kind === 'error' ? [alternative.answer.condition] : [],
  );
}

/** The verdict an error with this condition gets: the best alternative naming it, or 'fail'. */
export function verdictOfError(expected: Expectation, condition: DefinedCondition): 'pass' | 'warn' | 'fail' {
  const matching = expected.alternatives.filter(
    (alternative) => alternative.answer.kind === 'error' && alternative.answer.condition === condition,
  );
  if (matching.some((alternative) => alternative.verdict === 'pass')) return 'pass';
  return matching.length > 0 ? 'warn' : 'fail';
}
