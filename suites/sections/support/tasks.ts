/**
 * What the task suites share: the conformance endpoint of the fixture world (its pins taken
 * from the fixture file, never from the gateway), invocations of its scripted tools
 * (docs/conformance-tools.md), the lifecycle events of one task checked as they are read
 * (#events, #event-json-schemas, #task-states), recovery and command IQs, the ledger counter,
 * gating on the task features a tool advertises (never for a feature a claim requires), tasks
 * held running by a `wait` step, the gateway's clock as measured from the times it reports,
 * and further versions of the conformance endpoint for cases that move its active pointer
 * (administrator access).
 */
import { xml, type Element } from '@xmpp/xml';
import {
  WaitTimeout,
  type Caller,
  type IqExchange,
  type ReceivedTaskEvent,
  type ValidTaskEvent,
} from '../../../harness/driver/index.ts';
import {
  dateTimeFromMillis,
  parseDateTime,
  toEpochMillis,
  type XmppDateTime,
} from '../../../protocol/datetime.ts';
import { validateEventPayload } from '../../../protocol/events/index.ts';
import { isIdentifier } from '../../../protocol/identifiers.ts';
import { canonicalDocument, canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { FEATURE, NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import {
  buildCancel,
  buildInvoke,
  buildProvideInput,
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseAccepted,
  parseCancelAccepted,
  parseInputAccepted,
  parseTaskResult,
  parseTaskState,
  type Accepted,
  type CancelAccepted,
  type Hash,
  type InputAccepted,
  type Invoke,
  type TaskResult,
  type TaskState,
} from '../../../protocol/stanza/index.ts';
import { PROFILE_TITLES } from '../../../protocol/profiles.ts';
import {
  findTransition,
  isTaskState,
  isTerminal,
  TERMINAL_STATES,
  type TaskState as TaskStateName,
} from '../../../protocol/task-states.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectDiscoInfo, expectThat, expectParsedResult } from '../../framework/expect.ts';
import { PROFILE_REQUIRED_FEATURES } from '../../framework/preflight.ts';
import { CannotTell, MissingFixture, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld, type FixtureEndpoint, type FixtureManifest } from '../../fixtures/reference-world.ts';
import { discoInfo } from './discovery.ts';
import type { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/** An endpoint and version a task is pinned to: the exact pins an invocation carries. */
export interface TaskTarget {
  readonly jid: string;
  readonly version: string;
  readonly hash: Hash;
  readonly manifest: FixtureManifest;
}

export function targetOf(endpoint: FixtureEndpoint, manifest?: FixtureManifest): TaskTarget {
  const pinned = manifest ?? endpoint.active;
  if (pinned === undefined) {
    throw new MissingFixture(
      `the fixture world gives ${endpoint.jid} no active version to pin: activate one in the world file`,
    );
  }
  return { jid: endpoint.jid, version: pinned.version, hash: pinned.document.hash, manifest: pinned };
}

/** The conformance tools' endpoint (docs/conformance-tools.md): the one with `script` and `counter`. */
export function conformanceTarget(context: CaseContext): TaskTarget {
  const world = requireWorld(context);
  const endpoint = world.conformanceEndpoint();
  if (endpoint === undefined) {
    throw new MissingFixture(
      `the fixture world (${world.source}) hosts no conformance tools: give an endpoint the manifest fixtures/manifests/conformance.json and host its tools (docs/conformance-tools.md, "Hosting the tools in another gateway")`,
    );
  }
  // With admin-iq fixtures, who executes the tools is on the operator checklist.
  world.requireConfirmed(`runtime:${endpoint.jid}`);
  if (!world.mayInvoke('local', endpoint, 'script')) {
    throw new MissingFixture(
      `the local caller (${world.jidOf('local')}) may not invoke the conformance tools in ${world.source}: grant it, or its domain, invocation of ${endpoint.jid}`,
    );
  }
  return targetOf(endpoint);
}

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

/** A fresh request ID (#invocation grammar), reproducible from the case seed. */
export function freshRequestId(context: CaseContext): string {
  return context.random.string(UNRESERVED, 32);
}

/** A ledger key no other case or run uses (keys are global to the gateway). */
export function freshLedgerKey(context: CaseContext, label: string): string {
  return `${label}:${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 16)}`;
}

/** A date-time `offsetMs` from now on this machine's clock (the federation runs here too). */
export function instantFromNow(offsetMs: number): XmppDateTime {
  return dateTimeFromMillis(Date.now() + offsetMs);
}

export interface InvokeOptions {
  readonly requestId?: string;
  readonly deadline?: XmppDateTime;
  readonly apiVersion?: string;
  readonly hash?: Hash;
  /** The <arguments/> text as sent; default: the arguments in compact JSON. */
  readonly argumentsJson?: string;
}

export interface SentInvoke {
  readonly invoke: Invoke;
  readonly exchange: IqExchange;
}

export async function sendInvoke(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  tool: string,
  args: JsonValue,
  options: InvokeOptions = {},
): Promise<SentInvoke> {
  const invoke: Invoke = {
    requestId: options.requestId ?? freshRequestId(context),
    tool,
    apiVersion: options.apiVersion ?? target.version,
    manifestHash: options.hash ?? target.hash,
    argumentsJson: options.argumentsJson ?? JSON.stringify(args),
    ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
  };
  const exchange = await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
  return { invoke, exchange };
}

/**
 * The reply must be a durable admission: <accepted/> echoing the request ID, revision 0, a task
 * ID of the identifier grammar, and a retention promise no earlier than the creation (#invocation).
 */
export function expectAccepted(exchange: IqExchange, requirement: RequirementId, invoke: Invoke): Accepted {
  const replyXml = exchange.reply.xml;
  const accepted = expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'accepted', parseAccepted);
  expectThat(
    replyXml,
    requirement,
    `request-id='${invoke.requestId}'`,
    accepted.requestId === invoke.requestId,
  );
  expectThat(replyXml, requirement, `revision='0' (the accepted state)`, accepted.revision === 0);
  expectThat(
    replyXml,
    'invocation.identifier-grammar',
    'a task-id of 22 to 128 characters from [A-Za-z0-9._~-]',
    isIdentifier(accepted.taskId),
  );
  expectThat(
    replyXml,
    requirement,
    'retain-until no earlier than created',
    accepted.retainUntil.epochSeconds >= accepted.created.epochSeconds,
  );
  return accepted;
}

export interface StartedTask {
  readonly invoke: Invoke;
  readonly accepted: Accepted;
  readonly exchange: IqExchange;
}

/** Invokes a tool and requires admission. */
export async function startTask(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  tool: string,
  args: JsonValue,
  options: InvokeOptions = {},
  requirement: RequirementId = 'invocation.required-parts',
): Promise<StartedTask> {
  const { invoke, exchange } = await sendInvoke(context, caller, target, tool, args, options);
  return { invoke, exchange, accepted: expectAccepted(exchange, requirement, invoke) };
}

/** The event's JSON payload, which must parse strictly and validate for its type (#event-json-schemas). */
export function eventPayload(received: ValidTaskEvent): JsonValue {
  let payload: JsonValue;
  try {
    payload = parseStrictJson(received.event.json);
  } catch (error) {
    throw new RequirementViolation(
      'event-json-schemas.payloads-valid',
      `a ${received.event.type} event whose character data is one JSON text`,
      received.stanza.xml,
      `event-json-schemas.payloads-valid: the ${received.event.type} event at revision ${String(received.event.revision)} is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const validation = validateEventPayload(received.event.type, payload);
  if (!validation.ok) {
    const problems = validation.violations.map(
      (violation) => `${violation.path || '/'}: ${violation.message}`,
    );
    throw new RequirementViolation(
      'event-json-schemas.payloads-valid',
      `a ${received.event.type} payload valid against the event schema for its type`,
      received.stanza.xml,
      `event-json-schemas.payloads-valid: the ${received.event.type} event at revision ${String(received.event.revision)} breaks the schema (${problems.join('; ')})`,
    );
  }
  return payload;
}

function describe(event: ReceivedTaskEvent): string {
  return event.valid
    ? `${event.event.type}@${String(event.event.revision)}`
    : `malformed: ${event.problem.message}`;
}

/**
 * The states the events walk through from `accepted` (revision 0), up to the first terminal
 * event: each event must be the notification of a permitted transition from the state before it
 * (#task-states: status for running and cancelling, input_required, the terminal event), or a
 * progress update of a non-terminal task. An input request straight after an expired one is
 * allowed (interp-35); input announced by a status event is not (interp-34). What follows a
 * terminal event is left to the caller, which knows the requirement it breaks.
 */
function expectPermittedTransitions(events: readonly ValidTaskEvent[], summary: string): void {
  let state: TaskStateName = 'accepted';
  for (const received of events) {
    const { type, revision } = received.event;
    if (isTerminal(state)) return;
    if (type === 'progress') continue;
    const to = type === 'status' ? statusState(received) : type;
    const permitted =
      to !== undefined &&
      isTaskState(to) &&
      (findTransition(state, to)?.event === type ||
        (state === 'input_required' && to === 'input_required' && type === 'input_required'));
    expectThat(
      summary,
      'task-states.permitted-transitions',
      `at revision ${String(revision)}, a permitted transition from ${state} announced by its own event (status for running or cancelling, input_required, or the terminal event)`,
      permitted,
    );
    state = to as TaskStateName;
  }
}

/**
 * Every event of the task received so far, checked: well-formed, valid payloads, one event per
 * revision (an identical repeat allowed, interp-41), revisions 1, 2, 3, … without gaps up to the
 * highest one seen, each a permitted transition or a progress update (#task-states). Returns
 * one event per revision, in revision order.
 */
export function checkedHistory(caller: Caller, taskId: string): ValidTaskEvent[] {
  const all = caller.events.all(taskId);
  const summary = all.map(describe).join(', ');
  const byRevision = new Map<number, ValidTaskEvent>();
  for (const received of all) {
    if (!received.valid) {
      throw new RequirementViolation(
        'event-json-schemas.payloads-valid',
        'lifecycle messages with exactly one valid <event/>',
        received.stanza.xml,
        `event-json-schemas.payloads-valid: a malformed lifecycle message for task ${taskId} (${received.problem.message})`,
      );
    }
    eventPayload(received);
    const known = byRevision.get(received.event.revision);
    if (known === undefined) {
      byRevision.set(received.event.revision, received);
      continue;
    }
    const same =
      known.event.eventId === received.event.eventId &&
      known.event.type === received.event.type &&
      canonicalJson(parseStrictJson(known.event.json)) ===
        canonicalJson(parseStrictJson(received.event.json));
    expectThat(
      received.stanza.xml,
      'events.replay-identical',
      `a repeat of revision ${String(received.event.revision)} identical to the first (event ID, type, payload):\n${known.stanza.xml}`,
      same,
    );
  }
  const revisions = [...byRevision.keys()].sort((a, b) => a - b);
  const highest = revisions.at(-1) ?? 0;
  revisions.forEach((revision, index) => {
    expectThat(
      summary,
      'events.revision-increments',
      `events at revisions 1 to ${String(highest)}, each exactly once (revision 0 is the accepted state)`,
      revision === index + 1,
    );
  });
  const events = revisions.flatMap((revision) => byRevision.get(revision) ?? []);
  const ids = new Set(events.map((received) => received.event.eventId));
  expectThat(
    summary,
    'events.revision-increments',
    'a distinct event ID for every revision',
    ids.size === events.length,
  );
  for (const received of events) {
    expectThat(
      received.stanza.xml,
      'invocation.identifier-grammar',
      'event IDs of 22 to 128 characters from [A-Za-z0-9._~-]',
      isIdentifier(received.event.eventId),
    );
  }
  expectPermittedTransitions(events, summary);
  return events;
}

function isTerminalEvent(received: ReceivedTaskEvent): boolean {
  return received.valid && (TERMINAL_STATES as readonly string[]).includes(received.event.type);
}

/**
 * What a case whose task must settle on its own (a deadline passing) holds against a task that
 * does not: a wait that outlives the SUT file's task time is then that requirement's violation,
 * not a harness timeout.
 */
export interface OverdueSettlement {
  readonly requirement: RequirementId;
  /** What should have come, in words. */
  readonly expected: string;
}

/** Waits for the task's terminal event, then returns the whole checked history. */
export async function awaitSettled(
  context: CaseContext,
  caller: Caller,
  taskId: string,
  overdue?: OverdueSettlement,
): Promise<ValidTaskEvent[]> {
  // A replayed invocation (a re-run attempt replays its seeded request ID) may find the task
  // settled and its events consumed already: look at everything received first.
  if (!caller.events.all(taskId).some(isTerminalEvent)) {
    try {
      await caller.events.waitFor(
        taskId,
        isTerminalEvent,
        { timeoutMs: context.sut.taskTimeoutMs },
        'terminal event',
      );
    } catch (error) {
      if (overdue === undefined || !(error instanceof WaitTimeout)) throw error;
      const seen = caller.events.all(taskId).map(describe);
      expectThat(
        `no terminal event within ${String(context.sut.taskTimeoutMs)} ms (timeouts.taskSeconds); events seen: ${seen.length === 0 ? 'none' : seen.join(', ')}`,
        overdue.requirement,
        overdue.expected,
        false,
      );
    }
  }
  const history = checkedHistory(caller, taskId);
  const last = history.at(-1);
  expectThat(
    history.map(describe).join(', '),
    'task-states.terminal-immutable',
    'exactly one terminal event, at the highest revision: nothing after it',
    last !== undefined && isTerminalEvent(last) && history.filter(isTerminalEvent).length === 1,
  );
  return history;
}

/** Waits for the task's next event of `type` (skipping others), then checks the history so far. */
export async function awaitEvent(
  context: CaseContext,
  caller: Caller,
  taskId: string,
  type: string,
  where: (payload: JsonValue) => boolean = () => true,
): Promise<ValidTaskEvent> {
  const found = await caller.events.waitFor(
    taskId,
    (received) => {
      if (!received.valid || received.event.type !== type) return false;
      try {
        return where(parseStrictJson(received.event.json));
      } catch {
        return false;
      }
    },
    { timeoutMs: context.sut.taskTimeoutMs },
    `${type} event`,
  );
  checkedHistory(caller, taskId);
  return found as ValidTaskEvent;
}

/** The payload of a status event's `state`, or undefined for other events. */
export function statusState(received: ValidTaskEvent): string | undefined {
  if (received.event.type !== 'status') return undefined;
  const payload = eventPayload(received);
  return isJsonObject(payload) && typeof payload['state'] === 'string' ? payload['state'] : undefined;
}

export function taskStateRequest(caller: Caller, target: TaskTarget, taskId: string): Promise<IqExchange> {
  return caller.exchangeIq(target.jid, 'get', buildTaskStateRequest({ taskId }));
}

export function taskResultRequest(caller: Caller, target: TaskTarget, taskId: string): Promise<IqExchange> {
  return caller.exchangeIq(target.jid, 'get', buildTaskResultRequest({ taskId }));
}

export function expectTaskState(exchange: IqExchange, requirement: RequirementId): TaskState {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'task-state', parseTaskState);
}

/**
 * Task-state until the task is terminal, asked again on each event the caller gets (at least
 * every 500 ms): after a fault the terminal event may never come, but task-state always answers.
 * Past the task timeout the case cannot tell; `after` says after what (for that message).
 */
export async function stateOnceSettled(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  taskId: string,
  requirement: RequirementId,
  after: string,
): Promise<TaskState> {
  const giveUpAt = Date.now() + context.sut.taskTimeoutMs;
  for (;;) {
    const state = expectTaskState(await taskStateRequest(caller, target, taskId), requirement);
    if (isTerminal(state.state)) return state;
    const left = giveUpAt - Date.now();
    if (left <= 0) {
      throw new CannotTell(
        `task ${taskId} was still ${state.state} ${String(context.sut.taskTimeoutMs)} ms ${after}`,
      );
    }
    await caller.events
      .waitFor(taskId, () => true, { timeoutMs: Math.min(left, 500) }, 'any event')
      .catch(() => undefined);
  }
}

/**
 * After a fault that may have lost events: task-state shows the task settled, task-result gives
 * the tool's own completion (its structuredContent carrying `value`), and every terminal event
 * any of `observers` received is that very settlement. `after` names the fault for the
 * cannot-tell message, `recovered` says how the result came back; the settled state is returned.
 */
export async function expectRecoveredCompletion(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  taskId: string,
  expected: { readonly value: string; readonly after: string; readonly recovered: string },
  observers: readonly Caller[] = [caller],
): Promise<TaskState> {
  const settled = await stateOnceSettled(
    context,
    caller,
    target,
    taskId,
    'task-recovery.state-contents',
    expected.after,
  );
  const resultExchange = await taskResultRequest(caller, target, taskId);
  const result = expectTaskResult(resultExchange, 'task-recovery.result-only-terminal');
  expectThat(
    resultExchange.reply.xml,
    'task-recovery.result-only-terminal',
    `the task's own completion, {"value":"${expected.value}"} in structuredContent, ${expected.recovered}`,
    settled.state === 'completed' && result.json.includes(expected.value),
  );
  for (const observer of observers) {
    for (const received of observer.events.all(taskId)) {
      if (!received.valid || !isTerminalEvent(received)) continue;
      expectThat(
        received.stanza.xml,
        'task-states.terminal-immutable',
        `the terminal event task-state and task-result report: ${settled.state} at revision ${String(settled.revision)}`,
        received.event.type === settled.state &&
          received.event.revision === settled.revision &&
          canonicalJson(parseStrictJson(received.event.json)) === canonicalJson(parseStrictJson(result.json)),
      );
    }
  }
  return settled;
}

export function expectTaskResult(exchange: IqExchange, requirement: RequirementId): TaskResult {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'task-result', parseTaskResult);
}

export function sendCancel(
  caller: Caller,
  target: TaskTarget,
  taskId: string,
  expectedRevision: number,
  reason?: string,
): Promise<IqExchange> {
  return caller.exchangeIq(
    target.jid,
    'set',
    buildCancel({ taskId, expectedRevision, ...(reason === undefined ? {} : { reason }) }),
  );
}

export function expectCancelAccepted(exchange: IqExchange, requirement: RequirementId): CancelAccepted {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'cancel-accepted', parseCancelAccepted);
}

export function sendInput(
  caller: Caller,
  target: TaskTarget,
  taskId: string,
  requestId: string,
  expectedRevision: number,
  input: JsonValue | string,
): Promise<IqExchange> {
  return caller.exchangeIq(
    target.jid,
    'set',
    buildProvideInput({
      taskId,
      requestId,
      expectedRevision,
      inputJson: typeof input === 'string' ? input : JSON.stringify(input),
    }),
  );
}

export function expectInputAccepted(exchange: IqExchange, requirement: RequirementId): InputAccepted {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'input-accepted', parseInputAccepted);
}

/** The four task operations a caller sends about an existing task (#task-recovery, #cancellation, #interactive-input). */
export type TaskOperation = 'task-state-request' | 'task-result-request' | 'cancel' | 'provide-input';

/**
 * A task operation naming `taskId` as given, which may be one the codec would refuse (outside
 * the identifier grammar): revision 0 and, for input, a well-formed request ID and `{}`.
 */
export function rawTaskOperation(operation: TaskOperation, taskId: string): Element {
  const attrs = { xmlns: NS_AGENT_TASK, 'task-id': taskId };
  switch (operation) {
    case 'task-state-request':
    case 'task-result-request':
      return xml(operation, attrs);
    case 'cancel':
      return xml('cancel', { ...attrs, 'expected-revision': '0' });
    case 'provide-input':
      return xml(
        'provide-input',
        { ...attrs, 'request-id': 'req-agentconf-malformed-probe-0', 'expected-revision': '0' },
        xml('input', { 'media-type': 'application/json' }, '{}'),
      );
  }
}

/** The IQ type each task operation travels in. */
export function operationIqType(operation: TaskOperation): 'get' | 'set' {
  return operation === 'task-state-request' || operation === 'task-result-request' ? 'get' : 'set';
}

/**
 * The task operations the conformance endpoint offers besides state and result: cancel and
 * provide-input only where it advertises #cancel and #input (a gateway may refuse an optional
 * feature it does not offer with service-unavailable whatever the task, interp-38).
 */
export async function offeredTaskOperations(caller: Caller, target: TaskTarget): Promise<TaskOperation[]> {
  const info = expectDiscoInfo(await discoInfo(caller, target.jid), 'endpoint-info.disco-info');
  return [
    'task-state-request',
    'task-result-request',
    ...(info.features.includes(FEATURE.taskCancel) ? (['cancel'] as const) : []),
    ...(info.features.includes(FEATURE.taskInput) ? (['provide-input'] as const) : []),
  ];
}

/**
 * The run's second account on the gateway's own server (CallerPool.localPeer), which holds the
 * same domain grants as the local caller in the reference world: the account that shows task
 * operations are authorized by bare JID, not by domain.
 */
export async function localPeer(context: CaseContext): Promise<Caller> {
  const world = requireWorld(context);
  const local = world.jidOf('local');
  let peer: Caller;
  try {
    peer = await context.callers.localPeer();
  } catch (error) {
    throw new MissingFixture(
      `needs a second account on ${local.split('@')[1] ?? "the gateway's server"}, beside ${local}, that can log in (the runner's localPeer account, dave@; list it under "accounts" for an external federation): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (peer.bareJid.split('@')[1] !== local.split('@')[1]) {
    throw new MissingFixture(`the localPeer account ${peer.bareJid} is not on the local caller's domain`);
  }
  return peer;
}

/**
 * The run's account that only the cases filling a per-sender bound use (CallerPool.prober): on
 * the local caller's domain, so the world's domain grants let it invoke the conformance tools.
 */
export async function prober(context: CaseContext): Promise<Caller> {
  const world = requireWorld(context);
  const local = world.jidOf('local');
  let caller: Caller;
  try {
    caller = await context.callers.prober();
  } catch (error) {
    throw new MissingFixture(
      `needs an account of its own on ${local.split('@')[1] ?? "the gateway's server"} that no other case uses (the runner's prober account, prober@; list it under "accounts" for an external federation): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (caller.bareJid.split('@')[1] !== local.split('@')[1]) {
    throw new MissingFixture(`the prober account ${caller.bareJid} is not on the local caller's domain`);
  }
  return caller;
}

/** The terminal event's payload as the terminal state's payload: what <task-result/> must hold. */
export function terminalPayload(history: readonly ValidTaskEvent[]): {
  state: TaskStateName;
  payload: JsonValue;
  revision: number;
} {
  const last = history.at(-1);
  if (last === undefined || !isTerminalEvent(last)) throw new Error('the history has no terminal event');
  return {
    state: last.event.type as TaskStateName,
    payload: eventPayload(last),
    revision: last.event.revision,
  };
}

/** Where readLedger takes a count from, for the case transcript. */
function ledgerSource(context: CaseContext): string {
  return context.ledger?.source ?? "the gateway's counter tool (the SUT file gives no out-of-band ledger)";
}

/** The count of a ledger key, out of band when the context has the ledger, else through `counter`. */
async function countOf(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  key: string,
  requirement: RequirementId,
): Promise<number> {
  if (context.ledger !== undefined) return context.ledger.read(key);
  const { accepted } = await startTask(context, caller, target, 'counter', { key });
  const history = await awaitSettled(context, caller, accepted.taskId);
  const { state, payload } = terminalPayload(history);
  const result = isJsonObject(payload) ? payload['result'] : undefined;
  const structured = isJsonObject(result) ? result['structuredContent'] : undefined;
  const count = isJsonObject(structured) ? structured['count'] : undefined;
  if (state !== 'completed' || typeof count !== 'number') {
    throw new RequirementViolation(
      requirement,
      `the counter tool completing with {"structuredContent":{"key":"${key}","count":N}}`,
      history.map((received) => received.stanza.xml).join('\n'),
      `${requirement}: the ledger counter could not be read`,
    );
  }
  return count;
}

/**
 * The current count of a ledger key (docs/conformance-tools.md): out of band when the SUT's
 * conformance tools keep their ledger outside the gateway (`context.ledger`), else through the
 * gateway's own `counter` tool, kept as the fallback. The case transcript says which was read.
 */
export async function readLedger(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  key: string,
  requirement: RequirementId,
): Promise<number> {
  const count = await countOf(context, caller, target, key, requirement);
  caller.transcript.note(`ledger ${key}: ${String(count)}, read from ${ledgerSource(context)}`);
  return count;
}

/**
 * Reads the ledger key until a script's `increment` step counted it (docs/conformance-tools.md:
 * an increment after the late output): from then on every late attempt has been made.
 */
export async function untilCounted(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  key: string,
  requirement: RequirementId,
): Promise<void> {
  const deadline = Date.now() + context.sut.taskTimeoutMs;
  for (;;) {
    const count = await countOf(context, caller, target, key, requirement);
    if (count >= 1) {
      caller.transcript.note(`ledger ${key}: ${String(count)}, read from ${ledgerSource(context)}`);
      return;
    }
    if (Date.now() > deadline) {
      throw new RequirementViolation(
        requirement,
        `the ledger key ${key} counted once the tool's late output was attempted (docs/conformance-tools.md)`,
        `the counter stayed at 0 (read from ${ledgerSource(context)})`,
      );
    }
    // A file read returns at once: poll it gently (a counter call is a round trip anyway).
    if (context.ledger !== undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Fails unless the ledger `key` is still 0: the tool never ran (`why` says why it must not have). */
export async function expectLedgerUntouched(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  key: string,
  requirement: RequirementId,
  why: string,
): Promise<void> {
  const count = await readLedger(context, caller, target, key, requirement);
  expectThat(`count ${String(count)}`, requirement, why, count === 0);
}

/**
 * Waits for the task to settle and fails unless it completed echoing exactly `inputs` (the
 * script's `complete: {echoInputs: true}`): the answers the tool was given, and no other.
 */
export async function expectCompletedWithInputs(
  context: CaseContext,
  caller: Caller,
  taskId: string,
  inputs: readonly JsonValue[],
  requirement: RequirementId,
  expected: string,
): Promise<void> {
  const history = await awaitSettled(context, caller, taskId);
  const wanted = canonicalJson({ result: { content: [], structuredContent: { inputs: [...inputs] } } });
  expectThat(
    history.at(-1)?.stanza.xml ?? '',
    requirement,
    `${expected}: ${wanted}`,
    canonicalJson(terminalPayload(history).payload) === wanted,
  );
}

const TOOL_FEATURES = {
  progress: FEATURE.taskProgress,
  cancel: FEATURE.taskCancel,
  input: FEATURE.taskInput,
} as const;

/**
 * Task features are advertised at executable endpoints and tool nodes, not at the gateway's own
 * JID (#conformance): a case that needs one asks the tool node it invokes. Advertising makes the
 * case mandatory (interp-43). A feature not advertised makes it inapplicable only when no claimed
 * profile requires it; when one does (Interactive Tasks requires progress, cancel and input,
 * interp-43), the preflight has reported the missing feature for the `script` tool and failed
 * that profile, and the case is blocked by that finding (cantTell), never inapplicable.
 */
export async function requireToolFeatures(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  tool: string,
  features: readonly (keyof typeof TOOL_FEATURES)[],
): Promise<void> {
  const node = target.manifest.tools.find((candidate) => candidate.name === tool)?.node;
  if (node === undefined) {
    throw new MissingFixture(
      `${target.jid} ${target.version} has no tool ${tool}: host the conformance tools unchanged (docs/conformance-tools.md)`,
    );
  }
  const exchange = await discoInfo(caller, target.jid, node);
  const info = expectDiscoInfo(exchange, 'tool-info.disco-info');
  const missing = features
    .map((feature) => TOOL_FEATURES[feature])
    .filter((feature) => !info.features.includes(feature));
  if (missing.length === 0) return;
  const requiredBy = [...context.sut.profiles].filter((profile) => {
    const required = PROFILE_REQUIRED_FEATURES[profile];
    return missing.some(
      (feature) =>
        required.taskTool?.includes(feature) === true || required.taskEndpoint?.includes(feature) === true,
    );
  });
  const what = `${tool} at ${target.jid} does not advertise ${missing.join(', ')}`;
  if (requiredBy.length > 0) {
    const claims = requiredBy.map((profile) => PROFILE_TITLES[profile]).join(', ');
    throw new CannotTell(
      tool === 'script'
        ? `blocked by the preflight: ${claims} is claimed and requires what ${what}`
        : `${claims} is claimed and requires what ${what}`,
    );
  }
  throw new NotApplicable(`${what}, and no claimed profile requires it`);
}

export function isTerminalState(state: TaskStateName): boolean {
  return isTerminal(state);
}

export function dateTime(text: string): XmppDateTime {
  return parseDateTime(text);
}

/** The requestId of an input_required event; '' when its payload names none. */
export function inputRequestId(received: ValidTaskEvent): string {
  const payload = parseStrictJson(received.event.json);
  return isJsonObject(payload) && typeof payload['requestId'] === 'string' ? payload['requestId'] : '';
}

/**
 * Waits for the task's next input_required event or its terminal event, whichever comes first:
 * for cases where the gateway may refuse the tool's input request (failing the task) instead.
 */
export async function awaitInputOrTerminal(
  context: CaseContext,
  caller: Caller,
  taskId: string,
): Promise<ValidTaskEvent> {
  const found = await caller.events.waitFor(
    taskId,
    (received) => received.valid && (received.event.type === 'input_required' || isTerminalEvent(received)),
    { timeoutMs: context.sut.taskTimeoutMs },
    'input_required or terminal event',
  );
  checkedHistory(caller, taskId);
  return found as ValidTaskEvent;
}

/**
 * Registers the target's manifest again under `version`, as the administrator: same tools and,
 * since the fixture world assigns runtimes by endpoint, the same runtime. For cases that move
 * the active pointer while a task runs or pin a task to another version. The caller decides
 * what to restore (never remove-endpoint: the endpoint belongs to the world). A refusal means
 * the case cannot tell. The returned pins reuse the target's fixture manifest for its tool list
 * only: its tool nodes name the original version.
 */
export async function registerTargetVersion(
  admin: ProvisioningClient,
  target: TaskTarget,
  version: string,
): Promise<TaskTarget> {
  const value = JSON.parse(JSON.stringify(target.manifest.value)) as JsonObject & { agent: JsonObject };
  value.agent['version'] = version;
  const { hash } = canonicalDocument(value);
  const exchange = await admin.register(JSON.stringify(value));
  if (exchange.parsed.type === 'error') {
    throw new CannotTell(
      `could not register ${target.jid} ${version} (a copy of ${target.version}): ${exchange.parsed.error.condition}`,
    );
  }
  return { jid: target.jid, version, hash, manifest: target.manifest };
}

/** Moves the endpoint's active pointer as the administrator; a refusal means the case cannot tell. */
export async function activateTarget(admin: ProvisioningClient, target: TaskTarget): Promise<void> {
  const exchange = await admin.activate(target.jid, target.version, target.hash);
  if (exchange.parsed.type === 'error') {
    throw new CannotTell(
      `could not activate ${target.jid} ${target.version}: ${exchange.parsed.error.condition}`,
    );
  }
}

/**
 * The gateway's clock as this machine sees it, bounded from the `created` times it reports
 * (spec positions, section I: "estimated from created"). Deadlines and expiries are compared on
 * the gateway's clock (#cancellation), so cases place them on that clock: a gateway whose clock
 * is a few seconds off ours decides them the same way (interp-30).
 */
export interface GatewayClock {
  /** Bounds of (gateway clock − this machine's clock) in ms: the true offset lies between them. */
  readonly offsetLowMs: number;
  readonly offsetHighMs: number;
  /** An instant at least `aheadMs` after the gateway's current time. */
  ahead(aheadMs: number): XmppDateTime;
  /** An instant at least `agoMs` before the gateway's current time. */
  ago(agoMs: number): XmppDateTime;
  /** This machine's time (ms) by which the gateway's clock has certainly reached `instant`. */
  reachedBy(instant: XmppDateTime): number;
  /** This machine's time (ms) before which the gateway's clock has certainly not reached `instant`. */
  notBefore(instant: XmppDateTime): number;
}

/** How finely a reported date-time resolves the gateway's clock: 1 ms to 1 s by its digits. */
function resolutionMs(value: XmppDateTime): number {
  const digits = /\.(\d+)/.exec(value.text)?.[1]?.length ?? 0;
  return Math.max(1, 1000 / 10 ** Math.min(digits, 3));
}

/**
 * Measures the gateway's clock: each sample invokes a task that completes at once, between this
 * machine's instants `sent` and `answered`; its `created` lies within the resolution of the
 * gateway's time at some instant in between. The bounds are the intersection over the samples
 * (their union, should a gateway's clock jump between them).
 */
export async function measureGatewayClock(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  samples = 3,
): Promise<GatewayClock> {
  const lows: number[] = [];
  const highs: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const sent = Date.now();
    const { accepted } = await startTask(context, caller, target, 'script', { steps: [{ complete: {} }] });
    const answered = Date.now();
    const created = toEpochMillis(accepted.created);
    const resolution = resolutionMs(accepted.created);
    lows.push(created - resolution - answered);
    highs.push(created + resolution - sent);
    await awaitSettled(context, caller, accepted.taskId);
  }
  let low = Math.max(...lows);
  let high = Math.min(...highs);
  if (low > high) {
    low = Math.min(...lows);
    high = Math.max(...highs);
  }
  return {
    offsetLowMs: low,
    offsetHighMs: high,
    ahead: (aheadMs) => dateTimeFromMillis(Date.now() + high + aheadMs),
    ago: (agoMs) => dateTimeFromMillis(Date.now() + low - agoMs),
    reachedBy: (instant) => toEpochMillis(instant) - low,
    notBefore: (instant) => toEpochMillis(instant) - high,
  };
}

/** The holds `whileHeld` tries, each 4× the one before, for a slow or loaded machine. */
const HOLDS_MS = [300, 1_200, 4_800] as const;

export interface HeldTask extends StartedTask {
  /** The status event announcing that the task runs. */
  readonly running: ValidTaskEvent;
}

const isRunningPayload = (payload: JsonValue): boolean =>
  isJsonObject(payload) && payload['state'] === 'running';

/**
 * Runs `during` while a task of the conformance tools is held running by a `wait` step — never
 * by #cancel or #input, so that a gateway without interactive features decides core Task
 * Execution cases too. The task then completes by itself with `{}`. When it turns out to have
 * settled before `during` was done (a slow machine), `during` did not run wholly while the task
 * was held, so it runs again on a task held four times longer; what `during` throws while its
 * task was still held is the verdict. Returns the held task, still unsettled, and what `during`
 * returned.
 */
export async function whileHeld<T>(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  during: (task: HeldTask) => Promise<T>,
  options: InvokeOptions = {},
  retry: {
    /** Undoes what `during` changed (an activation, a deactivation) before the next, longer hold. */
    readonly beforeRetry?: () => Promise<void>;
  } = {},
): Promise<{ task: HeldTask; value: T }> {
  for (const [index, holdMs] of HOLDS_MS.entries()) {
    if (index > 0) await retry.beforeRetry?.();
    const started = await startTask(
      context,
      caller,
      target,
      'script',
      { steps: [{ wait: { ms: holdMs } }, { complete: {} }] },
      options,
    );
    const running = await awaitEvent(context, caller, started.accepted.taskId, 'status', isRunningPayload);
    const task = { ...started, running };
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await during(task) };
    } catch (error) {
      outcome = { error };
    }
    const state = expectTaskState(
      await taskStateRequest(caller, target, started.accepted.taskId),
      'task-recovery.state-contents',
    );
    if (!isTerminal(state.state)) {
      if ('error' in outcome) throw outcome.error;
      return { task, value: outcome.value };
    }
    await awaitSettled(context, caller, started.accepted.taskId);
  }
  throw new CannotTell(
    `a task held running by a wait of ${String(HOLDS_MS.at(-1))} ms settled before the case's checks were done: the machine is too slow to tell`,
  );
}

/** The longest a task with a deadline may be kept past it for the expiry cases (short-retention). */
export const SHORT_RETENTION_MS = 10_000;

/**
 * Invokes `args` with a deadline `aheadMs` ahead on the gateway's clock and requires a
 * retain-until that comes within SHORT_RETENTION_MS: the registry fixture short-retention, which
 * the reference SUT file provides with tasks.retentionSeconds. MissingFixture otherwise.
 */
export async function startShortlyRetained(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  clock: GatewayClock,
  args: JsonValue,
  aheadMs = 300,
): Promise<StartedTask> {
  const started = await startTask(context, caller, target, 'script', args, {
    deadline: clock.ahead(aheadMs),
  });
  const { retainUntil } = started.accepted;
  const keptForMs = clock.reachedBy(retainUntil) - Date.now();
  if (keptForMs > SHORT_RETENTION_MS) {
    throw new MissingFixture(
      `retain-until ${retainUntil.text} is ${String(Math.round(keptForMs / 1000))} s away for a task whose deadline is ${String(aheadMs / 1000)} s away: needs a gateway configured to keep tasks only a few seconds past their deadline (registry fixture short-retention; the reference gateway's tasks.retentionSeconds, which fixtures/sut/reference-gateway.json sets to 1)`,
    );
  }
  return started;
}

/** Returns once `instant` has passed on the gateway's clock: a task of the conformance tools waits until then. */
export async function passOnGatewayClock(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  instant: XmppDateTime,
): Promise<void> {
  const { accepted } = await startTask(context, caller, target, 'script', {
    steps: [{ wait: { until: instant.text } }, { complete: {} }],
  });
  await awaitSettled(context, caller, accepted.taskId);
}

/** The task's first terminal event as it arrives, with the checked history up to it. */
export async function awaitFirstTerminal(
  context: CaseContext,
  caller: Caller,
  taskId: string,
): Promise<{ state: TaskStateName; payload: JsonValue; revision: number; xml: string }> {
  await caller.events.waitFor(
    taskId,
    (received) => received.valid && isTerminal(received.event.type as TaskStateName),
    { timeoutMs: context.sut.taskTimeoutMs },
    'terminal event',
  );
  const history = checkedHistory(caller, taskId);
  const at = history.findIndex((received) => isTerminal(received.event.type as TaskStateName));
  return { ...terminalPayload(history.slice(0, at + 1)), xml: history[at]?.stanza.xml ?? '' };
}

/**
 * After settlement nothing changed (#task-states, #cancellation): no event after the terminal
 * one (nor another at its revision), and task-state and task-result still give its state,
 * revision and payload. The state request goes first, on the route the events take: once it is
 * answered, any event sent before it has arrived.
 */
export async function expectSettlementKept(
  caller: Caller,
  target: TaskTarget,
  taskId: string,
  settled: { readonly state: TaskStateName; readonly payload: JsonValue; readonly revision: number },
  requirement: RequirementId,
): Promise<void> {
  const stateExchange = await taskStateRequest(caller, target, taskId);
  const payload = canonicalJson(settled.payload);
  const later = caller.events
    .all(taskId)
    .filter(
      (received) =>
        !received.valid ||
        received.event.revision > settled.revision ||
        (received.event.revision === settled.revision &&
          (received.event.type !== settled.state || canonicalJson(eventPayload(received)) !== payload)),
    );
  expectThat(
    later.map((received) => received.stanza.xml).join('\n'),
    requirement,
    `no event after ${settled.state} at revision ${String(settled.revision)}`,
    later.length === 0,
  );
  const state = expectTaskState(stateExchange, requirement);
  expectThat(
    stateExchange.reply.xml,
    requirement,
    `<task-state/> still ${settled.state} at revision ${String(settled.revision)} with its result available`,
    state.state === settled.state && state.revision === settled.revision && state.resultAvailable,
  );
  const resultExchange = await taskResultRequest(caller, target, taskId);
  const result = expectTaskResult(resultExchange, requirement);
  let resultPayload = '';
  try {
    resultPayload = canonicalJson(parseStrictJson(result.json));
  } catch {
    // Not JSON: compared as empty, which no terminal payload is.
  }
  expectThat(
    resultExchange.reply.xml,
    requirement,
    `<task-result/> still ${settled.state} at revision ${String(settled.revision)} with ${payload}`,
    result.state === settled.state && result.revision === settled.revision && resultPayload === payload,
  );
}
