/**
 * The mutant catalog (issue 15 item 1): realistic bugs of the reference gateway, one per entry,
 * each a text patch of a temporary copy (never a switch in the gateway). Grouped by scenario
 * family; every claimed profile and every family has mutants. `npm run mutants -- --list`
 * prints it and checks that every patch still applies.
 *
 * A `grep` names the cases that should kill the mutant (case IDs or requirement IDs, as
 * `agentconf run --grep` takes them), so each focused run takes seconds.
 */
import type { SourcePatch } from '../harness/sut/source-variant.ts';
import type { Mutant } from './mutant.ts';
import { ASSUMES_SERVER_BLOCKING, CHAT_REPLY_AS_TASK } from '../integration/variants/messaging-variants.ts';
import { RAW_INPUT_MUTANTS } from './catalog-raw-input.ts';
import { ADVERSARIAL } from './catalog-adversarial.ts';

const RG = 'reference-gateway/';

function patch(file: string, find: string, replace: string): SourcePatch {
  return { file: file.startsWith('protocol/') ? file : RG + file, find, replace };
}

/** The same text with `from` replaced by `to` (both must occur in `find`). */
function edit(file: string, find: string, from: string, to: string): SourcePatch {
  if (!find.includes(from)) throw new Error(`catalog: ${JSON.stringify(from)} is not in the text it edits`);
  return patch(file, find, find.replace(from, to));
}

const TASK_FEATURES_LINE = 'Object.freeze({ progress: true, cancel: true, input: true })';

// ---------------------------------------------------------------------------------------------
// bad-input: request validation, RSM values, strict JSON, identifiers

const BAD_INPUT: Mutant[] = [
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
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        '(request.after !== undefined && request.before !== undefined) ||',
        '(request.after !== undefined && request.before !== undefined)',
        'false',
      ),
    ],
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
    patches: [
      edit('discovery/rsm-paging.ts', '(request.index !== undefined && hasUid)', 'hasUid', 'hasUid && false'),
    ],
  },
  {
    name: 'rsm-max-zero-returns-items',
    change: '<max>0</max> returns a one-item page instead of <count/> only',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.max-zero'],
    patches: [
      patch(
        'discovery/rsm-paging.ts',
        'if (size === 0) return { ok: true, page: { items: [], rsm: { count: set.items.length } } };',
        'if (size === 0) return { ok: true, page: pageOf(set, { start: window.start, end: Math.min(window.start + 1, set.items.length) }) };',
      ),
    ],
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
    patches: [
      patch(
        'discovery/rsm-paging.ts',
        'const size = Math.min(request.max ?? pageMaximum, pageMaximum);',
        'const size = request.max ?? pageMaximum;',
      ),
    ],
  },
  {
    name: 'directory-uid-not-a-jid-throws',
    change: 'a directory RSM UID that is not a JID throws inside the pager (internal-server-error)',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.uid-not-a-jid'],
    patches: [
      patch('discovery/endpoint-order.ts', '    if (error instanceof JidError) return undefined;\n', ''),
    ],
  },
  {
    name: 'rsm-index-past-end-last-page',
    change: 'an <index/> past the end of the set returns the last page instead of an empty one',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['list-agents.rsm-invalid-values'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        'const start = Math.min(request.index, total);',
        'Math.min(request.index, total)',
        'Math.min(request.index, Math.max(0, total - size))',
      ),
    ],
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
    patches: [
      patch(
        'protocol/stanza/rsm.ts',
        'const lexXsInt = (text: string) => lexNonNegativeInteger(text, XS_INT_MAX);',
        'const lexXsInt = (text: string) =>\n  lexNonNegativeInteger(String(Math.abs(Math.trunc(Number(text.trim()))) || 0), XS_INT_MAX);',
      ),
    ],
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
    patches: [
      patch(
        'discovery/rsm-paging.ts',
        'return { ok: true, page: pageOf(set, { start: 0, end: pageMaximum }) };',
        'return { ok: true, page: { items: set.items.slice(0, pageMaximum) } };',
      ),
    ],
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
    patches: [
      patch(
        'protocol/identifiers.ts',
        'export const IDENTIFIER_PATTERN = /^[A-Za-z0-9._~-]{22,128}$/;',
        'export const IDENTIFIER_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;',
      ),
    ],
  },
  {
    name: 'json-trailing-data-accepted',
    change: 'the strict JSON parser ignores what follows the first value',
    bugClass: 'input-validation',
    requirements: ['json-encoding.single-json-value'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.trailing-data-refused'],
    patches: [
      edit(
        'protocol/json/strict-json.ts',
        'if (this.pos < this.text.length) {',
        'this.text.length',
        'this.text.length && false',
      ),
    ],
  },
  {
    name: 'json-duplicate-members-accepted',
    change: 'the strict JSON parser lets a duplicate member name overwrite the first (JSON.parse behaviour)',
    bugClass: 'input-validation',
    requirements: ['json-encoding.ijson-rejection'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.ijson-arguments-refused', 'json-encoding.ijson-input-refused'],
    patches: [
      edit(
        'protocol/json/strict-json.ts',
        'if (Object.hasOwn(object, name)) {',
        'Object.hasOwn(object, name)',
        'false',
      ),
    ],
  },
  {
    name: 'json-depth-limit-doubled',
    change: 'the nesting limit is enforced at twice the documented depth',
    bugClass: 'input-validation',
    requirements: ['json-encoding.documented-limits', 'rules.resource-bounds'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['json-encoding.limit-depth'],
    patches: [
      edit(
        'protocol/json/strict-json.ts',
        'if (depth >= limits.maxDepth) {',
        'limits.maxDepth',
        'limits.maxDepth * 2',
      ),
    ],
  },
  {
    name: 'limit-rejection-echoes-json',
    change: 'a resource-constraint error carries the rejected request payload',
    bugClass: 'input-validation',
    requirements: ['json-encoding.no-reflection'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['json-encoding.limit-bytes'],
    patches: [
      patch(
        'component/iq-router.ts',
        `function errorReply(request: IqEnvelope, fault: StanzaFault): Element {
  return buildIqError(request, { condition: fault.condition, type: fault.type });
}`,
        `function errorReply(request: IqEnvelope, fault: StanzaFault): Element {
  const payload = fault.condition === 'resource-constraint' ? (request as { payload?: Element }).payload : undefined;
  return buildIqError(request, { condition: fault.condition, type: fault.type }, payload);
}`,
      ),
    ],
  },
  {
    name: 'unhandled-iq-unanswered',
    change: 'an IQ get/set nobody handles gets no reply',
    bugClass: 'reply-count',
    requirements: ['errors.unhandled-iq-error'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['errors.unhandled-iq'],
    patches: [
      patch(
        'component/iq-router.ts',
        'if (reply === UNHANDLED) return errorReply(request, FAULT.serviceUnavailable);',
        'if (reply === UNHANDLED) return undefined;',
      ),
    ],
  },
  {
    name: 'arguments-schema-not-checked',
    change: 'arguments are not validated against the pinned inputSchema before a task is created',
    bugClass: 'input-validation',
    requirements: ['rules.target-validates-arguments'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['invocation.validity-after-authorization'],
    patches: [
      patch(
        'tasks/admission.ts',
        "    if (verdict === 'invalid') return refuse(FAULT.notAcceptable);\n    if (verdict === 'limit')",
        "    if (verdict === 'limit')",
      ),
    ],
  },
  {
    name: 'input-schema-not-checked',
    change: 'an answer to an input request is not validated against the request schema',
    bugClass: 'input-validation',
    requirements: ['interactive-input.schema-invalid-not-acceptable'],
    profile: 'interactive-tasks',
    scenario: 'bad-input',
    grep: ['interactive-input.pending-answer-replay'],
    patches: [
      patch(
        'tasks/interactive-input.ts',
        "  if (verdict === 'invalid') return refuse(FAULT.notAcceptable);\n  if (verdict === 'limit')",
        "  if (verdict === 'limit')",
      ),
    ],
  },
  {
    name: 'progress-percent-unchecked',
    change: 'progress payloads are committed without the schema check (percent outside 0-100 included)',
    bugClass: 'input-validation',
    requirements: ['events.progress-percent-range'],
    profile: 'interactive-tasks',
    scenario: 'bad-input',
    grep: ['events.progress-percent-range'],
    patches: [
      patch(
        'tasks/task-actions.ts',
        "if (!supportsProgress || !payloadIsValid('progress', payload))",
        'if (!supportsProgress)',
      ),
      patch(
        'tasks/transitions.ts',
        'if (!payloadIsValid(change.type, payload)) {',
        "if (change.type !== 'progress' && !payloadIsValid(change.type, payload)) {",
      ),
    ],
  },
  {
    name: 'output-schema-not-checked',
    change: 'structuredContent is not validated against the outputSchema before completion',
    bugClass: 'input-validation',
    requirements: ['events.output-schema-validated'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['events.output-schema-validated'],
    patches: [
      edit(
        'tasks/task-actions.ts',
        'if (outputSchema !== undefined && result.isError !== true) {',
        'outputSchema !== undefined',
        'outputSchema === null',
      ),
    ],
  },
  {
    name: 'manifest-self-jid-any',
    change: 'a local account may self-register a manifest for any JID',
    bugClass: 'access-control',
    requirements: ['rules.self-registration-own-jid'],
    profile: 'self-registration',
    scenario: 'bad-input',
    grep: ['rules.self-registration-own-jid'],
    patches: [
      patch(
        'registration/provisioning.ts',
        'const ownJid = selfEligible && claim.jid === sender.bareJid;',
        'const ownJid = selfEligible;',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// equivalence: hidden, nonexistent and unauthorized alike; access between principals

const EQUIVALENCE: Mutant[] = [
  {
    name: 'other-caller-task-forbidden',
    change: "task-state of another caller's task answers forbidden, a nonexistent one item-not-found",
    bugClass: 'access-control',
    requirements: ['task-recovery.indistinguishable-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['task-recovery.other-caller-like-nonexistent'],
    patches: [
      patch(
        'tasks/recovery.ts',
        `  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const pending`,
        `  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined && ctx.store.tasks.task(request.taskId) !== undefined) return refuse(FAULT.forbidden);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const pending`,
      ),
    ],
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
    patches: [
      patch(
        'tasks/task-access.ts',
        'const owner = task?.callerJid === requester.bareJid;',
        "const owner = task !== undefined && task.callerJid.slice(task.callerJid.indexOf('@')) === requester.bareJid.slice(requester.bareJid.indexOf('@'));",
      ),
    ],
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
    patches: [
      patch(
        'tasks/task-access.ts',
        'const addressed = task?.endpointJid === target;',
        'const addressed = task !== undefined;',
      ),
    ],
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
    patches: [
      patch(
        'tasks/recovery.ts',
        `  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const pending`,
        `  const task = authorizedTask(ctx, requester, targetJid, request.taskId);
  if (task === undefined && ctx.store.tasks.task(request.taskId)?.callerJid === requester.bareJid) {
    return refuse({ condition: 'gone', type: 'cancel' });
  }
  if (task === undefined) return refuse(FAULT.itemNotFound);
  const pending`,
      ),
    ],
  },
  {
    name: 'unauthorized-invoke-forbidden',
    change: 'invoking a tool the caller may not invoke answers forbidden instead of item-not-found',
    bugClass: 'access-control',
    requirements: ['invocation.unauthorized-item-not-found'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.unauthorized-like-nonexistent'],
    patches: [
      patch(
        'tasks/admission.ts',
        'if (endpointJid === undefined || pinned === undefined || !permitted) return refuse(FAULT.itemNotFound);',
        'if (endpointJid === undefined || pinned === undefined) return refuse(FAULT.itemNotFound);\n    if (!permitted) return refuse(FAULT.forbidden);',
      ),
    ],
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
    patches: [
      patch(
        'policy/access-policy.ts',
        '    canInvoke(requester, endpointJid, toolName) {\n      const broad',
        '    canInvoke(requester, endpointJid, toolName) {\n      if (!this.canSee(requester, endpointJid)) return false;\n      const broad',
      ),
    ],
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
    patches: [
      patch(
        'policy/access-policy.ts',
        'allowed = allowed || named || (broad && subject.seeEveryEndpoint);',
        'allowed = allowed || named || (broad && (subject.seeEveryEndpoint || subject.seeEndpoints.size > 0));',
      ),
    ],
  },
  {
    name: 'hidden-endpoints-listed',
    change: 'hidden endpoints are visible under the local defaults like any other',
    bugClass: 'visibility',
    requirements: ['list-agents.visibility-filter', 'privacy.explicit-visibility-policy'],
    profile: 'core-directory',
    scenario: 'equivalence',
    grep: ['list-agents.visibility-filter-local', 'errors.hidden-like-nonexistent'],
    patches: [
      patch(
        'policy/access-policy.ts',
        'const broad = !hidden.has(endpointJid);',
        'const broad = hidden.size >= 0;',
      ),
    ],
  },
  {
    name: 'non-admin-administers',
    change: 'administration requests are not restricted to admins',
    bugClass: 'access-control',
    requirements: ['security.admin-authentication'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['security.admin-authentication'],
    patches: [
      patch(
        'registration/provisioning.ts',
        "    if (!this.isAdmin(sender)) return refuse('not-admin');\n",
        '',
      ),
    ],
  },
  {
    name: 'federated-self-registration',
    change: 'a federated account may self-register its own JID',
    bugClass: 'access-control',
    requirements: ['registration-flow.federation-grants-nothing'],
    profile: 'self-registration',
    scenario: 'equivalence',
    grep: ['registration-flow.federation-grants-nothing'],
    patches: [
      patch(
        'registration/provisioning.ts',
        'return this.#selfRegistration && this.#localDomains.has(sender.domain);',
        'return this.#selfRegistration;',
      ),
    ],
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
    patches: [
      edit(
        'iq/faults.ts',
        "itemNotFound: Object.freeze({ condition: 'item-not-found', type: 'cancel' }),",
        "type: 'cancel'",
        "type: 'modify'",
      ),
    ],
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
    patches: [
      edit(
        'iq/faults.ts',
        "resourceConstraint: Object.freeze({ condition: 'resource-constraint', type: 'wait' }),",
        "type: 'wait'",
        "type: 'cancel'",
      ),
    ],
  },
  {
    name: 'approval-required-executed',
    change: 'a tool whose manifest requires approval is executed anyway',
    bugClass: 'access-control',
    requirements: ['manifest.fail-closed-permissions'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['manifest.approval-fails-closed'],
    patches: [
      patch(
        'tasks/admission.ts',
        '    if (pinned.extension.approvalRequired === true) return refuse(FAULT.forbidden);\n',
        '',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// timing: not-found answers that take measurably different work

const TIMING: Mutant[] = [
  {
    name: 'other-caller-task-slow',
    change: "looking up another caller's task spins 15 ms before the same item-not-found",
    bugClass: 'timing-leak',
    requirements: ['task-recovery.timing-equivalence', 'privacy.enumeration-side-channels'],
    profile: 'task-execution',
    scenario: 'timing',
    grep: ['privacy.not-found-timing'],
    strict: true,
    patches: [
      patch(
        'tasks/task-access.ts',
        '  return owner && addressed && retained ? task : undefined;',
        '  if (task !== undefined && !owner) {\n    const until = performance.now() + 15;\n    while (performance.now() < until);\n  }\n  return owner && addressed && retained ? task : undefined;',
      ),
    ],
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
    patches: [
      patch(
        'tasks/task-access.ts',
        '  return owner && addressed && retained ? task : undefined;',
        '  if (task !== undefined && !owner) {\n    const until = performance.now() + 2;\n    while (performance.now() < until);\n  }\n  return owner && addressed && retained ? task : undefined;',
      ),
    ],
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
    patches: [
      patch(
        'catalog/store-catalog.ts',
        '    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);\n    if (stored === undefined || !visible) return undefined;\n    return { jid: stored.jid, active: this.#record(stored) };',
        '    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);\n    if (stored !== undefined && !visible) {\n      const until = performance.now() + 3;\n      while (performance.now() < until);\n    }\n    if (stored === undefined || !visible) return undefined;\n    return { jid: stored.jid, active: this.#record(stored) };',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// replay: request identities and the answers replays get

const REPLAY: Mutant[] = [
  {
    name: 'replay-ignores-arguments',
    change:
      'the invocation fingerprint leaves the arguments out: a replay with other arguments gets the first task',
    bugClass: 'replay-identity',
    requirements: ['invocation.replay-conflict'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-conflict'],
    patches: [
      patch('tasks/fingerprints.ts', '    identity.canonicalArguments,\n    deadline,', '    deadline,'),
    ],
  },
  {
    name: 'replay-fresh-created',
    change: 'a replayed <accepted/> carries the time of the replay as created',
    bugClass: 'event-identity',
    requirements: ['invocation.replay-same-task'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['invocation.replay-same-task'],
    patches: [
      patch(
        'tasks/admission.ts',
        '      return replay.fingerprint === candidate.fingerprint\n        ? acceptedFromReplay(replay)',
        '      return replay.fingerprint === candidate.fingerprint\n        ? acceptedFromReplay({ ...replay, created: dateTimeFromMillis(ctx.clock.now()).text })',
      ),
    ],
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
    patches: [
      patch(
        'tasks/admission.ts',
        'keepUntilMs: Math.max(createdMs + ctx.replayWindowSeconds * 1000, retainUntilMs),',
        'keepUntilMs: retainUntilMs,',
      ),
    ],
  },
  {
    name: 'cancel-replay-ignores-reason',
    change: 'the cancellation fingerprint leaves <reason/> out',
    bugClass: 'replay-identity',
    requirements: ['cancellation.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['cancellation.advisory-cancelled-with-replays'],
    patches: [
      patch('tasks/fingerprints.ts', "    identity.reason !== undefined,\n    identity.reason ?? '',\n", ''),
    ],
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
    patches: [
      patch(
        'tasks/cancellation.ts',
        '    const accepted = ctx.store.tasks.cancellation(current.taskId);',
        '    if (isTerminal(current.state)) return refuse(FAULT.conflict);\n    const accepted = ctx.store.tasks.cancellation(current.taskId);',
      ),
    ],
  },
  {
    name: 'input-replay-ignores-input',
    change: 'the input fingerprint leaves the input out: another answer is taken for a replay',
    bugClass: 'replay-identity',
    requirements: ['interactive-input.different-tuple-conflict'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.pending-answer-replay'],
    patches: [
      patch(
        'tasks/fingerprints.ts',
        '    MEDIA_TYPE_JSON,\n    identity.canonicalInput,\n',
        '    MEDIA_TYPE_JSON,\n',
      ),
    ],
  },
  {
    name: 'input-replay-conflict',
    change: 'an identical replay of an accepted answer gets conflict',
    bugClass: 'replay-identity',
    requirements: ['interactive-input.identical-replay'],
    profile: 'interactive-tasks',
    scenario: 'replay',
    grep: ['interactive-input.pending-answer-replay'],
    patches: [
      patch(
        'tasks/interactive-input.ts',
        '    return answer(buildInputAccepted({ taskId: stored.taskId, revision: stored.acceptedRevision }));',
        '    return refuse(FAULT.conflict);',
      ),
    ],
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
    patches: [
      edit(
        'iq/faults.ts',
        "conflict: Object.freeze({ condition: 'conflict', type: 'cancel' }),",
        "type: 'cancel'",
        "type: 'modify'",
      ),
    ],
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
    patches: [
      patch(
        'tasks/admission.ts',
        'return this.#serialized(key, () => this.#admit(candidate, parsed.value));',
        'void key;\n    return this.#admit(candidate, parsed.value);',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// race: state checks at the commit boundary

const RACE: Mutant[] = [
  {
    name: 'stale-revision-cancel-accepted',
    change: 'a cancellation naming a stale expected revision is accepted',
    bugClass: 'state-machine',
    requirements: ['cancellation.stale-revision-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.stale-revision-refused'],
    patches: [
      patch(
        'tasks/cancellation.ts',
        '    if (cancel.expectedRevision !== current.revision) return refuse(FAULT.conflict);\n',
        '',
      ),
    ],
  },
  {
    name: 'cancel-after-terminal-acknowledged',
    change: 'a cancellation of a settled task is answered <cancel-accepted/> at its final revision',
    bugClass: 'state-machine',
    requirements: ['cancellation.settled-first-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.conflict-after-terminal'],
    patches: [
      patch(
        'tasks/cancellation.ts',
        '    if (isTerminal(current.state)) return refuse(FAULT.conflict);\n    // cancellation.deadline-at-commit',
        '    if (isTerminal(current.state))\n      return answer(buildCancelAccepted({ taskId: current.taskId, revision: current.revision }));\n    // cancellation.deadline-at-commit',
      ),
    ],
  },
  {
    name: 'input-revision-unchecked',
    change: 'an answer naming a stale expected revision is accepted',
    bugClass: 'state-machine',
    requirements: ['interactive-input.race-loser-conflict'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['interactive-input'],
    patches: [
      patch(
        'tasks/interactive-input.ts',
        'if (current.pendingInputId !== record.requestId || request.expectedRevision !== current.revision) {',
        'if (current.pendingInputId !== record.requestId) {',
      ),
    ],
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
    patches: [
      patch(
        'tasks/interactive-input.ts',
        '      record.expiresAt !== undefined &&\n      isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(record.expiresAt))',
        '      record.expiresAt === null &&\n      isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(record.expiresAt))',
      ),
      patch(
        'tasks/interactive-input.ts',
        '  live.inputTimer = ctx.clock.setTimer(delay, () => {',
        '  live.inputTimer = ctx.clock.setTimer(delay + 1500, () => {',
      ),
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
    patches: [
      patch(
        'tasks/cancellation.ts',
        "    if (superseded !== undefined) {\n      ctx.store.tasks.closeInputRequest(current.taskId, superseded, 'superseded');\n    }\n",
        '',
      ),
    ],
  },
  {
    name: 'terminal-state-mutable',
    change: 'a settled task still takes the runtime’s output: a late completion replaces cancelled',
    bugClass: 'state-machine',
    requirements: ['task-states.terminal-immutable', 'cancellation.output-after-cancelled-discarded'],
    profile: 'interactive-tasks',
    scenario: 'race',
    grep: ['cancellation.output-after-cancelled-discarded'],
    patches: [
      patch(
        'protocol/task-states.ts',
        '  if (isTerminal(from)) return undefined;\n  return TRANSITIONS',
        '  return TRANSITIONS',
      ),
      patch(
        'protocol/task-states.ts',
        'return TRANSITIONS.find((rule) => rule.to === to && rule.from.includes(from));',
        "return TRANSITIONS.find((rule) => rule.to === to && (rule.from.includes(from) || (isTerminal(from) && rule.from.includes('running'))));",
      ),
      patch(
        'tasks/task-actions.ts',
        "    if (task === undefined || isTerminal(task.state)) return refused('settled');",
        "    if (task === undefined) return refused('settled');",
      ),
      patch(
        'tasks/task-actions.ts',
        "    async complete(result: ToolResult, summary?: string): Promise<ActionResult> {\n      if (live.settled.signal.aborted) return refused('settled');",
        '    async complete(result: ToolResult, summary?: string): Promise<ActionResult> {',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// rsm-order: the defined orders of result sets

const utf16 = (a: string, b: string): string => `(${a} < ${b} ? -1 : ${a} > ${b} ? 1 : 0)`;

const RSM_ORDER: Mutant[] = [
  {
    name: 'directory-utf16-order',
    change: 'the directory sorts JIDs by UTF-16 code units instead of UTF-8 octets',
    bugClass: 'ordering',
    requirements: ['list-agents.octet-order'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.octet-order', 'list-agents.rsm-random-paths'],
    patches: [
      patch(
        'discovery/endpoint-order.ts',
        'return endpoints.toSorted((a, b) => compareUtf8(a.jid, b.jid));',
        `return endpoints.toSorted((a, b) => ${utf16('a.jid', 'b.jid')});`,
      ),
      patch(
        'discovery/endpoint-order.ts',
        '(endpoint) => compareUtf8(endpoint.jid, key)',
        `(endpoint) => ${utf16('endpoint.jid', 'key')}`,
      ),
    ],
  },
  {
    name: 'directory-collation-order',
    change: 'the directory sorts JIDs with localeCompare (collation, not octets)',
    bugClass: 'ordering',
    requirements: ['list-agents.octet-order'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.octet-order'],
    patches: [
      patch(
        'discovery/endpoint-order.ts',
        'return endpoints.toSorted((a, b) => compareUtf8(a.jid, b.jid));',
        'return endpoints.toSorted((a, b) => a.jid.localeCompare(b.jid));',
      ),
    ],
  },
  {
    name: 'tools-utf16-order',
    change: 'tool collections sort names by UTF-16 code units instead of UTF-8 octets',
    bugClass: 'ordering',
    requirements: ['list-tools.name-byte-order'],
    profile: 'tool-discovery',
    scenario: 'rsm-order',
    grep: ['list-tools.name-byte-order', 'list-tools.rsm-random-paths'],
    patches: [
      patch(
        'discovery/tool-collection.ts',
        'items: tools.toSorted((a, b) => compareUtf8(a.name, b.name)),',
        `items: tools.toSorted((a, b) => ${utf16('a.name', 'b.name')}),`,
      ),
      patch(
        'discovery/tool-collection.ts',
        'return (tool) => compareUtf8(tool.name, toolName);',
        `return (tool) => ${utf16('tool.name', 'toolName')};`,
      ),
    ],
  },
  {
    name: 'search-results-reversed',
    change: 'search results come in descending JID order',
    bugClass: 'ordering',
    requirements: ['search.octet-order'],
    profile: 'jabber-search',
    scenario: 'rsm-order',
    grep: ['search.octet-order'],
    patches: [
      patch(
        'discovery/search.ts',
        'const matches = byJidOctets(catalog.visibleEndpoints(requester)).filter(searchMatcher(criteria));',
        'const matches = byJidOctets(catalog.visibleEndpoints(requester)).filter(searchMatcher(criteria)).reverse();',
      ),
    ],
  },
  {
    name: 'rsm-index-off-by-one',
    change: '<index/> starts the page one item late',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.index'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        'const start = Math.min(request.index, total);',
        'request.index',
        'request.index + 1',
      ),
    ],
  },
  {
    name: 'rsm-after-inclusive',
    change: 'a page after a UID starts with the UID’s own item',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.rsm-random-paths'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        'const start = firstIndex(set.items, (item) => position(item) > 0);',
        '> 0',
        '>= 0',
      ),
    ],
  },
  {
    name: 'rsm-before-overlaps',
    change: 'a page before a UID ends with the UID’s own item',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.before-pages-backward'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        'end = firstIndex(set.items, (item) => position(item) >= 0);',
        '>= 0',
        '> 0',
      ),
    ],
  },
  {
    name: 'rsm-first-index-zero',
    change: 'first@index is always 0',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.index', 'list-agents.rsm-random-paths'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        'first: { uid: set.uidOf(first), index: start }',
        'index: start',
        'index: 0',
      ),
    ],
  },
  {
    name: 'rsm-count-of-page',
    change: '<count/> reports the page’s length instead of the set’s',
    bugClass: 'rsm-validation',
    requirements: ['list-agents.count-visible-only', 'list-agents.rsm-paging'],
    profile: 'core-directory',
    scenario: 'rsm-order',
    grep: ['list-agents.count-visible-only', 'list-agents.rsm-random-paths'],
    patches: [
      edit(
        'discovery/rsm-paging.ts',
        '  const count = set.items.length;\n  const [first]',
        'set.items.length',
        'items.length',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// schema-hash: canonical bytes and the hashes that name them

/** RFC 8785 with member names in code point (UTF-8) order instead of UTF-16 code unit order. */
const CODE_POINT_CANONICAL = `export function canonicalJson(value: JsonValue): string {
  // Mutant: member names sorted by code point, not by UTF-16 code units (RFC 8785 §3.2.3).
  const write = (item: unknown): string => {
    if (item === null || typeof item !== 'object') {
      const text = canonicalize(item as JsonValue);
      if (text === undefined) throw new TypeError('value has no JSON serialization');
      return text;
    }
    if (Array.isArray(item)) return '[' + item.map(write).join(',') + ']';
    const record = item as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    return '{' + names.map((name) => JSON.stringify(name) + ':' + write(record[name])).join(',') + '}';
  };
  return write(value);
}`;

const SCHEMA_HASH: Mutant[] = [
  {
    name: 'canonical-code-point-order',
    change: 'canonical JSON orders member names by code point instead of UTF-16 code units',
    bugClass: 'canonical-json',
    requirements: ['manifest-retrieval.canonical-bytes', 'registration-flow.ijson-before-hash'],
    profile: 'self-registration',
    scenario: 'schema-hash',
    grep: ['canonical-json.registered-literal-vectors', 'manifest-retrieval.canonical-key-order'],
    patches: [
      patch(
        'protocol/json/canonical.ts',
        `export function canonicalJson(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON serialization');
  return text;
}`,
        CODE_POINT_CANONICAL,
      ),
    ],
  },
  {
    name: 'served-manifest-reindented',
    change: '<manifest/> serves the document re-indented instead of its canonical bytes',
    bugClass: 'canonical-json',
    requirements: ['manifest-retrieval.canonical-bytes'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['manifest-retrieval.active-local'],
    patches: [
      patch(
        'discovery/manifest-retrieval.ts',
        "json: record.document.bytes.toString('utf8'),",
        "json: JSON.stringify(JSON.parse(record.document.bytes.toString('utf8')), null, 1),",
      ),
    ],
  },
  {
    name: 'served-schema-keys-reversed',
    change: '<schema/> serves the schema with its top-level members in reverse order',
    bugClass: 'canonical-json',
    requirements: ['schemas.canonical-bytes'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['schemas.canonical-bytes-local'],
    patches: [
      patch(
        'discovery/schema-retrieval.ts',
        "json: schema.bytes.toString('utf8'),",
        "json: JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(schema.bytes.toString('utf8')) as object).reverse())),",
      ),
    ],
  },
  {
    name: 'schema-stale-hash-served',
    change: 'a schema request with a stale manifest hash is served',
    bugClass: 'schema-hash',
    requirements: ['schemas.stale-hash-conflict'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['schemas.stale-hash-conflict'],
    patches: [
      edit(
        'discovery/schema-retrieval.ts',
        'if (!isSha256(request.manifestHash) || !sameHash(request.manifestHash, record.document.hash)) {',
        ' || !sameHash(request.manifestHash, record.document.hash)',
        '',
      ),
    ],
  },
  {
    name: 'invoke-stale-hash-admitted',
    change: 'an invocation pinned to another manifest hash of the active version is admitted',
    bugClass: 'schema-hash',
    requirements: ['invocation.pin-before-admission', 'rules.version-pinning'],
    profile: 'task-execution',
    scenario: 'schema-hash',
    grep: ['rules.version-pinning', 'invocation.validity-after-authorization'],
    patches: [
      edit(
        'tasks/admission.ts',
        'if (active !== invoke.apiVersion || !sameHash(invoke.manifestHash, pinned.version.hash)) {',
        ' || !sameHash(invoke.manifestHash, pinned.version.hash)',
        '',
      ),
    ],
  },
  {
    name: 'endpoint-hash-of-pretty-bytes',
    change: 'manifest_hash_value hashes the indented document, not the canonical bytes',
    bugClass: 'schema-hash',
    requirements: ['endpoint-info.manifest-hash-fields'],
    profile: 'core-directory',
    scenario: 'schema-hash',
    grep: ['endpoint-info.manifest-hash-fields', 'canonical-json.spec-example-endpoint-hash'],
    patches: [
      patch(
        'discovery/endpoint-info.ts',
        "textSingle('manifest_hash_value', active.document.hash.value),",
        "textSingle('manifest_hash_value', createHash('sha256').update(JSON.stringify(JSON.parse(active.document.bytes.toString('utf8')), null, 2)).digest('base64')),",
      ),
      patch(
        'discovery/endpoint-info.ts',
        "import { encodeCollectionNode } from '../../protocol/tool-node.ts';",
        "import { encodeCollectionNode } from '../../protocol/tool-node.ts';\nimport { createHash } from 'node:crypto';",
      ),
    ],
  },
  {
    name: 'tool-info-input-hash-of-output',
    change: 'input_schema_hash_value reports the output schema’s hash where the tool has one',
    bugClass: 'schema-hash',
    requirements: ['tool-info.required-fields'],
    profile: 'tool-discovery',
    scenario: 'schema-hash',
    grep: ['tool-info.required-fields', 'schemas.canonical-bytes-local'],
    patches: [
      patch(
        'discovery/tool-info.ts',
        "textSingle('input_schema_hash_value', tool.inputSchema.hash.value),",
        "textSingle('input_schema_hash_value', (output ?? tool.inputSchema).hash.value),",
      ),
    ],
  },
  {
    name: 'tombstone-ignored',
    change: 'a removed version can be registered again with other content',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.tombstone-conflict'],
    profile: 'admin-provisioning',
    scenario: 'schema-hash',
    grep: ['registration-flow.tombstone-conflict'],
    patches: [
      edit(
        'registration/registry.ts',
        'if (tombstone !== undefined && tombstone.hash.value !== document.hash.value) {',
        'tombstone !== undefined',
        'tombstone === null',
      ),
    ],
  },
  {
    name: 'version-conflict-reported-unchanged',
    change: 'registering other content under an existing version reports success and keeps the old content',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.version-immutable'],
    profile: 'self-registration',
    scenario: 'schema-hash',
    grep: ['registration-flow.version-immutable'],
    patches: [
      patch(
        'registration/registry.ts',
        "          : refuse('version-conflict');",
        "          : succeed({ registered, effect: 'unchanged' as const });",
      ),
    ],
  },
  {
    name: 'activate-ignores-hash',
    change: 'activation does not check the hash names the registered version',
    bugClass: 'schema-hash',
    requirements: ['registration-flow.admin-operations'],
    profile: 'admin-provisioning',
    scenario: 'schema-hash',
    grep: ['registration-flow.admin-lifecycle'],
    patches: [
      patch(
        'registration/registry.ts',
        "      if (hash.algo !== stored.hash.algo || hash.value !== stored.hash.value) return refuse('hash-mismatch');\n",
        '',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// crash: durability and at-most-once execution across a restart

const CRASH: Mutant[] = [
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
    patches: [
      patch(
        'tasks/group-commit.ts',
        '    this.#store.afterDurable(() => {\n      for (const rider of riders) rider.committed();',
        '    ((run: () => void) => {\n      run();\n    })(() => {\n      for (const rider of riders) rider.committed();',
      ),
    ],
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
    patches: [
      patch(
        'tasks/group-commit.ts',
        '      setImmediate(() => {\n        this.#flush();\n      });',
        '      setTimeout(() => {\n        this.#flush();\n      }, 400);',
      ),
      patch(
        'tasks/admission.ts',
        "    const taskId = generateIdentifier('task-');\n    ctx.store.tasks.insertTask({\n      taskId,",
        "    const taskId = candidate.earlyTaskId ?? generateIdentifier('task-');\n    ctx.store.tasks.insertTask({\n      taskId,",
      ),
      patch(
        'tasks/admission.ts',
        '    // invocation.durable-before-accepted: <accepted/> only once the task, its replay record and the\n    // version reference are committed to disk.\n    const committed = await this.#committer.submit(',
        "    // Mutant: <accepted/> leaves before the commit.\n    const earlyTaskId = generateIdentifier('task-');\n    (candidate as { earlyTaskId?: string }).earlyTaskId = earlyTaskId;\n    const earlyMs = ctx.clock.now();\n    const earlyDeadline = effectiveDeadline(earlyMs, candidate.invoke.deadline, candidate.pinned.extension, ctx.limits.maxTaskDurationSeconds);\n    const earlyRetain = dateTimeFromMillis(toEpochMillis(parseDateTime(earlyDeadline)) + ctx.limits.retentionSeconds * 1000).text;\n    const later = this.#committer.submit(",
      ),
      patch(
        'tasks/admission.ts',
        '    if (committed.admitted !== undefined) {\n      const { taskId, deadline } = committed.admitted;\n      if (deadline !== undefined) ctx.armDeadline(taskId, deadline);\n      ctx.dispatch(taskId);\n    }\n    return committed.outcome;',
        '    void later.then((committed) => {\n      if (committed.admitted === undefined) return;\n      const { taskId, deadline } = committed.admitted;\n      if (deadline !== undefined) ctx.armDeadline(taskId, deadline);\n      ctx.dispatch(taskId);\n    });\n    return answer(buildAccepted({ requestId: candidate.invoke.requestId, taskId: earlyTaskId, revision: 0, created: dateTimeFromMillis(earlyMs), retainUntil: parseDateTime(earlyRetain) }));',
      ),
      patch(
        'tasks/admission.ts',
        'interface Candidate {\n',
        'interface Candidate {\n  readonly earlyTaskId?: string;\n',
      ),
    ],
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
    patches: [
      patch(
        'tasks/crash-recovery.ts',
        '    if (task.dispatchedAt === undefined) {',
        '    if (task.dispatchedAt === undefined || task.dispatchedAt !== undefined) {',
      ),
      patch(
        'tasks/execution.ts',
        'if (task === undefined || isTerminal(task.state) || task.dispatchedAt !== undefined) return undefined;',
        'if (task === undefined || isTerminal(task.state)) return undefined;',
      ),
      patch(
        'tasks/execution.ts',
        '  ctx.store.tasks.markDispatched(task.taskId, nowText(ctx));\n  return appendEvent(',
        "  ctx.store.tasks.markDispatched(task.taskId, nowText(ctx));\n  if (task.state === 'running') return task;\n  return appendEvent(",
      ),
    ],
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
    patches: [
      patch(
        'tasks/crash-recovery.ts',
        "      if (current.state === 'cancelling') settle(ctx, effects, current, 'cancelled', {});\n      else settle(",
        '      settle(',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// link-fault: delivery, routing and re-sends of lifecycle messages

const LINK_FAULT: Mutant[] = [
  {
    name: 'resend-fresh-event-ids',
    change: 'events re-sent after the link came back carry new event IDs',
    bugClass: 'event-identity',
    requirements: ['events.replay-identical'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.component-link-cut'],
    patches: [
      patch(
        'tasks/task-engine.ts',
        '    for (const event of events) this.#ctx.deliver(eventMessage(task, event));\n    return events.length;',
        "    for (const event of events) this.#ctx.deliver(eventMessage(task, { ...event, eventId: generateIdentifier('evt-') }));\n    return events.length;",
      ),
      patch(
        'tasks/task-engine.ts',
        "import { FAULT } from '../iq/faults.ts';",
        "import { FAULT } from '../iq/faults.ts';\nimport { generateIdentifier } from '../../protocol/identifiers.ts';",
      ),
    ],
  },
  {
    name: 'bounce-resend-fresh-event-ids',
    change: 'events re-sent to the bare JID after a bounce carry new event IDs',
    bugClass: 'event-identity',
    requirements: ['events.replay-identical'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.component-link-cut'],
    patches: [
      patch(
        'tasks/task-engine.ts',
        '    for (const event of events) this.#ctx.deliver(eventMessage(route, event));',
        "    for (const event of events) this.#ctx.deliver(eventMessage(route, { ...event, eventId: generateIdentifier('evt-') }));",
      ),
      patch(
        'tasks/task-engine.ts',
        "import { FAULT } from '../iq/faults.ts';",
        "import { FAULT } from '../iq/faults.ts';\nimport { generateIdentifier } from '../../protocol/identifiers.ts';",
      ),
    ],
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
    patches: [
      patch(
        'component/task-wiring.ts',
        '  bounced(message: Element): void {\n    if (this.#closed) return;',
        '  bounced(message: Element): void {\n    if (message.attrs !== null) return;',
      ),
    ],
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
    patches: [
      patch(
        'tasks/event-delivery.ts',
        '{ from: task.endpointJid, to: task.notifyJid, id: event.eventId },',
        "{ from: task.endpointJid, to: task.notifyJid.split('/')[0] ?? task.notifyJid, id: event.eventId },",
      ),
    ],
  },
  {
    name: 'events-no-copy-hint',
    change: 'lifecycle messages carry a no-copy processing hint',
    bugClass: 'routing',
    requirements: ['task-message-routing.no-no-copy-hint'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['task-message-routing.no-no-copy-hint'],
    patches: [
      patch('tasks/event-delivery.ts', '  return buildLifecycleMessage(\n', '  const message = withHint(\n'),
      patch(
        'tasks/event-delivery.ts',
        '      json: event.payloadJson,\n    },\n  );\n}',
        "      json: event.payloadJson,\n    },\n  );\n  return message;\n}\n\nfunction withHint(envelope: Parameters<typeof buildLifecycleMessage>[0], body: Parameters<typeof buildLifecycleMessage>[1]): Element {\n  const message = buildLifecycleMessage(envelope, body);\n  message.c('no-copy', { xmlns: 'urn:xmpp:hints' });\n  return message;\n}",
      ),
    ],
  },
  {
    name: 'events-from-gateway-domain',
    change: 'lifecycle messages come from the gateway’s domain instead of the endpoint JID',
    bugClass: 'routing',
    requirements: ['security.no-sender-spoofing'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['events.revisions-one-per-commit', 'security.output-is-data-not-routing'],
    patches: [
      patch(
        'tasks/event-delivery.ts',
        '{ from: task.endpointJid, to: task.notifyJid, id: event.eventId },',
        "{ from: task.endpointJid.slice(task.endpointJid.indexOf('@') + 1), to: task.notifyJid, id: event.eventId },",
      ),
    ],
  },
  {
    name: 'results-sent-twice',
    change: 'every IQ result is written twice',
    bugClass: 'reply-count',
    requirements: ['errors.one-reply-per-iq'],
    profile: 'core-directory',
    scenario: 'link-fault',
    grep: ['gateway-info.identity-local'],
    patches: [
      patch(
        'component/gateway-component.ts',
        "    await this.#write(serialize(reply));\n    this.#emit('reply');",
        "    await this.#write(serialize(reply));\n    await this.#write(serialize(reply));\n    this.#emit('reply');",
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// task engine: states, revisions, identifiers, deadlines, capacity, features

const TASKS: Mutant[] = [
  {
    name: 'sequential-task-ids',
    change: 'task IDs are a counter padded to 22 characters',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifiers-unpredictable'],
    patches: [
      patch(
        'protocol/identifiers.ts',
        "const id = prefix + randomSlice().toString('base64url');",
        "const id = prefix + String(++sequence).padStart(24, '0');",
      ),
      patch(
        'protocol/identifiers.ts',
        'let poolOffset = POOL_BYTES;',
        'let poolOffset = POOL_BYTES;\nlet sequence = Date.now();',
      ),
    ],
  },
  {
    name: 'low-entropy-task-ids',
    change: 'identifiers carry 32 random bits padded with a fixed text to 24 characters',
    bugClass: 'predictable-id',
    requirements: ['invocation.identifier-unpredictability'],
    profile: 'task-execution',
    scenario: 'equivalence',
    grep: ['invocation.identifiers-unpredictable'],
    patches: [
      patch(
        'protocol/identifiers.ts',
        "const id = prefix + randomSlice().toString('base64url');",
        "const id = prefix + 'AAAAAAAAAAAAAAAAAA' + randomSlice().subarray(0, 4).toString('base64url');",
      ),
    ],
  },
  {
    name: 'result-available-always',
    change: 'task-state says result-available for tasks that are not terminal',
    bugClass: 'state-machine',
    requirements: ['task-recovery.result-availability'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-states.states-and-transitions', 'task-recovery.state-and-result-from-sibling'],
    patches: [
      patch('tasks/recovery.ts', 'resultAvailable: isTerminal(task.state),', 'resultAvailable: true,'),
    ],
  },
  {
    name: 'running-reported-accepted',
    change: 'task-state reports a running task as accepted',
    bugClass: 'state-machine',
    requirements: ['task-recovery.state-contents'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-states.states-and-transitions'],
    patches: [
      patch(
        'tasks/recovery.ts',
        '      endpoint: task.endpointJid,\n      state: task.state,',
        "      endpoint: task.endpointJid,\n      state: task.state === 'running' ? 'accepted' : task.state,",
      ),
    ],
  },
  {
    name: 'result-of-running-not-found',
    change: 'task-result of a non-terminal task answers item-not-found instead of unexpected-request',
    bugClass: 'error-type',
    requirements: ['task-recovery.result-only-terminal'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['task-recovery.result-only-terminal'],
    patches: [
      edit(
        'tasks/recovery.ts',
        'if (!isTerminal(task.state) || task.resultJson === undefined) return refuse(FAULT.unexpectedRequest);',
        'FAULT.unexpectedRequest',
        'FAULT.itemNotFound',
      ),
    ],
  },
  {
    name: 'progress-skips-a-revision',
    change: 'each progress update raises the revision by two',
    bugClass: 'event-identity',
    requirements: ['events.revision-increments'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.revisions-one-per-commit'],
    patches: [
      patch(
        'tasks/transitions.ts',
        'const revision = task.revision + 1;',
        "const revision = task.revision + (change.type === 'progress' ? 2 : 1);",
      ),
    ],
  },
  {
    name: 'event-id-per-task',
    change: 'every event of a task carries the same event ID',
    bugClass: 'event-identity',
    requirements: ['events.revision-increments'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.revisions-one-per-commit'],
    patches: [
      patch('tasks/transitions.ts', "eventId: generateIdentifier('evt-'),", 'eventId: `evt-${task.taskId}`,'),
    ],
  },
  {
    name: 'iserror-settles-failed',
    change: 'a tool result with isError true is settled failed instead of completed',
    bugClass: 'state-machine',
    requirements: ['events.iserror-is-completed'],
    profile: 'task-execution',
    scenario: 'replay',
    grep: ['events.iserror-is-completed'],
    patches: [
      patch(
        'tasks/task-actions.ts',
        "        settle(ctx, effects, current, 'completed', payload);",
        "        if (result.isError === true) settle(ctx, effects, current, 'failed', { error: { code: 'tool-error', message: 'The tool reported an error.', retryable: false } });\n        else settle(ctx, effects, current, 'completed', payload);",
      ),
    ],
  },
  {
    name: 'requested-deadline-ignored',
    change: 'the caller’s deadline is replaced by the tool’s maximum',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-expiry', 'cancellation.deadline-instants'],
    patches: [
      patch(
        'tasks/admission.ts',
        'return compareInstants(requested, ceiling) <= 0 ? requested.text : ceiling.text;',
        'return compareInstants(requested, ceiling) <= 0 ? ceiling.text : ceiling.text;',
      ),
    ],
  },
  {
    name: 'deadline-timer-never-armed',
    change: 'no deadline timer: a deadline is only noticed at the next commit boundary',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-expiry'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-expiry'],
    patches: [
      patch(
        'tasks/deadlines.ts',
        '  live.deadlineTimer = ctx.clock.setTimer(delay, () => {\n    onDeadlineTimer(ctx, taskId, deadline);\n  });',
        '  void delay;',
      ),
    ],
  },
  {
    name: 'past-deadline-admitted',
    change: 'an invocation whose deadline has passed is admitted (and fails at dispatch)',
    bugClass: 'deadline',
    requirements: ['cancellation.deadline-at-commit'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['invocation.deadline-refusals'],
    patches: [
      edit(
        'tasks/admission.ts',
        'if (invoke.deadline !== undefined && isAtOrAfter(nowDateTime(ctx.clock), invoke.deadline)) {',
        'invoke.deadline !== undefined',
        'invoke.deadline === null',
      ),
    ],
  },
  {
    name: 'deadline-whole-seconds',
    change: 'deadlines compare at whole-second resolution (fractions ignored)',
    bugClass: 'deadline',
    requirements: ['cancellation.exact-instant-comparison'],
    profile: 'task-execution',
    scenario: 'race',
    grep: ['cancellation.deadline-instants', 'cancellation.deadline-expiry'],
    patches: [
      patch(
        'tasks/deadlines.ts',
        'return deadline !== undefined && isAtOrAfter(nowDateTime(ctx.clock), parseDateTime(deadline));',
        'return deadline !== undefined && Math.floor(ctx.clock.now() / 1000) * 1000 >= toEpochMillis(parseDateTime(deadline));',
      ),
    ],
  },
  {
    name: 'task-capacity-unbounded',
    change: 'no bound on active tasks, in all or per caller',
    bugClass: 'capacity',
    requirements: ['rules.resource-bounds'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['rules.task-capacity'],
    patches: [
      patch(
        'tasks/admission.ts',
        'return total >= limits.maxActiveTasks || mine >= perCaller;',
        'return total < 0 && mine < 0;',
      ),
    ],
  },
  {
    name: 'rate-limits-never-bite',
    change: 'the token buckets never run out: no rate limit anywhere',
    bugClass: 'rate-limit',
    requirements: ['security.rate-limits'],
    profile: 'core-directory',
    scenario: 'bad-input',
    grep: ['security.rate-limit-enforced'],
    patches: [
      patch(
        'policy/rate-limiter.ts',
        '    if (bucket.tokens >= 1) {',
        '    if (bucket.tokens >= -Infinity) {',
      ),
    ],
  },
  {
    name: 'removal-ignores-retained-tasks',
    change: 'a version (or endpoint) retained by a task can be removed',
    bugClass: 'retention',
    requirements: ['registration-flow.removal-blocked-by-tasks'],
    profile: 'admin-provisioning',
    scenario: 'race',
    grep: ['registration-flow.removal-blocked-by-task'],
    patches: [
      patch(
        'registration/registry.ts',
        "      if (tables.isRetained(jid, version)) return refuse('version-retained');\n",
        '',
      ),
      patch(
        'registration/registry.ts',
        "      if (tables.retainedVersions(jid).size > 0) return refuse('endpoint-retained');\n",
        '',
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// discovery and advertising: what is claimed and what is implemented

const ADVERTISING: Mutant[] = [
  {
    name: 'cancel-off-while-claimed',
    change: 'the engine neither implements nor advertises #cancel; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: ['conformance.no-false-advertising'],
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['cancellation.stale-revision-refused'],
    patches: [edit('component/task-wiring.ts', TASK_FEATURES_LINE, 'cancel: true', 'cancel: false')],
  },
  {
    name: 'progress-off-while-claimed',
    change: 'the engine neither implements nor advertises #progress; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: ['conformance.no-false-advertising'],
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['events.progress-percent-range'],
    patches: [edit('component/task-wiring.ts', TASK_FEATURES_LINE, 'progress: true', 'progress: false')],
  },
  {
    name: 'input-off-while-claimed',
    change: 'the engine neither implements nor advertises #input; Interactive Tasks still claimed',
    bugClass: 'false-advertising',
    requirements: ['conformance.no-false-advertising'],
    profile: 'interactive-tasks',
    scenario: 'equivalence',
    grep: ['interactive-input.pending-answer-replay'],
    patches: [edit('component/task-wiring.ts', TASK_FEATURES_LINE, 'input: true', 'input: false')],
  },
  {
    name: 'tool-features-undeclared',
    change: 'tool nodes advertise every endpoint task feature whether or not the tool declares it',
    bugClass: 'false-advertising',
    requirements: ['manifest.endpoint-features-prevail', 'conformance.no-false-advertising'],
    profile: 'tool-discovery',
    scenario: 'equivalence',
    grep: ['tool-info.disco-info-local'],
    patches: [
      patch(
        'discovery/tool-info.ts',
        '...(progress && declared.supportsProgress === true ? [FEATURE.taskProgress] : []),',
        '...(progress ? [FEATURE.taskProgress] : []),',
      ),
    ],
  },
  {
    name: 'search-not-advertised',
    change: 'search is implemented but jabber:iq:search is not advertised',
    bugClass: 'false-advertising',
    requirements: ['search.advertised-and-implemented'],
    profile: 'jabber-search',
    scenario: 'equivalence',
    grep: ['search.advertised-and-paged', 'gateway-info.claimed-profiles-advertised'],
    patches: [
      patch(
        'discovery/gateway-info.ts',
        '...(settings.searchEnabled ? [NS.search, NS.dataForms] : []),',
        '...(settings.searchEnabled ? [NS.dataForms] : []),',
      ),
    ],
  },
  {
    name: 'admin-not-advertised',
    change: '#admin is implemented but not advertised',
    bugClass: 'false-advertising',
    requirements: ['gateway-info.features'],
    profile: 'admin-provisioning',
    scenario: 'equivalence',
    grep: ['gateway-info.claimed-profiles-advertised'],
    patches: [patch('discovery/gateway-info.ts', '    ...(admin ? [FEATURE.admin] : []),\n', '')],
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
    patches: [
      patch(
        'discovery/search-match.ts',
        "return text.normalize('NFC').toLowerCase().normalize('NFC');",
        "return text.normalize('NFC').toLocaleLowerCase(process.env['LC_ALL']?.split('.')[0]?.replace('_', '-')).normalize('NFC');",
      ),
    ],
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
    patches: [
      patch(
        'discovery/search-match.ts',
        "return text.normalize('NFC').toLowerCase().normalize('NFC');",
        "return text.normalize('NFC');",
      ),
    ],
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
    patches: [
      patch(
        'protocol/jid/jid.ts',
        "return part.normalize('NFC').toLowerCase();",
        "return part.normalize('NFC').toLocaleLowerCase(process.env['LC_ALL']?.split('.')[0]?.replace('_', '-'));",
      ),
    ],
  },
  {
    name: 'legacy-nick-search-refused',
    change: 'a legacy search that fills <nick/> is refused',
    bugClass: 'input-validation',
    requirements: ['search.legacy-nick'],
    profile: 'jabber-search',
    scenario: 'bad-input',
    grep: ['search.legacy-nick'],
    patches: [
      patch(
        'discovery/search.ts',
        '  const { nick, ...others } = fields;\n',
        "  const { nick, ...others } = fields;\n  if (nick !== undefined && nick !== '') return undefined;\n",
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Human Messaging: blocking and the chat/task separation (issue 16; the same patches as the
// verdict proofs in integration/verdict-proofs-messaging.test.ts)

const MESSAGING: Mutant[] = [
  {
    ...ASSUMES_SERVER_BLOCKING,
    bugClass: 'access-control',
    requirements: ['security.honor-blocking', 'security.no-assumed-server-blocking'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.blocked-'],
  },
  {
    ...CHAT_REPLY_AS_TASK,
    bugClass: 'routing',
    requirements: ['messaging.chat-not-task'],
    profile: 'human-messaging',
    scenario: 'equivalence',
    grep: ['messaging.chat-answer-stays-chat'],
  },
];

export const MUTANTS: readonly Mutant[] = [
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
];
