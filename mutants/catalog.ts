/**
 * The mutant catalog (issue 15 item 1): realistic bugs of the reference gateway, one per entry,
 * each applied to a temporary copy (never a switch in the gateway). This table holds what each
 * mutant is; what it changes is its unified diff, mutants/patches/<name>.patch (patch-files.ts),
 * applied with tolerance for reformatting. Grouped by scenario family; every claimed profile and
 * every family has mutants. `npm run mutants -- --list` prints it and checks that every patch
 * still applies.
 *
 * A `grep` names the cases that should kill the mutant (case IDs or requirement IDs, as
 * `agentconf run --grep` takes them), so each focused run takes seconds.
 */
import type { Mutant, MutantRecord } from './mutant.ts';
import { withPatchFile } from './patch-files.ts';
import { RAW_INPUT_MUTANTS } from './catalog-raw-input.ts';
import { ADVERSARIAL } from './catalog-adversarial.ts';
import { WAVE22_MUTANTS } from './catalog-wave22.ts';
import { INPUT_CLASS_MUTANTS } from './catalog-input-classes.ts';

// ---------------------------------------------------------------------------------------------
// bad-input: request validation, RSM values, strict JSON, identifiers

const BAD_INPUT: MutantRecord[] = [
  {
    name: 'rsm-after-with-before-accepted',
    change: 'an RSM request with both <after/> and <before/> is paged instead of refused',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.rsm-invalid-values'],
    equivalent:
      'permitted: XEP-0059 gives <after/> with <before/> no meaning, so a page is as acceptable an answer as an error (interp-14); the suite never fails what the spec allows',
  },
  {
    name: 'rsm-index-with-uid-accepted',
    change: 'an RSM request with <index/> and a UID is paged from the UID instead of refused',
    bugClass: 'rsm-validation',
    requirements: ['list-tools.rsm-paging'],
    profile: 'tool-discovery',
    scenario: 'bad-input',
    grep: ['list-tools.rsm-invalid-values', 'list-agents.rsm-invalid-values'],
    equivalent:
      'permitted: XEP-0059 gives <index/> together with a UID no meaning, so paging from the UID is as acceptable as an error (interp-14)',
  },
  {
    name: 'rsm-max-zero-returns-items',
    change: '<max>0</max> returns a one-item page instead of <count/> only',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.max-zero'],
  },
  {
    name: 'rsm-max-not-clamped',
    change: '<max/> above the page maximum is honoured (no bound on the result count)',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.max-above-page-maximum'],
    sut: (sut) => {
      // A documented page maximum below the directory's size, so an unclamped page shows.
      sut.launch.files['gateway.json'].limits['rsmPageMax'] = 2;
      sut.limits['rsmPageMax'] = 2;
    },
  },
  {
    name: 'directory-uid-not-a-jid-throws',
    change: 'a directory RSM UID that is not a JID throws inside the pager (internal-server-error)',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.uid-not-a-jid'],
  },
  {
    name: 'rsm-index-past-end-last-page',
    change: 'an <index/> past the end of the set returns the last page instead of an empty one',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.rsm-invalid-values'],
  },
  {
    name: 'rsm-lenient-integers',
    change: 'RSM <max/> and <index/> are read leniently: "ten" is 0, "1.5" is 1, "-3" is 3',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.rsm-invalid-values'],
    strict: true,
  },
  {
    name: 'rsm-truncation-without-set',
    change: 'a request without <set/> over a set larger than a page gets the first page without a <set/>',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.without-set'],
    sut: (sut) => {
      sut.launch.files['gateway.json'].limits['rsmPageMax'] = 2;
      sut.limits['rsmPageMax'] = 2;
    },
  },
  {
    name: 'short-identifiers-accepted',
    change:
      'the identifier grammar takes 1-128 characters, so a short task ID is looked up instead of refused',
    bugClass: 'input-validation',
    requirements: ['task-recovery.malformed-id-bad-request'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['task-recovery.malformed-task-id'],
  },
  {
    name: 'version-grammar-not-checked',
    change: 'a manifest whose agent.version is outside the version grammar registers',
    bugClass: 'input-validation',
    requirements: ['namespaces.version-grammar'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['manifest.version-grammar'],
  },
  {
    name: 'json-trailing-data-accepted',
    change: 'the strict JSON parser ignores what follows the first value',
    bugClass: 'input-validation',
    requirements: ['json-encoding.single-json-value'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.trailing-data-refused'],
  },
  {
    name: 'json-duplicate-members-accepted',
    change: 'the strict JSON parser lets a duplicate member name overwrite the first (JSON.parse behaviour)',
    bugClass: 'input-validation',
    requirements: ['json-encoding.ijson-rejection'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.ijson-arguments-refused', 'json-encoding.ijson-input-refused'],
  },
  {
    name: 'json-depth-limit-doubled',
    change: 'the nesting limit is enforced at twice the documented depth',
    bugClass: 'input-validation',
    requirements: ['json-encoding.documented-limits', 'rules.resource-bounds'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['json-encoding.limit-depth'],
  },
  {
    name: 'limit-rejection-echoes-json',
    change: 'a resource-constraint error carries the rejected request payload',
    bugClass: 'input-validation',
    requirements: ['json-encoding.no-reflection'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.limit-bytes'],
  },
  {
    name: 'unhandled-iq-unanswered',
    change: 'an IQ get/set nobody handles gets no reply',
    bugClass: 'reply-count',
    requirements: ['errors.unhandled-iq-error'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['errors.unhandled-iq'],
  },
  {
    name: 'arguments-schema-not-checked',
    change: 'arguments are not validated against the pinned inputSchema before a task is created',
    bugClass: 'input-validation',
    requirements: ['rules.target-validates-arguments'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['invocation.validity-after-authorization'],
  },
  {
    name: 'input-schema-not-checked',
    change: 'an answer to an input request is not validated against the request schema',
    bugClass: 'input-validation',
    requirements: ['interactive-input.schema-invalid-not-acceptable'],
    profile: 'interactive-tasks',
    scenario: 'bad-input',
    grep: ['interactive-input.pending-answer-replay'],
  },
  {
    name: 'progress-percent-unchecked',
    change: 'progress payloads are committed without the schema check (percent outside 0-100 included)',
    bugClass: 'input-validation',
    requirements: ['events.progress-percent-range'],
    profile: 'interactive-tasks',
    scenario: 'bad-input',
    grep: ['events.progress-percent-range'],
  },
  {
    name: 'output-schema-not-checked',
    change: 'structuredContent is not validated against the outputSchema before completion',
    bugClass: 'input-validation',
    requirements: ['events.output-schema-validated'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['events.output-schema-validated'],
  },
  {
    name: 'manifest-self-jid-any',
    change: 'a local account may self-register a manifest for any JID',
    bugClass: 'access-control',
    requirements: ['rules.self-registration-own-jid'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['rules.self-registration-own-jid'],
  },
];

// ---------------------------------------------------------------------------------------------
// equivalence: hidden, nonexistent and unauthorized alike; access between principals

const EQUIVALENCE: MutantRecord[] = [
  {
    name: 'other-caller-task-forbidden',
    change: "task-state of another caller's task answers forbidden, a nonexistent one item-not-found",
    bugClass: 'access-control',
    requirements: ['task-recovery.indistinguishable-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.other-caller-like-nonexistent'],
  },
  {
    name: 'same-domain-task-access',
    change:
      'a task is accessible to every account of its caller’s domain (domain compared, not the bare JID)',
    bugClass: 'access-control',
    requirements: ['task-recovery.caller-authorization'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.other-caller'],
  },
  {
    name: 'task-access-any-endpoint',
    change: 'a task is found whichever endpoint JID the request addresses',
    bugClass: 'access-control',
    requirements: ['task-recovery.indistinguishable-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.other-caller', 'task-recovery.expired'],
    equivalent:
      'permitted: #task-recovery authorizes task operations against the caller bare JID only; answering the caller its own task at another endpoint of the same gateway tells nobody else anything, and <task-state/> names the real endpoint',
  },
  {
    name: 'expired-task-gone',
    change:
      "task-state of the caller's own task past its retain-until answers <gone/> instead of item-not-found",
    bugClass: 'retention',
    requirements: ['task-recovery.indistinguishable-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.expired-like-nonexistent'],
  },
  {
    name: 'unauthorized-invoke-forbidden',
    change: 'invoking a tool the caller may not invoke answers forbidden instead of item-not-found',
    bugClass: 'access-control',
    requirements: ['invocation.unauthorized-item-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.unauthorized-like-nonexistent'],
  },
  {
    name: 'invoke-needs-visibility',
    change:
      'invocation permission also requires visibility (a hidden endpoint cannot be invoked by a grantee)',
    bugClass: 'access-control',
    requirements: ['invocation.invoke-without-visibility'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.invoke-without-visibility'],
  },
  {
    name: 'grant-widened-to-all-endpoints',
    change:
      'a principal or domain granted visibility of some endpoints sees every endpoint that is not hidden',
    bugClass: 'visibility',
    requirements: ['list-agents.visibility-filter', 'security.federation-deny-default'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['security.deny-by-default', 'list-agents.visibility-filter-federated'],
  },
  {
    name: 'hidden-endpoints-listed',
    change: 'hidden endpoints are visible under the local defaults like any other',
    bugClass: 'visibility',
    requirements: ['list-agents.visibility-filter', 'privacy.explicit-visibility-policy'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['list-agents.visibility-filter-local', 'errors.hidden-like-nonexistent'],
  },
  {
    name: 'tool-grant-covers-endpoint',
    change:
      'an invoke grant naming some tools of an endpoint lets its holder invoke every tool of that endpoint',
    bugClass: 'access-control',
    requirements: ['invocation.unauthorized-item-not-found', 'invocation.authorize-first'],
    profile: 'task-execution',
    scenario: 'equivalence',
    // Only the model-driven case tries a tool grant on a tool it does not name (weather's
    // alerts.list for example.com, whose grant names forecast.get): a grant edge it tries first
    // on every seed.
    grep: ['invocation.model-authorization'],
  },
  {
    name: 'search-matches-description',
    change: 'a nick search also matches words of the agent description',
    bugClass: 'visibility',
    requirements: ['search.legacy-nick'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    // Only the model-driven case searches by description words (no reading of #search matches
    // them), each description-only word first on every seed.
    grep: ['search.model-search'],
  },
  {
    name: 'non-admin-administers',
    change: 'administration requests are not restricted to admins',
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.admin-authentication'],
  },
  {
    name: 'federated-self-registration',
    change: 'a federated account may self-register its own JID',
    bugClass: 'access-control',
    requirements: ['registration-flow.federation-grants-nothing'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['registration-flow.federation-grants-nothing'],
  },
  {
    name: 'item-not-found-typed-modify',
    change: "item-not-found carries type 'modify' (RFC 6120 gives 'cancel')",
    bugClass: 'error-type',
    requirements: ['errors.not-found-equivalence'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['errors.hidden-like-nonexistent'],
    strict: true,
  },
  {
    name: 'resource-constraint-typed-cancel',
    change: "resource-constraint carries type 'cancel' (interp-42: 'wait')",
    bugClass: 'error-type',
    requirements: ['json-encoding.documented-limits'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.limit-bytes'],
    strict: true,
  },
  {
    name: 'approval-required-executed',
    change: 'a tool whose manifest requires approval is executed anyway',
    bugClass: 'access-control',
    requirements: ['manifest.fail-closed-permissions'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['manifest.approval-fails-closed'],
  },
];

// ---------------------------------------------------------------------------------------------
// timing: not-found answers that take measurably different work

const TIMING: MutantRecord[] = [
  {
    name: 'other-caller-task-slow',
    change: "looking up another caller's task spins 15 ms before the same item-not-found",
    bugClass: 'timing-leak',
    requirements: ['task-recovery.timing-equivalence', 'privacy.enumeration-side-channels'],
    profile: 'task-execution',
    scenario: 'timing',
    grep: ['privacy.not-found-timing'],
    strict: true,
  },
  {
    name: 'other-caller-task-slow-2ms',
    change: "looking up another caller's task spins 2 ms before the same item-not-found",
    bugClass: 'timing-leak',
    requirements: ['task-recovery.timing-equivalence', 'privacy.enumeration-side-channels'],
    profile: 'task-execution',
    scenario: 'timing',
    grep: ['privacy.not-found-timing'],
    strict: true,
  },
  {
    name: 'hidden-endpoint-info-slow',
    change:
      'endpoint info of an endpoint hidden from the requester spins 3 ms before the same item-not-found',
    bugClass: 'timing-leak',
    requirements: ['privacy.enumeration-side-channels'],
    profile: 'core-directory',
    scenario: 'timing',
    grep: ['privacy.not-found-timing-endpoint'],
    strict: true,
  },
];

// ---------------------------------------------------------------------------------------------
// replay: request identities and the answers replays get

const REPLAY: MutantRecord[] = [
  {
    name: 'replay-ignores-arguments',
    change:
      'the invocation fingerprint leaves the arguments out: a replay with other arguments gets the first task',
    bugClass: 'replay-identity',
    requirements: ['invocation.replay-conflict'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-conflict'],
  },
  {
    name: 'replay-fresh-created',
    change: 'a replayed <accepted/> carries the time of the replay as created',
    bugClass: 'event-identity',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-same-task'],
  },
  {
    name: 'replay-record-dies-with-task',
    change: 'the replay record is kept only until retain-until, not for the replay window',
    bugClass: 'retention',
    requirements: ['invocation.replay-retention'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-outlives-retention'],
    sut: (sut) => {
      // The documented purge interval (tasks.purgeIntervalSeconds, default 300 s) made short, so
      // the record is gone by the time the case replays.
      const config = sut.launch.files['gateway.json'] as unknown as { tasks: Record<string, unknown> };
      config.tasks['purgeIntervalSeconds'] = 0.05;
    },
  },
  {
    name: 'cancel-replay-ignores-reason',
    change: 'the cancellation fingerprint leaves <reason/> out',
    bugClass: 'replay-identity',
    requirements: ['cancellation.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['cancellation.advisory-cancelled-with-replays'],
  },
  {
    name: 'cancel-replay-conflict-after-settle',
    change:
      'an identical cancellation replay after settlement gets conflict (terminal checked before the acceptance record)',
    bugClass: 'replay-identity',
    requirements: ['cancellation.identical-replay'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['cancellation.advisory-cancelled-with-replays'],
  },
  {
    name: 'input-replay-ignores-input',
    change: 'the input fingerprint leaves the input out: another answer is taken for a replay',
    bugClass: 'replay-identity',
    requirements: ['interactive-input.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.pending-answer-replay'],
  },
  {
    name: 'input-replay-conflict',
    change: 'an identical replay of an accepted answer gets conflict',
    bugClass: 'replay-identity',
    requirements: ['interactive-input.identical-replay'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.pending-answer-replay'],
  },
  {
    name: 'conflict-typed-modify',
    change: "conflict carries type 'modify' (RFC 6120 gives 'cancel')",
    bugClass: 'error-type',
    requirements: ['invocation.replay-conflict'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-conflict'],
    strict: true,
  },
  {
    name: 'admission-not-serialized',
    change: 'concurrent admissions of one request ID are not serialized per key',
    bugClass: 'replay-identity',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-same-task'],
    equivalent:
      'the group transaction re-checks the replay record (#precheck inside #commit), so the second of two concurrent admissions still answers with the first task',
  },
];

// ---------------------------------------------------------------------------------------------
// race: state checks at the commit boundary

const RACE: MutantRecord[] = [
  {
    name: 'stale-revision-cancel-accepted',
    change: 'a cancellation naming a stale expected revision is accepted',
    bugClass: 'state-machine',
    requirements: ['cancellation.stale-revision-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.stale-revision-refused'],
  },
  {
    name: 'cancel-after-terminal-acknowledged',
    change: 'a cancellation of a settled task is answered <cancel-accepted/> at its final revision',
    bugClass: 'state-machine',
    requirements: ['cancellation.settled-first-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.conflict-after-terminal'],
  },
  {
    name: 'input-revision-unchecked',
    change: 'an answer naming a stale expected revision is accepted',
    bugClass: 'state-machine',
    requirements: ['interactive-input.stale-revision-conflict', 'interactive-input.race-loser-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['interactive-input'],
  },
  {
    name: 'late-input-accepted',
    change: 'an answer after expiresAt is accepted while the expiry timer has not fired',
    bugClass: 'deadline',
    requirements: ['interactive-input.expiry-enforced'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: [
      'interactive-input.expiry-reissue-and-late-answers',
      'interactive-input.answer-after-expiry-refused',
    ],
  },
  {
    name: 'cancel-keeps-input-pending',
    change: 'an accepted cancellation does not mark the pending input request superseded',
    bugClass: 'state-machine',
    requirements: ['interactive-input.race-loser-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['interactive-input.cancellation-supersedes-input'],
    equivalent:
      'the cancelling transition clears the task’s pending input ID in the same commit, so a later answer still meets conflict at the commit boundary; the record’s status is not observable',
  },
  {
    name: 'terminal-state-mutable',
    change: 'a settled task still takes the runtime’s output: a late completion replaces cancelled',
    bugClass: 'state-machine',
    requirements: ['task-states.terminal-immutable', 'cancellation.output-after-cancelled-discarded'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.output-after-cancelled-discarded'],
  },
];

// ---------------------------------------------------------------------------------------------
// rsm-order: the defined orders of result sets

const RSM_ORDER: MutantRecord[] = [
  {
    name: 'directory-utf16-order',
    change: 'the directory sorts JIDs by UTF-16 code units instead of UTF-8 octets',
    bugClass: 'ordering',
    requirements: ['list-agents.octet-order'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.octet-order', 'list-agents.rsm-random-paths'],
  },
  {
    name: 'directory-collation-order',
    change: 'the directory sorts JIDs with localeCompare (collation, not octets)',
    bugClass: 'ordering',
    requirements: ['list-agents.octet-order'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.octet-order'],
  },
  {
    name: 'tools-utf16-order',
    change: 'tool collections sort names by UTF-16 code units instead of UTF-8 octets',
    bugClass: 'ordering',
    requirements: ['list-tools.name-byte-order'],
    profile: 'tool-discovery',
    scenario: 'rsm-order',
    grep: ['list-tools.name-byte-order', 'list-tools.rsm-random-paths'],
  },
  {
    name: 'search-results-reversed',
    change: 'search results come in descending JID order',
    bugClass: 'ordering',
    requirements: ['search.octet-order'],
    profile: 'jabber-search',
    scenario: 'rsm-order',
    grep: ['search.octet-order'],
  },
  {
    name: 'rsm-index-off-by-one',
    change: '<index/> starts the page one item late',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.index'],
  },
  {
    name: 'rsm-after-inclusive',
    change: 'a page after a UID starts with the UID’s own item',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.rsm-random-paths'],
  },
  {
    name: 'rsm-before-overlaps',
    change: 'a page before a UID ends with the UID’s own item',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.before-pages-backward'],
  },
  {
    name: 'rsm-first-index-zero',
    change: 'first@index is always 0',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.index', 'list-agents.rsm-random-paths'],
  },
  {
    name: 'rsm-count-of-page',
    change: '<count/> reports the page’s length instead of the set’s',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.count-visible-only', 'list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.count-visible-only', 'list-agents.rsm-random-paths'],
  },
];

// ---------------------------------------------------------------------------------------------
// schema-hash: canonical bytes and the hashes that name them

const SCHEMA_HASH: MutantRecord[] = [
  {
    name: 'canonical-code-point-order',
    change: 'canonical JSON orders member names by code point instead of UTF-16 code units',
    bugClass: 'canonical-json',
    requirements: ['manifest-retrieval.canonical-bytes', 'registration-flow.ijson-before-hash'],
    profile: 'self-registration',
    scenario: 'schema-hash',
    grep: ['canonical-json.registered-literal-vectors', 'manifest-retrieval.canonical-key-order'],
  },
  {
    name: 'served-manifest-reindented',
    change: '<manifest/> serves the document re-indented instead of its canonical bytes',
    bugClass: 'canonical-json',
    requirements: ['manifest-retrieval.canonical-bytes'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['manifest-retrieval.active-local'],
  },
  {
    name: 'served-schema-keys-reversed',
    change: '<schema/> serves the schema with its top-level members in reverse order',
    bugClass: 'canonical-json',
    requirements: ['schemas.canonical-bytes'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['schemas.canonical-bytes-local'],
  },
  {
    name: 'schema-stale-hash-served',
    change: 'a schema request with a stale manifest hash is served',
    bugClass: 'schema-hash',
    requirements: ['schemas.stale-hash-conflict'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['schemas.stale-hash-conflict'],
  },
  {
    name: 'invoke-stale-hash-admitted',
    change: 'an invocation pinned to another manifest hash of the active version is admitted',
    bugClass: 'schema-hash',
    requirements: ['invocation.pin-before-admission', 'rules.version-pinning'],
    profile: 'task-execution',
    scenario: 'schema-hash',
    grep: ['rules.version-pinning', 'invocation.validity-after-authorization'],
  },
  {
    name: 'endpoint-hash-of-pretty-bytes',
    change: 'manifest_hash_value hashes the indented document, not the canonical bytes',
    bugClass: 'schema-hash',
    requirements: ['endpoint-info.manifest-hash-fields'],
    profile: 'core-directory',
    scenario: 'schema-hash',
    grep: ['endpoint-info.manifest-hash-fields', 'canonical-json.spec-example-endpoint-hash'],
  },
  {
    name: 'tool-info-input-hash-of-output',
    change: 'input_schema_hash_value reports the output schema’s hash where the tool has one',
    bugClass: 'schema-hash',
    requirements: ['tool-info.required-fields'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['tool-info.required-fields', 'schemas.canonical-bytes-local'],
  },
  {
    name: 'tombstone-ignored',
    change: 'a removed version can be registered again with other content',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.tombstone-conflict'],
    profile: 'admin-provisioning',
    scenario: 'schema-hash',
    grep: ['registration-flow.tombstone-conflict'],
  },
  {
    name: 'version-conflict-reported-unchanged',
    change: 'registering other content under an existing version reports success and keeps the old content',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.version-immutable'],
    profile: 'self-registration',
    scenario: 'schema-hash',
    grep: ['registration-flow.version-immutable'],
  },
  {
    name: 'activate-ignores-hash',
    change: 'activation does not check the hash names the registered version',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.admin-operations'],
    profile: 'admin-provisioning',
    scenario: 'schema-hash',
    grep: ['registration-flow.admin-lifecycle'],
  },
];

// ---------------------------------------------------------------------------------------------
// crash: durability and at-most-once execution across a restart

const CRASH: MutantRecord[] = [
  {
    name: 'accepted-before-durable',
    change: 'group commit answers <accepted/> before the WAL sync covering the task',
    bugClass: 'durability-order',
    requirements: ['invocation.durable-before-accepted'],
    profile: 'task-execution',
    scenario: 'crash',
    grep: ['invocation.durable-across-crash'],
    equivalent:
      'not observable from outside: the transaction has reached the kernel before <accepted/> leaves, so killing the gateway process loses nothing; only a power loss or kernel crash between COMMIT and the WAL sync would, which no black-box harness can cause',
  },
  {
    name: 'accepted-before-commit',
    change:
      'admission answers <accepted/> as soon as the group transaction is queued; the commit follows 400 ms later',
    bugClass: 'durability-order',
    requirements: ['invocation.durable-before-accepted'],
    profile: 'task-execution',
    scenario: 'crash',
    grep: ['invocation.durable-across-crash', 'invocation.crash-on-the-wire'],
  },
  {
    name: 'crash-reruns-dispatched',
    change: 'after a restart, tasks that were already dispatched run again',
    bugClass: 'crash-recovery',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'crash',
    grep: ['invocation.crash-on-the-wire'],
    deep: true,
  },
  {
    name: 'crash-settles-cancelling-failed',
    change: 'after a restart, a task that was cancelling settles failed instead of cancelled',
    equivalent:
      'permitted: #task-states allows cancelling to any terminal state and #cancellation says a cancellation stays advisory until the target settles the task cancelled, completed or failed, the target alone choosing; failed after a crash is as conforming as cancelled (the reference gateway takes the stricter side), so no case may fail it',
    bugClass: 'crash-recovery',
    requirements: ['task-states.permitted-transitions'],
    profile: 'interactive-tasks',
    scenario: 'crash',
    grep: ['invocation.crash-on-the-wire', 'cancellation.cancelling-then-completed'],
  },
];

// ---------------------------------------------------------------------------------------------
// link-fault: delivery, routing and re-sends of lifecycle messages

const LINK_FAULT: MutantRecord[] = [
  {
    name: 'resend-fresh-event-ids',
    change: 'events re-sent after the link came back carry new event IDs',
    bugClass: 'event-identity',
    requirements: ['events.replay-identical'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.component-link-cut'],
  },
  {
    name: 'bounce-resend-fresh-event-ids',
    change: 'events re-sent to the bare JID after a bounce carry new event IDs',
    bugClass: 'event-identity',
    requirements: ['events.replay-identical'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.component-link-cut'],
  },
  {
    name: 'bounce-not-rerouted',
    change: 'a bounced lifecycle message neither moves the route to the bare JID nor re-sends',
    bugClass: 'link-fault',
    requirements: ['task-message-routing.delivery-independent'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.component-link-cut'],
    equivalent:
      'permitted: after a bounce #task-message-routing lets the gateway go on to the bare JID (MAY), not must; state and result stay recoverable by task-state, which the case checks, so ignoring the bounce is no violation',
  },
  {
    name: 'events-to-bare-jid',
    change: 'lifecycle messages go to the caller’s bare JID instead of the invoking resource',
    bugClass: 'routing',
    requirements: ['task-message-routing.events-to-full-jid'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['task-message-routing.events-to-invoking-resource'],
    strict: true,
  },
  {
    name: 'events-no-copy-hint',
    change: 'lifecycle messages carry a no-copy processing hint',
    bugClass: 'routing',
    requirements: ['task-message-routing.no-no-copy-hint'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['task-message-routing.no-no-copy-hint'],
  },
  {
    name: 'events-from-gateway-domain',
    change: 'lifecycle messages come from the gateway’s domain instead of the endpoint JID',
    bugClass: 'routing',
    requirements: ['security.no-sender-spoofing'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.revisions-one-per-commit', 'security.output-is-data-not-routing'],
  },
  {
    name: 'results-sent-twice',
    change: 'every IQ result is written twice',
    bugClass: 'reply-count',
    requirements: ['errors.one-reply-per-iq'],
    profile: 'core-directory',
    scenario: 'link-fault',
    grep: ['gateway-info.identity-local'],
  },
];

// ---------------------------------------------------------------------------------------------
// task engine: states, revisions, identifiers, deadlines, capacity, features

const TASKS: MutantRecord[] = [
  {
    name: 'sequential-task-ids',
    change: 'task IDs are a counter padded to 22 characters',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifiers-unpredictable'],
  },
  {
    name: 'low-entropy-task-ids',
    change: 'identifiers carry 32 random bits padded with a fixed text to 24 characters',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifiers-unpredictable'],
  },
  {
    name: 'result-available-always',
    change: 'task-state says result-available for tasks that are not terminal',
    bugClass: 'state-machine',
    requirements: ['task-recovery.result-availability'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-states.states-and-transitions', 'task-recovery.state-and-result-from-sibling'],
  },
  {
    name: 'running-reported-accepted',
    change: 'task-state reports a running task as accepted',
    bugClass: 'state-machine',
    requirements: ['task-recovery.state-contents'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-states.states-and-transitions'],
  },
  {
    name: 'result-of-running-not-found',
    change: 'task-result of a non-terminal task answers item-not-found instead of unexpected-request',
    bugClass: 'error-type',
    requirements: ['task-recovery.result-only-terminal'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-recovery.result-only-terminal'],
  },
  {
    name: 'progress-skips-a-revision',
    change: 'each progress update raises the revision by two',
    bugClass: 'event-identity',
    requirements: ['events.revision-increments'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.revisions-one-per-commit'],
  },
  {
    name: 'event-id-per-task',
    change: 'every event of a task is sent with the same event ID (the store keeps distinct ones)',
    bugClass: 'event-identity',
    requirements: ['events.revision-increments'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.revisions-one-per-commit'],
  },
  {
    name: 'iserror-settles-failed',
    change: 'a tool result with isError true is settled failed instead of completed',
    bugClass: 'state-machine',
    requirements: ['events.iserror-is-completed'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.iserror-is-completed'],
  },
  {
    name: 'requested-deadline-ignored',
    change: 'the caller’s deadline is replaced by the tool’s maximum',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-expiry', 'cancellation.deadline-instants'],
  },
  {
    name: 'deadline-timer-never-armed',
    change: 'no deadline timer: a deadline is only noticed at the next commit boundary',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-expiry'],
  },
  {
    name: 'past-deadline-admitted',
    change: 'an invocation whose deadline has passed is admitted (and fails at dispatch)',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-at-commit'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['invocation.deadline-refusals'],
  },
  {
    name: 'deadline-whole-seconds',
    change: 'deadlines compare at whole-second resolution (fractions ignored)',
    bugClass: 'deadline',
    requirements: ['cancellation.exact-instant-comparison'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-instants', 'cancellation.deadline-expiry'],
  },
  {
    name: 'task-capacity-unbounded',
    change: 'no bound on active tasks, in all or per caller',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['rules.task-capacity'],
  },
  {
    name: 'rate-limits-never-bite',
    change: 'the token buckets never run out: no rate limit anywhere',
    bugClass: 'rate-limit',
    requirements: ['security.rate-limits'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['security.rate-limit-enforced'],
  },
  {
    name: 'removal-ignores-retained-tasks',
    change: 'a version (or endpoint) retained by a task can be removed',
    bugClass: 'retention',
    requirements: ['registration-flow.removal-blocked-by-tasks'],
    profile: 'admin-provisioning',
    scenario: 'race',
    grep: ['registration-flow.removal-blocked-by-task'],
  },
];

// ---------------------------------------------------------------------------------------------
// discovery and advertising: what is claimed and what is implemented

const ADVERTISING: MutantRecord[] = [
  {
    name: 'cancel-off-while-claimed',
    change: 'the engine neither implements nor advertises #cancel; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: [],
    falseClaim: true,
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['cancellation.stale-revision-refused'],
  },
  {
    name: 'progress-off-while-claimed',
    change: 'the engine neither implements nor advertises #progress; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: [],
    falseClaim: true,
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['events.progress-percent-range'],
  },
  {
    name: 'input-off-while-claimed',
    change: 'the engine neither implements nor advertises #input; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: [],
    falseClaim: true,
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['interactive-input.pending-answer-replay'],
  },
  {
    name: 'tool-features-undeclared',
    change: 'tool nodes advertise every endpoint task feature whether or not the tool declares it',
    bugClass: 'false-advertising',
    requirements: ['manifest.endpoint-features-prevail', 'conformance.no-false-advertising'],
    profile: 'tool-discovery',
    scenario: 'equivalence',
    grep: ['tool-info.disco-info-local'],
  },
  {
    name: 'search-not-advertised',
    change: 'search is implemented but jabber:iq:search is not advertised',
    bugClass: 'false-advertising',
    requirements: ['search.advertised-and-implemented'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    grep: ['search.advertised-and-paged', 'gateway-info.claimed-profiles-advertised'],
  },
  {
    name: 'admin-refusal-discloses-existence',
    change:
      "a non-admin's administrative request is refused forbidden for an existing endpoint, item-not-found otherwise",
    bugClass: 'access-control',
    requirements: ['errors.not-found-equivalence'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['registration-flow.non-admin-like-nonexistent'],
  },
  {
    name: 'admin-not-advertised',
    change: '#admin is implemented but not advertised',
    bugClass: 'false-advertising',
    requirements: ['gateway-info.features'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['gateway-info.claimed-profiles-advertised'],
  },
  {
    name: 'search-locale-lowercase',
    change:
      'search folds case in the process locale (toLocaleLowerCase of LC_ALL; the reference SUT runs under tr_TR)',
    bugClass: 'locale',
    requirements: ['search.case-insensitive', 'i18n.locale-independent-matching'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    grep: ['search.case-insensitive'],
    strict: true,
  },
  {
    name: 'search-case-sensitive',
    change: 'search compares case-sensitively',
    bugClass: 'locale',
    requirements: ['search.case-insensitive'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    grep: ['search.case-insensitive'],
    strict: true,
  },
  {
    name: 'jid-locale-lowercase',
    change:
      'JIDs are case-mapped in the process locale (toLocaleLowerCase of LC_ALL; the reference SUT runs under tr_TR)',
    bugClass: 'locale',
    requirements: ['i18n.locale-independent-matching', 'namespaces.jid-comparison'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['i18n.locale-independent-matching'],
  },
  {
    name: 'tool-name-locale-folded',
    change:
      'an invocation finds its tool by name upper-cased in the process locale (toLocaleUpperCase of LC_ALL; the reference SUT runs under tr_TR), so scrİpt invokes script',
    bugClass: 'locale',
    requirements: ['i18n.locale-independent-matching'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['i18n.tool-name-turkish-i'],
  },
  {
    name: 'legacy-nick-search-refused',
    change: 'a legacy search that fills <nick/> is refused',
    bugClass: 'input-validation',
    requirements: ['search.legacy-nick'],
    profile: 'jabber-search',
    scenario: 'bad-input',
    grep: ['search.legacy-nick'],
  },
];

// ---------------------------------------------------------------------------------------------
// Human Messaging: blocking and the chat/task separation (issue 16; the same bugs as the
// verdict proofs' ASSUMES_SERVER_BLOCKING and CHAT_REPLY_AS_TASK, integration/variants/)

const MESSAGING: MutantRecord[] = [
  {
    name: 'assumes-server-blocking',
    change:
      "endpoints originate chat without asking the recipient's block state (server routing assumed to enforce XEP-0191)",
    bugClass: 'access-control',
    requirements: ['security.honor-blocking', 'security.no-assumed-server-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.blocked-'],
  },
  {
    name: 'chat-reply-as-task',
    change: 'the answer to a chat message is sent as a completed agent-task event instead of a chat message',
    bugClass: 'routing',
    requirements: ['messaging.chat-not-task'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.chat-answer-stays-chat'],
  },
];

const RECORDS: readonly MutantRecord[] = [
  ...BAD_INPUT,
  ...EQUIVALENCE,
  ...TIMING,
  ...REPLAY,
  ...RACE,
  ...RSM_ORDER,
  ...SCHEMA_HASH,
  ...CRASH,
  ...LINK_FAULT,
  ...TASKS,
  ...ADVERTISING,
  ...MESSAGING,
  ...ADVERSARIAL,
  ...RAW_INPUT_MUTANTS,
  ...WAVE22_MUTANTS,
  ...INPUT_CLASS_MUTANTS,
];

export const MUTANTS: readonly Mutant[] = RECORDS.map((record) => withPatchFile(record));
