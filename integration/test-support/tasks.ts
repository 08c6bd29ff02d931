/**
 * The task side of the integration tests (#execution): the conformance endpoint added to the
 * world these tests load, invocations of its scripted tools (docs/conformance-tools.md), the
 * ledger read through the `counter` tool, and the checks every received lifecycle message must
 * pass (#events, #task-message-routing). Expectations come from the fixture files, never from
 * what the gateway says.
 */
import { resolve } from 'node:path';
import type { Element } from '@xmpp/xml';
import { expect } from 'vitest';
import type { Caller, IqExchange, ReceivedTaskEvent, ValidTaskEvent } from '../../harness/driver/index.ts';
import { parseDateTime } from '../../protocol/datetime.ts';
import { validateEventPayload } from '../../protocol/events/index.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  buildCancel,
  buildInvoke,
  buildProvideInput,
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseAccepted,
  parseTaskResult,
  parseTaskState,
  type Accepted,
  type Cancel,
  type Hash,
  type Invoke,
  type ProvideInput,
  type TaskResult,
  type TaskState,
} from '../../protocol/stanza/index.ts';
import { isTerminal } from '../../protocol/task-states.ts';
import { MANIFESTS_DIR } from '../../reference-gateway/registration/test-support/manifests.ts';
import { fixtureManifest } from './fixtures.ts';
import { resultPayload } from './wire.ts';

export const CONFORMANCE = 'conformance@agents.example';
export const CONFORMANCE_MANIFEST = fixtureManifest('conformance.json');
export const CONFORMANCE_VERSION = '1.0.0';
export const CONFORMANCE_HASH: Hash = CONFORMANCE_MANIFEST.document.hash;
/** A second registered (never active) version: the same tools, so only the version differs. */
export const CONFORMANCE_NEXT_VERSION = '1.0.1';
const CONFORMANCE_NEXT_MANIFEST: JsonObject = (() => {
  const next = structuredClone(CONFORMANCE_MANIFEST.value);
  const agent = next['agent'];
  if (isJsonObject(agent)) agent['version'] = CONFORMANCE_NEXT_VERSION;
  return next;
})();
export const CONFORMANCE_NEXT_HASH: Hash = canonicalDocument(CONFORMANCE_NEXT_MANIFEST).hash;

/** How long a test waits for one event or reply: generous, a 2-core VM runs several suites. */
export const EVENT_TIMEOUT_MS = 10_000;

/**
 * The world a task test file loads: the given one (the integration tests' reference world)
 * plus conformance@agents.example, run by the `conformance` runtime, with the fixture manifest
 * active and a second version registered. The reference world's grants already name it (local
 * callers through server.example, alice by principal).
 */
export function withConformanceEndpoint(reference: JsonObject): JsonObject {
  const endpoints = Array.isArray(reference['endpoints']) ? reference['endpoints'] : [];
  return {
    ...reference,
    endpoints: [
      ...endpoints,
      {
        jid: CONFORMANCE,
        runtime: 'conformance',
        versions: [
          { file: resolve(MANIFESTS_DIR, 'conformance.json') },
          { manifest: CONFORMANCE_NEXT_MANIFEST },
        ],
        active: CONFORMANCE_VERSION,
      },
    ],
  };
}

/** One step of a conformance script (docs/conformance-tools.md, "Script arguments"). */
export type ScriptStep = JsonObject;

export interface InvokeOptions {
  readonly tool?: string;
  readonly arguments?: JsonValue;
  /** Script steps: the arguments become { ledgerKey?, steps }. */
  readonly steps?: readonly ScriptStep[];
  readonly ledgerKey?: string;
  readonly requestId?: string;
  readonly apiVersion?: string;
  readonly manifestHash?: Hash;
  /** XEP-0082 text, sent as written. */
  readonly deadline?: string;
  /** The <arguments/> text exactly as sent (overrides arguments/steps). */
  readonly argumentsJson?: string;
}

/** The <invoke/> a test sends to the conformance endpoint (defaults: `script`, the active pins). */
export function invokeOf(options: InvokeOptions): Invoke {
  const args: JsonValue = options.arguments ?? {
    ...(options.ledgerKey === undefined ? {} : { ledgerKey: options.ledgerKey }),
    steps: [...(options.steps ?? [])],
  };
  return {
    requestId: options.requestId ?? generateIdentifier('req-'),
    tool: options.tool ?? 'script',
    apiVersion: options.apiVersion ?? CONFORMANCE_VERSION,
    manifestHash: options.manifestHash ?? CONFORMANCE_HASH,
    argumentsJson: options.argumentsJson ?? JSON.stringify(args),
    ...(options.deadline === undefined ? {} : { deadline: parseDateTime(options.deadline) }),
  };
}

export function sendInvoke(caller: Caller, invoke: Invoke, to = CONFORMANCE): Promise<IqExchange> {
  return caller.exchangeIq(to, 'set', buildInvoke(invoke), { timeoutMs: EVENT_TIMEOUT_MS });
}

/** Invokes and expects <accepted/> (revision 0, the request ID echoed). */
export async function invokeAccepted(caller: Caller, invoke: Invoke, to = CONFORMANCE): Promise<Accepted> {
  const accepted = parseAccepted(resultPayload(await sendInvoke(caller, invoke, to)));
  expect(accepted.revision).toBe(0);
  expect(accepted.requestId).toBe(invoke.requestId);
  return accepted;
}

export async function taskState(caller: Caller, taskId: string, to = CONFORMANCE): Promise<TaskState> {
  const exchange = await caller.exchangeIq(to, 'get', buildTaskStateRequest({ taskId }), {
    timeoutMs: EVENT_TIMEOUT_MS,
  });
  return parseTaskState(resultPayload(exchange));
}

export async function taskResult(caller: Caller, taskId: string, to = CONFORMANCE): Promise<TaskResult> {
  const exchange = await caller.exchangeIq(to, 'get', buildTaskResultRequest({ taskId }), {
    timeoutMs: EVENT_TIMEOUT_MS,
  });
  return parseTaskResult(resultPayload(exchange));
}

/** <cancel/> for a task; the exchange, so a test judges results and errors alike. */
export function sendCancel(caller: Caller, cancel: Cancel, to = CONFORMANCE): Promise<IqExchange> {
  return caller.exchangeIq(to, 'set', buildCancel(cancel), { timeoutMs: EVENT_TIMEOUT_MS });
}

/** <provide-input/> for a pending request; the exchange. */
export function sendInput(caller: Caller, input: ProvideInput, to = CONFORMANCE): Promise<IqExchange> {
  return caller.exchangeIq(to, 'set', buildProvideInput(input), { timeoutMs: EVENT_TIMEOUT_MS });
}

/** A fresh ledger key per test (docs/conformance-tools.md: keys are global to the gateway). */
export function ledgerKey(label: string): string {
  return `${label}:${generateIdentifier()}`;
}

/**
 * A received lifecycle message as #events and #task-message-routing require it: a valid
 * lifecycle message of type normal from the endpoint's bare JID, without a no-copy hint (no
 * XEP-0334 hint at all), whose payload validates against the event type's normative schema.
 * Returns the event with its payload parsed.
 */
export function checkedEvent(
  received: ReceivedTaskEvent,
  endpoint = CONFORMANCE,
): ValidTaskEvent & { readonly payload: JsonObject } {
  if (!received.valid) throw new Error(`a malformed lifecycle message: ${received.problem.message}`);
  expect(received.from, received.stanza.xml).toBe(endpoint);
  expect(received.message.type, received.stanza.xml).toBe('normal');
  expect(received.message.typeAttribute, received.stanza.xml).toBe('normal');
  expect(received.message.id, 'the stanza id is the event id (interp-41)').toBe(received.event.eventId);
  const element: Element | undefined = received.stanza.element;
  expect(
    element?.children.filter((child) => typeof child !== 'string' && child.getNS() !== NS_AGENT_TASK),
    `no processing hints or other children: ${received.stanza.xml}`,
  ).toEqual([]);
  const payload = parseStrictJson(Buffer.from(received.event.json, 'utf8'));
  const validation = validateEventPayload(received.event.type, payload);
  expect(validation.ok ? [] : validation.violations, received.stanza.xml).toEqual([]);
  if (!isJsonObject(payload)) throw new Error('an event payload that is not an object');
  return { ...received, payload };
}

export interface EventHistory {
  readonly events: readonly (ValidTaskEvent & { readonly payload: JsonObject })[];
  /** `type` or `status:state` per event, in revision order, for whole-sequence comparisons. */
  readonly kinds: readonly string[];
}

function kindOf(event: ValidTaskEvent & { readonly payload: JsonObject }): string {
  const state = event.payload['state'];
  return event.event.type === 'status' && typeof state === 'string' ? `status:${state}` : event.event.type;
}

/**
 * The caller's next events of a task until a terminal one, each checked (checkedEvent), with
 * revisions rising by exactly one from `fromRevision` and distinct event IDs (#events).
 */
export async function eventsUntilTerminal(
  caller: Caller,
  taskId: string,
  fromRevision = 1,
  timeoutMs = EVENT_TIMEOUT_MS,
  endpoint = CONFORMANCE,
): Promise<EventHistory> {
  const events: (ValidTaskEvent & { readonly payload: JsonObject })[] = [];
  for (let revision = fromRevision; ; revision++) {
    const event = checkedEvent(await caller.events.next(taskId, { timeoutMs }), endpoint);
    expect(event.event.revision, `events of ${taskId} rise by one`).toBe(revision);
    events.push(event);
    if (
      event.event.type !== 'status' &&
      event.event.type !== 'progress' &&
      event.event.type !== 'input_required'
    )
      break;
  }
  expect(new Set(events.map((event) => event.event.eventId)).size).toBe(events.length);
  return { events, kinds: events.map(kindOf) };
}

/** The caller's next `count` events of a task, checked, revisions rising by one from `fromRevision`. */
export async function nextEvents(
  caller: Caller,
  taskId: string,
  count: number,
  fromRevision: number,
  timeoutMs = EVENT_TIMEOUT_MS,
): Promise<EventHistory> {
  const events: (ValidTaskEvent & { readonly payload: JsonObject })[] = [];
  for (let i = 0; i < count; i++) {
    const event = checkedEvent(await caller.events.next(taskId, { timeoutMs }));
    expect(event.event.revision, `events of ${taskId} rise by one`).toBe(fromRevision + i);
    events.push(event);
  }
  return { events, kinds: events.map(kindOf) };
}

/** The terminal payload's canonical form equals the terminal event's (interp-03, interp-39). */
export function expectResultMatches(result: TaskResult, terminal: ValidTaskEvent): void {
  expect(isTerminal(result.state)).toBe(true);
  expect(result.revision).toBe(terminal.event.revision);
  expect(parseStrictJson(Buffer.from(result.json, 'utf8'))).toEqual(
    parseStrictJson(Buffer.from(terminal.event.json, 'utf8')),
  );
}

/**
 * The ledger count of `key`, read from outside through the `counter` tool
 * (docs/conformance-tools.md, "The ledger and counter").
 */
export async function readCounter(caller: Caller, key: string): Promise<number> {
  const accepted = await invokeAccepted(caller, invokeOf({ tool: 'counter', arguments: { key } }));
  const history = await eventsUntilTerminal(caller, accepted.taskId);
  expect(history.kinds).toEqual(['status:running', 'completed']);
  const completed = history.events.at(-1);
  const result = completed?.payload['result'];
  const structured = isJsonObject(result) ? result['structuredContent'] : undefined;
  if (!isJsonObject(structured) || typeof structured['count'] !== 'number') {
    throw new Error(`counter gave no count: ${completed?.stanza.xml ?? 'no event'}`);
  }
  expect(structured['key']).toBe(key);
  return structured['count'];
}
