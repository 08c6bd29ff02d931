/**
 * One mutant of the reference gateway: a realistic bug, written as a unified diff
 * (mutants/patches/<name>.patch) applied to a temporary copy of the tree
 * (harness/sut/source-variant.ts), never as a switch in the gateway.
 * It names what it breaks (registry requirement IDs), the profile that must stop passing, the
 * scenario family whose cases should catch it, and the --grep that selects those cases, so one
 * focused `agentconf run` judges it in a few seconds.
 */
import type { ProfileId } from '../protocol/profiles.ts';
import type { Scenario } from '../suites/framework/budget.ts';
import type { RequirementId } from '../suites/registry/requirement-ids.ts';
import type { GatewayVariant } from '../integration/variants/gateway-variants.ts';

/** The kinds of bug the catalog samples; the survivor areas are among them. */
export const BUG_CLASSES = [
  'error-type',
  'reply-count',
  'event-identity',
  'canonical-json',
  'rsm-validation',
  'ordering',
  'locale',
  'durability-order',
  'false-advertising',
  'rate-limit',
  'access-control',
  'predictable-id',
  'capacity',
  'timing-leak',
  'state-machine',
  'replay-identity',
  'deadline',
  'visibility',
  'input-validation',
  'retention',
  'routing',
  'schema-hash',
  'crash-recovery',
  'link-fault',
  'blocking',
] as const;

export type BugClass = (typeof BUG_CLASSES)[number];

export interface Mutant extends GatewayVariant {
  /** The bug class this mutant samples. */
  readonly bugClass: BugClass;
  /** Registry IDs of the requirements the mutant breaks (at least one, unless falseClaim). */
  readonly requirements: readonly RequirementId[];
  /**
   * Set when the bug is a claim the gateway does not back: a profile claimed without the features
   * its definition requires (#conformance, interp-43). No requirement sentence is broken, since
   * what is not advertised may go unimplemented; the preflight refutes the claim before any case.
   */
  readonly falseClaim?: true;
  /** The claimed profile that must no longer pass. */
  readonly profile: ProfileId;
  /** The scenario family whose cases should kill it (suites/framework/budget.ts). */
  readonly scenario: Scenario;
  /** The --grep patterns of the focused run: case IDs (or requirement IDs) that judge it. */
  readonly grep: readonly string[];
  /** Judge with --strict (a SHOULD-level bug: every SHOULD finding counts). */
  readonly strict?: boolean;
  /**
   * Judge with --deep: for a bug only some of a case's seeded schedules reach (a crash at one
   * kill point of five), so that the verdict does not depend on the seed.
   */
  readonly deep?: boolean;
  /**
   * Set when the mutant behaves like the reference gateway in everything the spec lets a
   * client observe: why. It is still run; surviving is then expected, being killed is an error.
   */
  readonly equivalent?: string;
  /**
   * Set when the mutant is a real bug no case catches yet: what case is missing. It is still run
   * and reported as a survivor, but does not fail the command (a tracked gap, like a baseline
   * entry); being killed is an error, so the mark goes once the case exists.
   */
  readonly knownGap?: string;
}

/** A catalog entry: the mutant without its patches, which its patch file holds (patch-files.ts). */
export type MutantRecord = Omit<Mutant, 'patches' | 'addFiles'>;
