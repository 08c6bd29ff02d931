/**
 * Mutants for adversarial cases that had no broken variant proving they can fail: the task races
 * (input against expiry, state queries), the storage fault, the s2s and frozen-gateway link
 * faults, the generated bad input, the Human Messaging separation and extensions. Same shape as
 * catalog.ts (which spreads this list into MUTANTS); each names the case that must kill it in
 * its `grep`.
 */
import type { SourcePatch } from '../harness/sut/source-variant.ts';
import type { Mutant } from './mutant.ts';

const RG = 'reference-gateway/';

function patch(file: string, find: string, replace: string): SourcePatch {
  return { file: file.startsWith('protocol/') ? file : RG + file, find, replace };
}

export const ADVERSARIAL: Mutant[] = [
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
    patches: [
      patch(
        'tasks/interactive-input.ts',
        '  if (task === undefined || stored === undefined) return refuse(FAULT.itemNotFound);\n',
        "  // An expired request is gone as far as callers are concerned.\n  if (task === undefined || stored === undefined || stored.status === 'expired') return refuse(FAULT.itemNotFound);\n",
      ),
    ],
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
    patches: [
      patch(
        'tasks/interactive-input.ts',
        '  const early = decidedByRecord(stored, fingerprint);\n',
        '  // Expired requests are refused first: nothing can be answered after expiresAt.\n  if (stored.expiresAt !== undefined && isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(stored.expiresAt))) {\n    return refuse(FAULT.conflict);\n  }\n  const early = decidedByRecord(stored, fingerprint);\n',
      ),
    ],
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
    patches: [
      patch(
        'tasks/recovery.ts',
        'export function taskState(\n',
        'const stateCache = new Map<string, { readonly at: number; readonly task: ReturnType<typeof authorizedTask> }>();\n\nexport function taskState(\n',
      ),
      patch(
        'tasks/recovery.ts',
        '  const task = authorizedTask(ctx, requester, targetJid, request.taskId);\n  if (task === undefined) return refuse(FAULT.itemNotFound);\n  const pending = pendingInputJson(ctx, task);',
        '  // A task being polled is read from a short-lived cache instead of the store every time.\n  const key = `${requester.bareJid}\\u0000${targetJid}\\u0000${request.taskId}`;\n  const cached = stateCache.get(key);\n  const fresh = cached !== undefined && ctx.clock.now() - cached.at < 50;\n  const task = fresh ? cached.task : authorizedTask(ctx, requester, targetJid, request.taskId);\n  if (task === undefined) return refuse(FAULT.itemNotFound);\n  if (!fresh) stateCache.set(key, { at: ctx.clock.now(), task });\n  const pending = pendingInputJson(ctx, task);',
      ),
    ],
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
    patches: [
      patch(
        'store/durability.ts',
        '      if (error !== null) {\n        this.#onSyncFailure(error);\n        if (this.#closed) this.#closeFile();\n        return;\n      }\n',
        '      // The next sync covers the same pages: log the failure and go on.\n      if (error !== null) console.error(`gateway: WAL sync failed (${error.code ?? error.message}); continuing`);\n',
      ),
    ],
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
    patches: [
      patch(
        'tasks/admission.ts',
        'return this.#serialized(key, () => this.#admit(candidate, parsed.value));',
        'void key;\n    return this.#admit(candidate, parsed.value);',
      ),
      patch(
        'tasks/admission.ts',
        '    const replay = ctx.store.tasks.replay(requester.bareJid, endpointJid, invoke.requestId);\n',
        '    // Checked before validation; the commit does not look again.\n    const replay = inTransaction ? undefined : ctx.store.tasks.replay(requester.bareJid, endpointJid, invoke.requestId);\n',
      ),
    ],
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
    patches: [
      patch(
        'tasks/admission.ts',
        '    if (replay !== undefined) {\n      // invocation.replay-same-task, invocation.replay-conflict',
        "    // A settled task's request is done with: only active tasks are replayed.\n    const replayed = replay === undefined ? undefined : ctx.store.tasks.task(replay.taskId);\n    if (replay !== undefined && replayed !== undefined && !['completed', 'failed', 'cancelled'].includes(replayed.state)) {\n      // invocation.replay-same-task, invocation.replay-conflict",
      ),
    ],
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
    patches: [
      patch(
        'registration/manifest-intake.ts',
        '    return succeed(parseStrictJson(text, parseLimits(limits)));',
        "    // Fast path: most manifests are fine; the strict parser explains the ones JSON.parse refuses.\n    if (typeof text === 'string') {\n      try {\n        return succeed(JSON.parse(text) as JsonValue);\n      } catch {\n        // classified below\n      }\n    }\n    return succeed(parseStrictJson(text, parseLimits(limits)));",
      ),
    ],
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
    patches: [
      patch(
        'protocol/stanza/task-invoke.ts',
        "  checkAttributes(argumentsElement, ['media-type']);\n  expectMediaType(argumentsElement, MEDIA_TYPE_JSON);\n",
        "  checkAttributes(argumentsElement, ['media-type']);\n",
      ),
    ],
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
    patches: [
      patch(
        'protocol/tool-node.ts',
        "  if (encodedName.includes('=')) {\n    throw new ToolNodeError('base64url-padding', node, 'base64url name must be unpadded');\n  }\n  if (!BASE64URL_ALPHABET.test(encodedName)) {",
        '  if (!/^[A-Za-z0-9_+/-]*=*$/.test(encodedName)) {',
      ),
      patch(
        'protocol/tool-node.ts',
        "  const bytes = Buffer.from(encodedName, 'base64url');\n  // Node's decoder ignores non-zero trailing bits; re-encoding exposes any alias of the bytes.\n  if (bytes.toString('base64url') !== encodedName) {",
        "  const bytes = Buffer.from(encodedName, 'base64');\n  if (bytes.length === 0) {",
      ),
    ],
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
    patches: [
      patch(
        'protocol/stanza/agent-admin.ts',
        "  checkAttributes(manifest, ['media-type']);\n  expectMediaType(manifest, MEDIA_TYPE_JSON);\n  return { manifestJson: readJsonText(manifest) };",
        "  checkAttributes(manifest, ['media-type']);\n  return { manifestJson: readJsonText(manifest) };",
      ),
    ],
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
    patches: [
      patch(
        'tasks/event-delivery.ts',
        '  return buildLifecycleMessage(\n    { from: task.endpointJid, to: task.notifyJid, id: event.eventId },',
        '  return proseAsChat(\n    event,\n    buildLifecycleMessage(\n    { from: task.endpointJid, to: task.notifyJid, id: event.eventId },',
      ),
      patch(
        'tasks/event-delivery.ts',
        '      json: event.payloadJson,\n    },\n  );\n}',
        "      json: event.payloadJson,\n    },\n  ));\n}\n\n/** Prose reads best in a chat window: a completed text result is sent as chat with a body. */\nfunction proseAsChat(event: StoredEvent, message: Element): Element {\n  if (event.type !== 'completed') return message;\n  const texts: string[] = [];\n  const walk = (value: unknown): void => {\n    if (Array.isArray(value)) value.forEach(walk);\n    else if (value !== null && typeof value === 'object') {\n      const entry = value as Record<string, unknown>;\n      if (entry['type'] === 'text' && typeof entry['text'] === 'string') texts.push(entry['text']);\n      else Object.values(entry).forEach(walk);\n    }\n  };\n  walk(JSON.parse(event.payloadJson));\n  if (texts.length === 0) return message;\n  message.attrs['type'] = 'chat';\n  message.c('body').t(texts.join('\\n'));\n  return message;\n}",
      ),
    ],
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
    patches: [
      patch(
        'messaging/messaging-service.ts',
        '    if (turn.receiptRequested && turn.id !== undefined) {',
        '    if (turn.id !== undefined) {',
      ),
    ],
  },
];
