/**
 * What a case throws to end with something other than "passed". A case never returns a
 * verdict: it runs to the end (passed) or throws one of these. Anything else it throws (a
 * timeout, a disconnect, a bug in the case) is a failure of the case, reported with its
 * message, so nothing unexpected can turn into a pass.
 */
import type { RequirementId } from '../registry/requirement-ids.ts';

/** The SUT did not do what a requirement demands: the case fails. */
export class RequirementViolation extends Error {
  override readonly name = 'RequirementViolation';
  /** Registry ID of the requirement that was violated. */
  readonly requirement: RequirementId;
  /** What the requirement demands, in our words or as the exact stanza expected. */
  readonly expected: string;
  /** What came back: the stanza as received, or a description of it. */
  readonly received: string;

  constructor(requirement: RequirementId, expected: string, received: string, summary?: string) {
    super(summary ?? `${requirement}: expected ${expected}`);
    this.requirement = requirement;
    this.expected = expected;
    this.received = received;
  }
}

/** The case could not decide (e.g. the federation misbehaved, not the SUT): earl:cantTell. */
export class CannotTell extends Error {
  override readonly name: string = 'CannotTell';
}

/**
 * The case does not apply to this SUT (a feature it does not advertise, a fixture its
 * fixtures mode cannot provide): earl:inapplicable. Never thrown for something a claimed
 * profile makes mandatory: that is a violation.
 */
export class NotApplicable extends Error {
  override readonly name = 'NotApplicable';
}

/**
 * The case needs a fixture or a precondition this run does not have (the fixture world, a
 * gateway the harness can restart, a documented limit…). It is earl:cantTell, never
 * inapplicable: a claimed profile whose MUST cases cannot run is INCOMPLETE, not passed on
 * fewer cases. The message names what is missing and how to provide it.
 */
export class MissingFixture extends CannotTell {
  override readonly name = 'MissingFixture';
}
