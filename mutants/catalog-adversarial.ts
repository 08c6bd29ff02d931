/**
 * Mutants for adversarial cases that had no broken variant proving they can fail: the task races
 * (input against expiry, state queries), the storage fault, the s2s and frozen-gateway link
 * faults, the generated bad input, the Human Messaging separation and extensions. Same shape as
 * catalog.ts (which spreads this list into MUTANTS); each names the case that must kill it in
 * its `grep`.
 */
import type { MutantRecord } from './mutant.ts';

export const ADVERSARIAL: MutantRecord[] = [
  // --- race ----------------------------------------------------------------------------------
  {
    name: 'expired-input-unknown',
    change:
      'an answer to an expired input request is refused item-not-found, as for a request the task never issued, instead of conflict',
    bugClass: 'state-machine',
    requirements: ['interactive-input.late-answer-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['interactive-input.race-input-vs-expiry'],
    // Only schedules whose request expires unanswered reach it: two by default, sixty under --deep.
    deep: true,
  },
  {
    name: 'input-expiry-before-replay',
    change:
      'an answer is checked against its request expiry before the replay record, so the identical replay of an accepted answer sent after expiresAt gets conflict instead of the original <input-accepted/>',
    bugClass: 'replay-identity',
    requirements: ['interactive-input.identical-replay'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['interactive-input.race-input-vs-expiry'],
    // Only schedules that repeat an accepted answer after the request's expiry reach it.
    deep: true,
  },
  {
    name: 'task-state-read-cache',
    change:
      'task-state answers a polled task from a 50 ms read cache of its row, so a read can report a revision older than an event already sent',
    bugClass: 'state-machine',
    requirements: ['task-recovery.state-contents'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['task-states.race-state-queries'],
    // A read inside 50 ms of an earlier one, after an event it has not seen: not every seed's two
    // default schedules draw one.
    deep: true,
  },

  // --- crash (storage faults) ------------------------------------------------------------------
  {
    name: 'wal-sync-failure-ignored',
    change:
      'a failed fdatasync of the WAL is logged and counted as done (fsyncgate): the <accepted/> waiting for it leaves though nothing is known to be on disk',
    bugClass: 'durability-order',
    requirements: ['invocation.durable-before-accepted'],
    profile: 'task-execution',
    scenario: 'crash',
    grep: ['invocation.storage-fault-no-accepted'],
    // The default budget fails only pwrite (the gateway stays up); the failing sync comes second.
    deep: true,
  },

  // --- link-fault --------------------------------------------------------------------------------
  {
    name: 'replay-check-not-atomic',
    change:
      'the replay record is looked up once, before validation, and not again at the commit, and admissions of one request key are not serialized: an identical invocation arriving while the first is admitted gets internal-server-error instead of its task',
    bugClass: 'replay-identity',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['invocation.s2s-fault-identical-retry'],
  },
  {
    name: 'replay-forgets-settled',
    change:
      "only a still-active task is replayed: an identical invocation of a settled task is admitted anew (and fails on the replay record's key with internal-server-error)",
    bugClass: 'replay-identity',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['cancellation.frozen-gateway-timeout-local'],
  },

  // --- bad-input (generated) -------------------------------------------------------------------
  {
    name: 'manifest-json-parse-fast-path',
    change:
      "manifest intake tries the platform's JSON.parse first and uses the strict I-JSON parser only to classify what JSON.parse refuses: duplicate members, lone surrogates and values past the documented limits register",
    bugClass: 'input-validation',
    requirements: ['registration-flow.ijson-before-hash', 'json-encoding.documented-limits'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.generated-bad-manifests'],
  },
  {
    name: 'invoke-media-type-unchecked',
    change:
      'the <arguments/> of an invoke is read without checking its fixed media-type (left out or changed)',
    bugClass: 'input-validation',
    requirements: ['invocation.required-parts', 'json-encoding.media-type-present'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['errors.generated-malformed-task-requests'],
    // Three mutants a request by default: the media-type ones are not always among them.
    deep: true,
  },
  {
    name: 'tool-node-lenient-base64',
    change:
      "tool nodes are decoded with Node's base64 decoder, which takes padding, the +/ alphabet and non-zero trailing bits: one tool answers under several node strings",
    bugClass: 'input-validation',
    requirements: ['namespaces.tool-node-decoding'],
    profile: 'tool-discovery',
    scenario: 'bad-input',
    grep: ['errors.generated-malformed-metadata-requests'],
  },
  {
    name: 'register-media-type-unchecked',
    change: 'a <register/> manifest is read without checking its fixed media-type (left out or changed)',
    bugClass: 'input-validation',
    requirements: ['registration-flow.validate-before-commit', 'json-encoding.media-type-present'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['errors.generated-malformed-provisioning'],
    deep: true,
  },

  // --- Human Messaging ---------------------------------------------------------------------------
  {
    name: 'prose-result-as-chat',
    change:
      'a completed event whose result is text goes out as a chat message (type chat, the text as <body/>) so that chat clients show it',
    bugClass: 'routing',
    requirements: ['messaging.task-not-chat'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.task-result-not-chat'],
  },
  {
    name: 'receipt-unasked',
    change: 'the chat endpoint sends a XEP-0184 receipt for every message with an id, asked for or not',
    bugClass: 'false-advertising',
    requirements: ['messaging.advertise-implemented'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.advertised-extensions'],
    strict: true,
  },
];
