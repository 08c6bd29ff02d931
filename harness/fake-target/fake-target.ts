/**
 * The scriptable fake target: a XEP-0114 component (protocol/'s ComponentLink, as the reference
 * gateway connects) on the federation's target domain, playing the remote endpoints a caller
 * under test invokes. It answers metadata from its world and admits invocations like a plain
 * well-behaved target; cases override any answer with rules (an error, no answer, an answer
 * held until released, another payload) and send lifecycle events stanza by stanza (replays,
 * conflicting revisions, gaps, invalid JSON, a chat message instead of an event). Everything
 * the caller sends is recorded (stanza-log.ts). docs/caller.md describes how cases use it.
 */
import { xml, type Element } from '@xmpp/xml';

import { ComponentLink } from '../../protocol/component-link/component-link.ts';
import { dateTimeFromMillis } from '../../protocol/datetime.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  StanzaBuildError,
  StanzaParseError,
  buildAccepted,
  buildCancelAccepted,
  buildEvent,
  buildInputAccepted,
  buildIqError,
  buildIqResult,
  buildMessage,
  buildTaskResult,
  buildTaskState,
  parseCancel,
  parseInvoke,
  parseProvideInput,
  parseTaskResultRequest,
  parseTaskStateRequest,
  serialize,
  type IqEnvelope,
  type StanzaError,
  type TaskEvent,
} from '../../protocol/stanza/index.ts';
import { isTerminal, terminalStateOfEvent, type EventType } from '../../protocol/task-states.ts';
import type { TargetComponentLink } from '../federation/server-provider.ts';
import { answerMetadata, metadataKindOf } from './metadata-answers.ts';
import {
  StanzaLog,
  StanzaWaitTimeout,
  bareOf,
  matches,
  type RecordedStanza,
  type StanzaKind,
  type StanzaMatch,
} from './stanza-log.ts';
import { TaskBook, type FakeTask } from './task-book.ts';
import { compileWorld, type CompiledWorld, type FakeTargetWorld } from './target-world.ts';

/** Released by the case: the answer it holds goes out then (or is dropped). */
export class Gate {
  #open: (() => void) | undefined;
  #dropped = false;
  readonly #opened: Promise<void>;

  constructor() {
    this.#opened = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  release(): void {
    this.#open?.();
  }

  /** The held answer is never sent: it becomes a lost answer. */
  drop(): void {
    this.#dropped = true;
    this.#open?.();
  }

  /** Resolves true when released, false when dropped. */
  async opened(): Promise<boolean> {
    await this.#opened;
    return !this.#dropped;
  }
}

/**
 * How the fake target reacts to a matching request. `default`: the world's answer (an invoke is
 * admitted); `drop`: no answer (an invoke is still admitted: its <accepted/> is lost); `error`: an
 * IQ error, nothing admitted; `result`: an IQ result with this payload (or none) instead of the
 * world's; `hold`: the default answer is decided at once and sent when the gate is released.
 */
export type Reaction =
  | { readonly answer: 'default' }
  | { readonly answer: 'drop' }
  | { readonly answer: 'error'; readonly error: StanzaError }
  | { readonly answer: 'result'; readonly payload?: Element }
  | { readonly answer: 'hold'; readonly gate: Gate };

export interface RuleHandle {
  /** How many requests this rule has reacted to. */
  readonly used: number;
  remove(): void;
}

interface Rule {
  readonly match: StanzaMatch;
  readonly reaction: Reaction;
  readonly times: number;
  used: number;
}

/** What a late retry (after its replay window) meets (#invocation). */
export type LateRetryPolicy = { readonly refuse: StanzaError } | { readonly admitAsNew: true };

export interface FakeTargetOptions {
  readonly link: TargetComponentLink;
  readonly world: FakeTargetWorld;
  /** Milliseconds since the epoch (default Date.now): replay windows and timestamps read it. */
  readonly now?: () => number;
  /** The retain-until promise of admitted tasks, from their creation (default 3600 s). */
  readonly retainSeconds?: number;
  readonly lateRetry?: LateRetryPolicy;
}

export interface EventToSend {
  readonly type: EventType;
  /** The payload as a JSON value; or `json` for text that need not be JSON at all. */
  readonly payload?: JsonValue;
  readonly json?: string;
  /** Default: one past the task's current revision. */
  readonly revision?: number;
  /** Default: a fresh one. */
  readonly eventId?: string;
  /** Default: the full JID that invoked. */
  readonly to?: string;
  /** Default: the endpoint's bare JID. */
  readonly from?: string;
  /** Leave the task's state and revision as they are (for replays and conflicting events). */
  readonly uncommitted?: boolean;
}

export interface SentEvent {
  readonly task: FakeTask;
  readonly event: TaskEvent;
  readonly xml: string;
}

/** The default refusal of a late retry: the forgotten request meets an ordinary IQ error. */
export const DEFAULT_LATE_RETRY: LateRetryPolicy = {
  refuse: { type: 'cancel', condition: 'not-acceptable' },
};
/** IDs of roundTrip's pings: no other stanza the target sends uses it. */
const BARRIER_ID_PREFIX = 'barrier-';
const BAD_REQUEST: StanzaError = { type: 'modify', condition: 'bad-request' };
const ITEM_NOT_FOUND: StanzaError = { type: 'cancel', condition: 'item-not-found' };
const CONFLICT: StanzaError = { type: 'cancel', condition: 'conflict' };

/** An IQ answer; `then` runs once it is written (the event of a transition it committed). */
type Answer =
  { readonly payload?: Element; readonly then?: () => Promise<unknown> } | { readonly error: StanzaError };

function taskKindOf(payload: Element): StanzaKind | undefined {
  if (payload.getNS() !== NS_AGENT_TASK) return undefined;
  switch (payload.name) {
    case 'invoke':
      return 'invoke';
    case 'cancel':
      return 'cancel';
    case 'provide-input':
      return 'provide-input';
    case 'task-state-request':
      return 'task-state';
    case 'task-result-request':
      return 'task-result';
    default:
      return undefined;
  }
}

function kindOf(stanza: Element): StanzaKind {
  if (stanza.name === 'message') return 'message';
  if (stanza.name === 'presence') return 'presence';
  const type = stanza.attrs['type'];
  if (type !== 'get' && type !== 'set') return 'iq-response';
  const [payload, extra] = stanza.getChildElements();
  if (payload === undefined || extra !== undefined) return 'other-iq';
  return metadataKindOf(payload) ?? taskKindOf(payload) ?? 'other-iq';
}

function envelopeOf(stanza: RecordedStanza): IqEnvelope {
  return {
    id: stanza.id ?? '',
    type: 'get',
    ...(stanza.from === undefined ? {} : { from: stanza.from }),
    ...(stanza.to === undefined ? {} : { to: stanza.to }),
  };
}

export class FakeTarget {
  readonly log = new StanzaLog();
  readonly domain: string;
  readonly #link: ComponentLink;
  readonly #rules: Rule[] = [];
  readonly #book: TaskBook;
  readonly #now: () => number;
  readonly #retainSeconds: number;
  #lateRetry: LateRetryPolicy;
  readonly #sent: string[] = [];
  #world: CompiledWorld;

  constructor(options: FakeTargetOptions) {
    this.domain = options.link.domain;
    this.#now = options.now ?? Date.now;
    this.#book = new TaskBook(this.#now);
    this.#retainSeconds = options.retainSeconds ?? 3600;
    this.#lateRetry = options.lateRetry ?? DEFAULT_LATE_RETRY;
    this.#world = compileWorld(options.world, this.domain);
    this.#link = new ComponentLink({
      host: options.link.host,
      port: options.link.port,
      domain: options.link.domain,
      secret: options.link.secret,
    });
    this.#link.on('stanza', (stanza: Element) => {
      this.#receive(stanza);
    });
  }

  get world(): CompiledWorld {
    return this.#world;
  }

  /** Replaces what the target serves (a new active version, withheld features…) from now on. */
  setWorld(world: FakeTargetWorld): void {
    this.#world = compileWorld(world, this.domain);
  }

  async start(): Promise<void> {
    await this.#link.start();
  }

  async stop(): Promise<void> {
    await this.#link.stop().catch(() => undefined);
  }

  /** Everything the fake target sent, serialized, in order (its side of the transcript). */
  get sent(): readonly string[] {
    return this.#sent;
  }

  /**
   * The first `times` requests matching `match` (default: every one) get `reaction` instead of
   * the default; the newest rule that matches wins.
   */
  on(match: StanzaMatch, reaction: Reaction, times = Number.POSITIVE_INFINITY): RuleHandle {
    const rule: Rule = { match, reaction, times, used: 0 };
    this.#rules.unshift(rule);
    const rules = this.#rules;
    return {
      get used() {
        return rule.used;
      },
      remove() {
        const at = rules.indexOf(rule);
        if (at >= 0) rules.splice(at, 1);
      },
    };
  }

  /** The next matching request is held until the returned gate is released. */
  hold(match: StanzaMatch): Gate {
    const gate = new Gate();
    this.on(match, { answer: 'hold', gate }, 1);
    return gate;
  }

  /** The stream of requests matching `match` that arrive from now on. */
  stream(match: StanzaMatch): ReturnType<StanzaLog['stream']> {
    return this.log.stream(match);
  }

  /** The next invoke (from `from`, a bare or full JID, when given) arriving from now on. */
  async nextInvoke(timeoutMs: number, from?: string): Promise<RecordedStanza> {
    return await this.log.stream({ kind: 'invoke', ...(from === undefined ? {} : { from }) }).next(timeoutMs);
  }

  task(taskId: string): FakeTask {
    const task = this.#book.task(taskId);
    if (task === undefined) throw new Error(`the fake target has no task ${taskId}`);
    return task;
  }

  /** The task an invoke stanza created or replayed (the newest, after a late retry admitted anew). */
  taskOf(invoke: RecordedStanza): FakeTask {
    const requestId = invoke.element.getChild('invoke', NS_AGENT_TASK)?.attrs['request-id'];
    const task = this.#book.tasks.findLast(
      (candidate) => candidate.requestId === requestId && bareOf(candidate.caller) === bareOf(invoke.from),
    );
    if (task === undefined) throw new Error(`no task was admitted for ${invoke.xml}`);
    return task;
  }

  get tasks(): FakeTask[] {
    return this.#book.tasks;
  }

  /** What a retry after its replay window meets from now on. */
  setLateRetry(policy: LateRetryPolicy): void {
    this.#lateRetry = policy;
  }

  /** Forgets request IDs as if their replay windows had passed (all, or those given). */
  expireReplayWindow(requestIds?: readonly string[]): void {
    this.#book.expire(requestIds);
  }

  /**
   * Sends a lifecycle event for `task` (#events). Unless `uncommitted`, the task's revision
   * becomes the event's and a status, input_required or terminal event moves its state.
   */
  async sendEvent(task: FakeTask, spec: EventToSend): Promise<SentEvent> {
    const json = spec.json ?? JSON.stringify(spec.payload ?? {});
    const event: TaskEvent = {
      taskId: task.taskId,
      eventId: spec.eventId ?? generateIdentifier('event-'),
      revision: spec.revision ?? task.revision + 1,
      type: spec.type,
      json,
    };
    const message = buildMessage(
      {
        from: spec.from ?? task.endpoint,
        to: spec.to ?? task.caller,
        type: 'normal',
        id: generateIdentifier('msg-'),
      },
      buildEvent(event),
    );
    if (spec.uncommitted !== true) this.#commit(task, event, spec.payload);
    const xml = await this.#write(message);
    return { task, event, xml };
  }

  /** Sends an event again exactly as it went (#events: an identical replay). */
  async replayEvent(sent: SentEvent): Promise<string> {
    await this.#writeText(sent.xml);
    return sent.xml;
  }

  /** A chat message from the endpoint to the caller, instead of an event (#events). */
  async sendChat(task: FakeTask, body: string): Promise<string> {
    return await this.#write(
      buildMessage(
        { from: task.endpoint, to: task.caller, type: 'chat', id: generateIdentifier('msg-') },
        xml('body', {}, body),
      ),
    );
  }

  /** Writes `text` as it is: a stanza must carry its from and to. */
  async sendRaw(text: string): Promise<void> {
    await this.#writeText(text);
  }

  /**
   * A barrier for absence checks: pings `to` from the target's domain and resolves true once any
   * answer (result or error) is in the log, false when `timeoutMs` passes first. RFC 6120 keeps
   * one entity's stanzas to another in order, and `to` answers only after it read the ping, so
   * once the answer is in, every stanza `to` sent this target before it read the ping is in the
   * log too. The answer is recorded like any IQ response; `isBarrierAnswer` tells it apart. An
   * aborted `signal` ends the wait (false).
   */
  async roundTrip(to: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const id = `${BARRIER_ID_PREFIX}${generateIdentifier('')}`;
    const answered = this.log.stream({ kind: 'iq-response', where: (stanza) => stanza.id === id });
    await this.#write(xml('iq', { type: 'get', id, from: this.domain, to }, xml('ping', { xmlns: NS.ping })));
    try {
      await answered.next(timeoutMs, signal);
      return true;
    } catch (error) {
      if (error instanceof StanzaWaitTimeout || signal?.aborted === true) return false;
      throw error;
    }
  }

  /** Whether `stanza` answers one of roundTrip's pings rather than anything the caller was sent. */
  isBarrierAnswer(stanza: RecordedStanza): boolean {
    return stanza.kind === 'iq-response' && (stanza.id?.startsWith(BARRIER_ID_PREFIX) ?? false);
  }

  /** Now, as an XEP-0082 timestamp from the target's clock (for payloads). */
  timestamp(): string {
    return dateTimeFromMillis(this.#now()).text;
  }

  #commit(task: FakeTask, event: TaskEvent, payload: JsonValue | undefined): void {
    task.revision = Math.max(task.revision, event.revision);
    task.updated = dateTimeFromMillis(this.#now());
    const terminal = terminalStateOfEvent(event.type);
    if (terminal !== undefined) {
      task.state = terminal;
      task.terminalJson = event.json;
      task.pendingInput = undefined;
      return;
    }
    if (event.type === 'input_required') {
      const requestId =
        typeof payload === 'object' && payload !== null && !Array.isArray(payload)
          ? payload['requestId']
          : undefined;
      task.state = 'input_required';
      task.pendingInput = { requestId: typeof requestId === 'string' ? requestId : '', json: event.json };
      return;
    }
    if (
      event.type === 'status' &&
      typeof payload === 'object' &&
      payload !== null &&
      !Array.isArray(payload)
    ) {
      const state = payload['state'];
      if (state === 'running' || state === 'cancelling') task.state = state;
    }
  }

  #receive(element: Element): void {
    const stanza = this.log.record(kindOf(element), element);
    if (stanza.name !== 'iq' || (stanza.type !== 'get' && stanza.type !== 'set')) return;
    const rule = this.#rules.find(
      (candidate) => candidate.used < candidate.times && matches(candidate.match, stanza),
    );
    if (rule !== undefined) rule.used += 1;
    const reaction = rule?.reaction ?? { answer: 'default' };
    void this.#react(stanza, reaction).catch(() => undefined);
  }

  async #react(stanza: RecordedStanza, reaction: Reaction): Promise<void> {
    switch (reaction.answer) {
      case 'error':
        await this.#reply(stanza, { error: reaction.error });
        return;
      case 'result':
        await this.#reply(stanza, reaction.payload === undefined ? {} : { payload: reaction.payload });
        return;
      case 'drop': {
        // An invoke is admitted all the same: its <accepted/> is what gets lost (and the event
        // of a committed transition still goes out).
        const answer = this.#defaultAnswer(stanza);
        if (!('error' in answer)) await answer.then?.();
        return;
      }
      case 'hold': {
        const answer = this.#defaultAnswer(stanza);
        if (await reaction.gate.opened()) await this.#reply(stanza, answer);
        else if (!('error' in answer)) await answer.then?.();
        return;
      }
      case 'default':
        await this.#reply(stanza, this.#defaultAnswer(stanza));
    }
  }

  /** The well-behaved target's answer, with its effects (admission, cancellation…) applied. */
  #defaultAnswer(stanza: RecordedStanza): Answer {
    const [payload] = stanza.element.getChildElements();
    if (payload === undefined) return { error: BAD_REQUEST };
    try {
      const metadata = metadataKindOf(payload);
      if (metadata !== undefined) {
        if (stanza.type !== 'get') return { error: BAD_REQUEST };
        const answer = answerMetadata(this.#world, bareOf(stanza.to) ?? '', metadata, payload);
        return answer.ok ? { payload: answer.payload } : { error: answer.error };
      }
      switch (stanza.kind) {
        case 'invoke':
          return this.#admit(stanza, payload);
        case 'cancel':
          return this.#cancel(stanza, payload);
        case 'provide-input':
          return this.#provideInput(stanza, payload);
        case 'task-state':
          return this.#taskState(stanza, payload);
        case 'task-result':
          return this.#taskResult(stanza, payload);
        default:
          return { error: { type: 'cancel', condition: 'service-unavailable' } };
      }
    } catch (error) {
      if (error instanceof StanzaParseError || error instanceof StanzaBuildError)
        return { error: BAD_REQUEST };
      throw error;
    }
  }

  #admit(stanza: RecordedStanza, payload: Element): Answer {
    const endpoint = this.#world.endpoints.get(stanza.to ?? '');
    const caller = stanza.from ?? '';
    if (endpoint === undefined) return { error: ITEM_NOT_FOUND };
    const invoke = parseInvoke(payload);
    const verdict = this.#book.classify(caller, endpoint.jid, invoke);
    switch (verdict.kind) {
      case 'replay':
        return { payload: buildAccepted(verdict.task.accepted) };
      case 'conflict':
        return { error: CONFLICT };
      case 'late':
        if ('refuse' in this.#lateRetry) return { error: this.#lateRetry.refuse };
        break;
      case 'new':
        break;
    }
    const task = this.#book.admit(caller, endpoint.jid, invoke, endpoint.replaySeconds, this.#retainSeconds);
    return { payload: buildAccepted(task.accepted) };
  }

  /** The task a task command names, if the sender's bare JID invoked it (#task-recovery). */
  #ownTask(stanza: RecordedStanza, taskId: string): FakeTask | undefined {
    const task = this.#book.task(taskId);
    if (
      task === undefined ||
      bareOf(task.caller) !== bareOf(stanza.from) ||
      task.endpoint !== bareOf(stanza.to)
    ) {
      return undefined;
    }
    return task;
  }

  #cancel(stanza: RecordedStanza, payload: Element): Answer {
    const cancel = parseCancel(payload);
    const task = this.#ownTask(stanza, cancel.taskId);
    if (task === undefined) return { error: ITEM_NOT_FOUND };
    if (task.cancelAccepted !== undefined) return { payload: buildCancelAccepted(task.cancelAccepted) };
    if (isTerminal(task.state)) return { error: CONFLICT };
    // A committed transition gets its one event (#events): the status event follows the answer.
    const accepted = { taskId: task.taskId, revision: task.revision + 1 };
    task.cancelAccepted = accepted;
    task.state = 'cancelling';
    return {
      payload: buildCancelAccepted(accepted),
      then: () =>
        this.sendEvent(task, {
          type: 'status',
          payload: { state: 'cancelling', updatedAt: this.timestamp() },
        }),
    };
  }

  #provideInput(stanza: RecordedStanza, payload: Element): Answer {
    const input = parseProvideInput(payload);
    const task = this.#ownTask(stanza, input.taskId);
    if (task === undefined) return { error: ITEM_NOT_FOUND };
    if (task.pendingInput?.requestId !== input.requestId || task.state !== 'input_required') {
      return { error: CONFLICT };
    }
    const accepted = { taskId: task.taskId, revision: task.revision + 1 };
    task.pendingInput = undefined;
    task.state = 'running';
    return {
      payload: buildInputAccepted(accepted),
      then: () =>
        this.sendEvent(task, { type: 'status', payload: { state: 'running', updatedAt: this.timestamp() } }),
    };
  }

  #taskState(stanza: RecordedStanza, payload: Element): Answer {
    const task = this.#ownTask(stanza, parseTaskStateRequest(payload).taskId);
    if (task === undefined) return { error: ITEM_NOT_FOUND };
    return {
      payload: buildTaskState({
        taskId: task.taskId,
        endpoint: task.endpoint,
        state: task.state,
        revision: task.revision,
        apiVersion: task.invoke.apiVersion,
        created: task.accepted.created,
        updated: task.updated,
        ...(task.invoke.deadline === undefined ? {} : { deadline: task.invoke.deadline }),
        retainUntil: task.accepted.retainUntil,
        resultAvailable: task.terminalJson !== undefined,
        manifestHash: task.invoke.manifestHash,
        ...(task.pendingInput === undefined ? {} : { pendingInputJson: task.pendingInput.json }),
      }),
    };
  }

  #taskResult(stanza: RecordedStanza, payload: Element): Answer {
    const task = this.#ownTask(stanza, parseTaskResultRequest(payload).taskId);
    if (task === undefined) return { error: ITEM_NOT_FOUND };
    // #task-recovery: no result while the task is non-terminal.
    if (!isTerminal(task.state) || task.terminalJson === undefined) {
      return { error: { type: 'wait', condition: 'unexpected-request' } };
    }
    return {
      payload: buildTaskResult({
        taskId: task.taskId,
        state: task.state,
        revision: task.revision,
        json: task.terminalJson,
      }),
    };
  }

  async #reply(stanza: RecordedStanza, answer: Answer): Promise<void> {
    const envelope = envelopeOf(stanza);
    if ('error' in answer) {
      await this.#write(buildIqError(envelope, answer.error));
      return;
    }
    await this.#write(buildIqResult(envelope, answer.payload));
    await answer.then?.();
  }

  async #write(element: Element): Promise<string> {
    const text = serialize(element);
    await this.#writeText(text);
    return text;
  }

  async #writeText(text: string): Promise<void> {
    this.#sent.push(text);
    await this.#link.write(text);
  }
}

/** Starts a fake target on the federation's target component and waits until it is online. */
export async function startFakeTarget(options: FakeTargetOptions): Promise<FakeTarget> {
  const target = new FakeTarget(options);
  await target.start();
  return target;
}
