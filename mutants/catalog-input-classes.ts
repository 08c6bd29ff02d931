/**
 * Bugs at the input classes issue 22/25 found no case exercising (suites/registry/input-classes.json):
 * a bound taken as exclusive, a principal or a format a gateway forgets, a terminal path that
 * does not do what the others do. Same shape as catalog.ts, which spreads this list into MUTANTS.
 */
import type { MutantRecord } from './mutant.ts';

export const INPUT_CLASS_MUTANTS: MutantRecord[] = [
  {
    name: 'json-limits-exclusive',
    change:
      'every documented JSON limit of a manifest is taken as exclusive: a manifest exactly at a documented bound is refused with resource-constraint',
    bugClass: 'input-validation',
    requirements: ['json-encoding.documented-limits'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['json-encoding.at-limit-'],
  },
  {
    name: 'invoke-limits-before-authorization',
    change:
      'the arguments are parsed under the JSON limits before the caller is authorized: a stranger sending over-limit arguments learns from resource-constraint that the endpoint and tool exist',
    bugClass: 'access-control',
    requirements: ['json-encoding.authorize-before-limits'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.authorize-before-limits'],
  },
  {
    name: 'input-limits-before-authorization',
    change:
      'an answer to an input request is parsed under the JSON limits before the task is looked up for the sender: another account learns from resource-constraint that the task exists',
    bugClass: 'access-control',
    requirements: ['json-encoding.authorize-before-limits'],
    profile: 'interactive-tasks',
    scenario: 'bad-input',
    grep: ['json-encoding.authorize-before-limits'],
  },
  {
    name: 'deadline-offset-ignored',
    change:
      "a deadline's wall-clock time is read as UTC, its offset dropped: a deadline written at -07:00 lands seven hours early, one at +05:30 five and a half hours late",
    bugClass: 'deadline',
    requirements: ['cancellation.exact-instant-comparison', 'cancellation.deadline-format'],
    profile: 'task-execution',
    scenario: 'timing',
    grep: ['cancellation.deadline-negative-offset-taken', 'cancellation.deadline-utc-designator-taken'],
  },
  {
    name: 'deadline-zulu-refused',
    change:
      'a deadline validator that wants a numeric offset refuses a deadline written with Z (bad-request)',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-format'],
    profile: 'task-execution',
    scenario: 'timing',
    grep: ['cancellation.deadline-utc-designator-taken', 'cancellation.deadline-negative-offset-taken'],
  },
  {
    name: 'deadline-timer-spares-input-wait',
    change:
      'the deadline timer leaves a task waiting for input alone (nothing runs, so nothing to stop): it stays input_required past its deadline',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'interactive-tasks',
    scenario: 'timing',
    grep: ['cancellation.deadline-while-waiting-for-input'],
  },
  {
    name: 'deadline-timer-spares-cancelling',
    change:
      'the deadline timer leaves a cancelling task alone (its cancellation will settle it): a tool that ignores the cancellation keeps it cancelling past its deadline',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'interactive-tasks',
    scenario: 'timing',
    grep: ['cancellation.deadline-while-cancelling'],
  },
  {
    name: 'failed-revision-not-stored',
    change:
      'a failure commits its event at revision + 1 but leaves the task row at the old revision: task-state and task-result report the revision before the failure',
    bugClass: 'state-machine',
    requirements: ['events.revision-increments'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['events.revision-on-failure'],
  },
  {
    name: 'admin-authority-per-session',
    change:
      "administrative authority is pinned to the full JID of the administrator's first session: another resource of the same account is refused",
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.admin-authority-by-bare-jid'],
  },
  {
    name: 'admin-check-after-effect',
    change:
      "an administrative request naming the sender's own bare JID is carried out before the authority check, which then refuses it: a self-registrant is told forbidden, yet its endpoint was deactivated or removed",
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.registrant-own-endpoint-consistent'],
  },
  {
    name: 'self-claim-localpart-only',
    change:
      "a self-registrant's claim is compared with its localpart only: registrant@server.example may register registrant@example.com",
    bugClass: 'access-control',
    requirements: ['rules.self-registration-own-jid'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['rules.self-registration-other-domain'],
  },
  {
    name: 'registration-keyed-by-written-jid',
    change:
      'registrations are keyed by agent.jid as written, not prepared: one version of one endpoint registers twice under two letter cases',
    bugClass: 'input-validation',
    requirements: ['registration-flow.version-immutable', 'rules.self-registration-own-jid'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['rules.self-registration-own-jid-other-case'],
  },
  {
    name: 'admin-task-authority',
    change: "the gateway's administrators may read, cancel and answer any caller's task, as operators",
    bugClass: 'access-control',
    requirements: ['task-recovery.caller-authorization'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.administrator-no-task-authority'],
  },
  {
    name: 'hash-compared-ignoring-case',
    change:
      'manifest hashes are compared case-insensitively (lower-cased base64): a pin that is another hash admits',
    bugClass: 'locale',
    requirements: ['i18n.locale-independent-matching', 'rules.version-pinning'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['i18n.hash-pin-letter-case'],
  },
  {
    name: 'replay-lookup-ignoring-case',
    change:
      'the replay record is looked up with a case-insensitive collation: a request ID differing only in letter case meets the other request’s record (conflict)',
    bugClass: 'locale',
    requirements: ['i18n.locale-independent-matching'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['i18n.request-and-task-id-letter-case'],
  },
  {
    name: 'task-lookup-ignoring-case',
    change:
      'tasks are looked up with a case-insensitive collation: a task ID differing only in letter case finds the task',
    bugClass: 'locale',
    requirements: ['i18n.locale-independent-matching'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['i18n.request-and-task-id-letter-case'],
  },
  {
    name: 'capacity-freed-on-completion-only',
    change:
      "a caller's task slot is given back only when a task completes: failed, cancelled and expired tasks keep counting against its capacity",
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.task-capacity-freed-by-failure'],
  },
  {
    name: 'capacity-leaks-on-completion',
    change:
      'the slot of a completed task is not given back (only failures and cancellations free one): a caller whose tasks succeed is locked out at its capacity',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.task-capacity-freed-by-completion'],
  },
  {
    name: 'capacity-leaks-on-cancellation',
    change:
      'the slot of a cancelled task is not given back: a caller that cancels is locked out at its capacity',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.task-capacity-freed-by-cancellation'],
  },
  {
    name: 'capacity-leaks-on-expiry',
    change:
      'the slot of a task settled by its deadline is not given back (the expiry path skips the release): expired tasks count against the capacity for good',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.task-capacity-freed-by-deadline'],
  },
  {
    name: 'stale-cancel-revision-echoed',
    change:
      "a cancellation naming any revision up to the current one is taken, and its acceptance reports the caller's expected revision plus one rather than the revision the cancelling status was committed at",
    bugClass: 'state-machine',
    requirements: ['cancellation.stale-revision-conflict', 'events.revision-increments'],
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['cancellation.revision-behind-by-progress'],
  },
  {
    name: 'input-expiry-whole-seconds',
    change:
      "an answer is checked against its request's expiresAt in whole seconds, the current time rounded up: an answer in the last second before the expiry is refused as expired",
    bugClass: 'deadline',
    requirements: ['cancellation.exact-instant-comparison'],
    profile: 'interactive-tasks',
    scenario: 'timing',
    grep: ['interactive-input.expiry-compared-as-instant'],
    // Reached when the answer 100 ms before expiresAt falls in expiresAt's second (about 9 in 10).
  },
  {
    name: 'progress-after-deadline-committed',
    change:
      'deadlines are swept 600 ms late, and progress (which changes no state) is committed without the deadline check: an update after the deadline is emitted before the task expires',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-at-commit'],
    profile: 'interactive-tasks',
    scenario: 'timing',
    grep: ['cancellation.progress-after-deadline'],
  },
  {
    name: 'input-request-after-deadline-committed',
    change:
      'deadlines are swept 600 ms late, and an input request is committed without the deadline check: a request after the deadline reaches the caller before the task expires',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-at-commit'],
    profile: 'interactive-tasks',
    scenario: 'timing',
    grep: ['cancellation.input-request-after-deadline'],
  },
];
