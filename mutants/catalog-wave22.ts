/**
 * Issue 22's independent bug hunt: realistic bugs of the reference gateway in the areas the
 * first hunt found the suite weakest (Human Messaging and blocking, Administrative Provisioning,
 * access policy and presence, limits, revisions, schema keywords and character data, task-ID
 * unpredictability, directory/search visibility). Written from the spec and the gateway's code,
 * without reading the cases that judge them. Same shape as catalog.ts, which spreads this list
 * into MUTANTS. Each `grep` names the requirements the bug breaks and its section, so that every
 * case citing them — example or generated — gets the chance to kill it.
 */
import type { MutantRecord } from './mutant.ts';

// --- Human Messaging and blocking (#messaging, #security) ------------------------------------
const MESSAGING: MutantRecord[] = [
  {
    name: 'block-state-unknown-delivers',
    change:
      'a block-state query that errs or times out counts as "not blocked": a server without the block-state module, or a slow one, gets every chat answer',
    bugClass: 'blocking',
    requirements: ['security.no-unfounded-blocking-claim', 'security.honor-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['security.no-unfounded-blocking-claim', 'security.honor-blocking', 'messaging.'],
  },
  {
    name: 'chat-ignores-visibility',
    change:
      'a chat to an endpoint the sender may not see is answered like any other, revealing that the hidden endpoint exists',
    bugClass: 'visibility',
    requirements: ['rules.uniform-visibility', 'errors.not-found-equivalence'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['rules.uniform-visibility', 'errors.not-found-equivalence', 'messaging.'],
    equivalent:
      "permitted: the visibility policy governs directory, search and metadata (#privacy, #rules, the item-not-found row of #errors: 'hidden from the requested discovery or metadata operation'); #messaging ties one-to-one chat to no visibility rule, and the only hook, privacy.minimal-disclosure (SHOULD), is registered not-testable",
  },
  {
    name: 'receipt-not-block-gated',
    change:
      'a delivery receipt (XEP-0184) is sent straight away, without asking the block state: only the chat answer is gated',
    bugClass: 'blocking',
    requirements: ['security.honor-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['security.honor-blocking', 'security.no-assumed-server-blocking', 'messaging.'],
  },
  {
    name: 'release-not-block-gated',
    change:
      "a held reply is sent on release without asking its recipient's block state again: a block made while it was held is not honoured",
    bugClass: 'blocking',
    requirements: ['security.honor-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['security.honor-blocking', 'security.no-assumed-server-blocking', 'messaging.'],
  },
  {
    name: 'block-state-cached',
    change:
      'the block state is asked once per endpoint and human and cached: a block (or unblock) made after the first message is never seen',
    bugClass: 'blocking',
    requirements: ['security.honor-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['security.honor-blocking', 'security.no-assumed-server-blocking', 'messaging.'],
  },
  {
    name: 'block-query-from-gateway-domain',
    change:
      'the block-state query is sent from the gateway domain instead of the endpoint JID, so the server answers for the wrong sender: a block of the endpoint JID is missed',
    bugClass: 'blocking',
    requirements: ['security.honor-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['security.honor-blocking', 'security.no-assumed-server-blocking', 'messaging.'],
  },
];

// --- Administrative Provisioning and self-registration (#registration-flow, #security, #rules) -
const PROVISIONING: MutantRecord[] = [
  {
    name: 'admin-registers-unhosted-domain',
    change:
      'an administrator may register a manifest whose agent JID is on a domain this gateway does not host',
    bugClass: 'access-control',
    requirements: ['security.no-sender-spoofing', 'addressing.endpoint-bare-jid'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['registration-flow.', 'security.no-sender-spoofing', 'security.admin-authentication'],
  },
  {
    name: 'admin-by-domain',
    change:
      "administrative authority is decided by domain: every account on an administrator's domain may provision",
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.admin-authentication', 'registration-flow.'],
  },
  {
    name: 'self-register-any-same-domain-jid',
    change:
      'a local account may self-register a manifest for any JID of its own domain, not only its own bare JID',
    bugClass: 'access-control',
    requirements: ['rules.self-registration-own-jid'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['rules.self-registration-own-jid', 'registration-flow.'],
  },
  {
    name: 'status-unknown-endpoint-empty',
    change:
      'registration-status of a well-formed JID nobody registered answers an empty registration instead of item-not-found',
    bugClass: 'error-type',
    requirements: ['registration-flow.admin-operations'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['registration-flow.admin-operations', 'security.admin-authentication'],
    equivalent:
      "permitted: #registration-flow names no error for the status of a JID nobody registered, and <registration/> allows zero <version/> children (XSD minOccurs='0'), so an empty status is as truthful an answer to an administrator as item-not-found",
  },
  {
    name: 'non-admin-learns-nonexistent-target',
    change:
      'a non-administrator gets item-not-found for an operation on an endpoint that does not exist and forbidden for one that does',
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.admin-authentication', 'registration-flow.'],
  },
  {
    name: 'registrant-administers-own-endpoint',
    change:
      'a self-registrant may activate, deactivate, inspect and remove its own endpoint (every administrative operation, scoped to its own JID)',
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['security.admin-authentication', 'rules.self-registration-own-jid', 'registration-flow.'],
    equivalent:
      "permitted as we read it: #use-case-registration has the self-registering account 'explicitly activate a selected version', and #registration-flow makes activation depend on the sender being 'authorized' without saying a self-registrant cannot be for its own endpoint; security.admin-authentication protects other endpoints, which the mutant still refuses (needs a spec-positions entry)",
  },
];

// --- access policy and presence (#security, #rules, #identity-presence) ----------------------
const ACCESS: MutantRecord[] = [
  {
    name: 'tool-grant-follows-tool-name',
    change:
      'an invoke grant for one tool on one endpoint also allows a tool of that name on every other endpoint',
    bugClass: 'access-control',
    requirements: ['security.authorize-and-validate', 'invocation.unauthorized-item-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: [
      'security.authorize-and-validate',
      'invocation.unauthorized-item-not-found',
      'invocation.invoke-without-visibility',
    ],
  },
  {
    name: 'tool-grant-prefix-match',
    change: "an invoke grant for tool 'x' allows every tool whose name starts with 'x'",
    bugClass: 'access-control',
    requirements: ['security.authorize-and-validate', 'invocation.unauthorized-item-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: [
      'security.authorize-and-validate',
      'invocation.unauthorized-item-not-found',
      'invocation.invoke-without-visibility',
    ],
  },
  {
    name: 'tool-grants-last-wins',
    change:
      'several invoke grants of one subject on one endpoint keep only the last: a caller granted two tools of a multi-tool endpoint can invoke one',
    bugClass: 'access-control',
    requirements: ['invocation.invoke-without-visibility', 'privacy.explicit-visibility-policy'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: [
      'security.authorize-and-validate',
      'invocation.unauthorized-item-not-found',
      'invocation.invoke-without-visibility',
    ],
  },
  {
    name: 'probe-ignores-visibility',
    change:
      'a presence probe is answered with available presence for every sender, so a hidden endpoint answers a probe while a nonexistent one declines',
    bugClass: 'visibility',
    requirements: ['identity-presence.presence-handling'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['identity-presence.', 'rules.uniform-visibility'],
    strict: true,
  },
  {
    name: 'subscribe-auto-approved',
    change:
      'every presence subscription to an endpoint JID is approved, also from senders that may not see it (a hidden endpoint says subscribed)',
    bugClass: 'visibility',
    requirements: ['identity-presence.presence-handling'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['identity-presence.', 'rules.uniform-visibility'],
    strict: true,
  },
];

// --- limits: rate, order against authorization, surfaces, capacity, deadlines -----------------
const LIMITS: MutantRecord[] = [
  {
    name: 'rate-refill-per-millisecond',
    change:
      'token buckets refill perSecond tokens every millisecond: a burst is refused, but the sustained rate is 1000 times the documented one',
    bugClass: 'rate-limit',
    requirements: ['security.rate-limits'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['security.rate-limits', 'json-encoding.authorize-before-limits'],
  },
  {
    name: 'invoke-rate-limit-before-authorization',
    change:
      'the invocation rate limit is answered before authorization: an unauthorized caller over its rate gets resource-constraint instead of item-not-found',
    bugClass: 'rate-limit',
    requirements: ['json-encoding.authorize-before-limits', 'invocation.unauthorized-item-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: [
      'json-encoding.authorize-before-limits',
      'security.rate-limits',
      'invocation.unauthorized-item-not-found',
    ],
  },
  {
    name: 'metadata-not-rate-limited',
    change: 'manifest and schema retrieval take no token: schema fetching is never rate-limited',
    bugClass: 'rate-limit',
    requirements: ['security.rate-limits'],
    profile: 'tool-discovery',
    scenario: 'equivalence',
    grep: ['security.rate-limits', 'json-encoding.authorize-before-limits'],
  },
  {
    name: 'self-registration-not-rate-limited',
    change: 'only administrators are rate-limited on <register/>: self-registration is unmetered',
    bugClass: 'rate-limit',
    requirements: ['security.rate-limits'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['security.rate-limits', 'json-encoding.authorize-before-limits'],
  },
  {
    name: 'capacity-freed-at-cancelling',
    change:
      "an accepted cancellation frees the caller's task slot at once, and its settlement frees it again: cancelled tasks let a caller exceed its task capacity",
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.resource-bounds', 'cancellation.'],
  },
  {
    name: 'capacity-leaks-on-failure',
    change:
      'only a completed task returns its slot: failed and cancelled tasks count against the caller forever, so it is refused resource-constraint with no task running',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.resource-bounds', 'cancellation.'],
  },
  {
    name: 'requested-deadline-unbounded',
    change:
      "a caller's deadline is taken as given, clamped neither to the tool's maximumTimeoutSeconds nor to the gateway's task duration limit",
    bugClass: 'deadline',
    requirements: ['rules.resource-bounds', 'cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.resource-bounds', 'cancellation.deadline', 'task-recovery.state-contents'],
  },
  {
    name: 'tool-maximum-timeout-ignored',
    change:
      "a tool's maximumTimeoutSeconds is ignored: a deadline above it is kept (only the gateway's own maximum clamps)",
    bugClass: 'deadline',
    requirements: ['rules.resource-bounds', 'cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['rules.resource-bounds', 'cancellation.deadline', 'task-recovery.state-contents'],
  },
];

// --- revisions in both directions (#cancellation, #interactive-input) -------------------------
const REVISIONS: MutantRecord[] = [
  {
    name: 'cancel-revision-ahead-accepted',
    change:
      'a cancellation naming a revision ahead of the current one is accepted (only a stale one is refused)',
    bugClass: 'state-machine',
    requirements: ['cancellation.stale-revision-conflict'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['cancellation.stale-revision-conflict', 'cancellation.'],
  },
  {
    name: 'cancel-revision-behind-accepted',
    change:
      'a cancellation naming a stale revision is accepted (only one ahead of the current revision is refused)',
    bugClass: 'state-machine',
    requirements: ['cancellation.stale-revision-conflict'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['cancellation.stale-revision-conflict', 'cancellation.'],
  },
  {
    name: 'input-revision-behind-accepted',
    change:
      'an answer naming a revision behind the current one (progress committed since the question) is accepted; only a revision ahead gets conflict',
    bugClass: 'state-machine',
    requirements: ['interactive-input.stale-revision-conflict', 'interactive-input.race-loser-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.'],
  },
  {
    name: 'input-revision-ahead-accepted',
    change:
      'an answer naming a revision ahead of the current one is accepted; only a stale revision gets conflict',
    bugClass: 'state-machine',
    requirements: ['interactive-input.stale-revision-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.'],
  },
];

// --- schema keywords, character references and CDATA (#schemas, #json-encoding, #cancellation) -
const CHARACTER_DATA: MutantRecord[] = [
  {
    name: 'ref-siblings-ignored',
    change:
      'draft-07 $ref semantics: keywords beside a $ref are dropped before evaluation, so arguments breaking them are accepted',
    bugClass: 'input-validation',
    requirements: ['schemas.same-document-refs', 'rules.target-validates-arguments'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['schemas.same-document-refs', 'rules.target-validates-arguments'],
  },
  {
    name: 'format-asserted',
    change:
      "'format' is enforced: common formats (email, date-time, date, uri, uuid) are compiled into patterns, so arguments valid under 2020-12's format-annotation are refused not-acceptable",
    bugClass: 'input-validation',
    requirements: ['rules.target-validates-arguments'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['schemas.', 'rules.target-validates-arguments', 'interactive-input.schema-invalid-not-acceptable'],
  },
  {
    name: 'character-data-last-node-only',
    change:
      "an element's character data is its last text node (= for +=): JSON split into text and CDATA sections loses its head",
    bugClass: 'input-validation',
    requirements: ['json-encoding.cdata-independent'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.cdata-independent', 'json-encoding.string-whitespace-preserved'],
    equivalent:
      "unreachable in this gateway: it re-reads every stanza from its own serialization, which writes each run of character data as one text node, so no element its codecs read has a second one (json-encoding.cdata-split-arguments sends CDATA, references and text on the component link and passes). The bug in a gateway that reads the stream parser's tree is stream-tree-last-text-node (catalog-raw-input.ts), which that case kills",
  },
  {
    name: 'text-nodes-trimmed',
    change:
      'text between markup is trimmed as it is parsed (CDATA sections are not): white space at a CDATA edge or around a reason disappears',
    bugClass: 'input-validation',
    requirements: ['json-encoding.cdata-independent', 'json-encoding.string-whitespace-preserved'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: [
      'json-encoding.cdata-independent',
      'json-encoding.string-whitespace-preserved',
      'cancellation.different-tuple-conflict',
    ],
    // json-encoding.cdata-split-arguments kills it only with its --deep budget (seeds 22 and 5);
    // the default run's splits survive the trim.
    deep: true,
  },
  {
    name: 'cancel-reason-line-ends-folded',
    change:
      'a cancellation reason has CR and CRLF folded to LF after parsing, so a reason carrying &#xD; replays as the same tuple as one with a line feed',
    bugClass: 'replay-identity',
    requirements: ['cancellation.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['cancellation.different-tuple-conflict', 'cancellation.identical-replay'],
  },
  {
    name: 'cancel-reason-nfc-normalized',
    change:
      'a cancellation reason is NFC-normalized before the replay comparison, so canonically equivalent but different reasons replay instead of conflicting',
    bugClass: 'replay-identity',
    requirements: ['cancellation.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['cancellation.different-tuple-conflict', 'cancellation.identical-replay'],
  },
];

// --- task-ID unpredictability beyond distinctness and shared prefixes (#invocation) -----------
const IDENTIFIERS: MutantRecord[] = [
  {
    name: 'id-counter-in-low-bits',
    change:
      'the last four bytes of every task and event ID are a process-wide counter (112 random bits left)',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifier-unpredictability'],
  },
  {
    name: 'id-timestamp-prefix',
    change: 'time-ordered IDs (UUIDv7-like): 48 bits of milliseconds, then 96 random bits',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifier-unpredictability'],
  },
  {
    name: 'id-hash-of-timestamp',
    change:
      'IDs are SHA-256 of the millisecond clock and a sequence number: they look random, but whoever knows the scheme predicts them',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifier-unpredictability'],
    equivalent:
      "indistinguishable on the wire, though not conformant: a client sees only the IDs and the tasks' created instants, and no known statistical test tells truncated SHA-256 digests of distinct (millisecond, sequence number) inputs from CSPRNG output without recomputing that derivation; recomputing it from each created instant would test this one implementation's scheme, not the requirement. The registry's invocation.identifier-unpredictability detects only gross failures statistically, and spec positions section I leaves where the bits come from to review, not to a black-box run",
  },
  {
    name: 'id-from-math-random',
    change: 'IDs come from Math.random (xorshift128+, recoverable from a few outputs), not a CSPRNG',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifier-unpredictability'],
  },
];

// --- directory, search and visibility -------------------------------------------------------
const DIRECTORY: MutantRecord[] = [
  {
    name: 'archived-version-public',
    change:
      'an exact version that is not the active one is served (manifest, tools, schemas) to anyone who names it, whatever the visibility policy',
    bugClass: 'visibility',
    requirements: [
      'manifest-retrieval.same-access-as-discovery',
      'rules.uniform-visibility',
      'security.federation-deny-default',
    ],
    profile: 'tool-discovery',
    scenario: 'equivalence',
    grep: ['manifest-retrieval.', 'rules.uniform-visibility', 'errors.not-found-equivalence'],
  },
  {
    name: 'search-visibility-per-domain',
    change:
      "search evaluates visibility for the requester's domain only: grants naming the requester's bare JID are ignored, so search and the directory disagree",
    bugClass: 'visibility',
    requirements: ['search.visibility-filter', 'rules.uniform-visibility'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    grep: ['search.visibility-filter', 'rules.uniform-visibility', 'search.hidden-not-revealed'],
  },
  {
    name: 'directory-listing-cached-per-domain',
    change:
      "the directory listing is cached for two seconds per requester domain: another account of that domain gets the first account's view",
    bugClass: 'visibility',
    requirements: ['list-agents.visibility-filter', 'rules.uniform-visibility'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['list-agents.visibility-filter', 'list-agents.count-visible-only', 'rules.uniform-visibility'],
  },
  {
    name: 'deactivated-endpoint-still-answers',
    change:
      'a deactivated endpoint still answers disco#info, tools and manifest requests with its latest version (it is only left out of the listing)',
    bugClass: 'visibility',
    requirements: [
      'registration-flow.admin-operations',
      'errors.not-found-equivalence',
      'rules.uniform-visibility',
    ],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['registration-flow.', 'errors.not-found-equivalence', 'rules.uniform-visibility'],
  },
];

export const WAVE22_MUTANTS: MutantRecord[] = [
  ...MESSAGING,
  ...PROVISIONING,
  ...ACCESS,
  ...LIMITS,
  ...REVISIONS,
  ...CHARACTER_DATA,
  ...IDENTIFIERS,
  ...DIRECTORY,
];
