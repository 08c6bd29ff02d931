/**
 * The fake target's tasks and admission replay records (#invocation). A request ID seen inside
 * its endpoint's advertised window replays: the same fingerprint gets the same <accepted/>, a
 * different one a conflict. Once the window has expired (by the injected clock, or forced with
 * `expire`) the record is forgotten and a late retry meets the case's chosen policy: refused
 * with an IQ error, or admitted as new work, as the spec permits a target that forgot it.
 */
import { dateTimeFromMillis, type XmppDateTime } from '../../protocol/datetime.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { Accepted, Invoke } from '../../protocol/stanza/index.ts';
import type { TaskState } from '../../protocol/task-states.ts';
import { bareOf } from './stanza-log.ts';

export interface FakeTask {
  readonly taskId: string;
  readonly requestId: string;
  /** The endpoint's bare JID (the invoke's `to`). */
  readonly endpoint: string;
  /** The full JID that sent the invoke: where events go by default (#task-message-routing). */
  readonly caller: string;
  readonly invoke: Invoke;
  readonly accepted: Accepted;
  /** The revision of the last event sent (0: the accepted state). */
  revision: number;
  state: TaskState;
  updated: XmppDateTime;
  /** The terminal event's payload text, once settled. */
  terminalJson?: string | undefined;
  /** The pending input_required request, while input is pending. */
  pendingInput?: { readonly requestId: string; readonly json: string } | undefined;
  /** The cancellation acceptance, once one was accepted (identical replays get it again). */
  cancelAccepted?: { readonly taskId: string; readonly revision: number } | undefined;
}

export type ReplayVerdict =
  | { readonly kind: 'new' }
  | { readonly kind: 'replay'; readonly task: FakeTask }
  | { readonly kind: 'conflict'; readonly task: FakeTask }
  | { readonly kind: 'late'; readonly task: FakeTask };

interface ReplayRecord {
  readonly fingerprint: string;
  readonly firstSeenMs: number;
  readonly windowMs: number;
  readonly task: FakeTask;
  expired: boolean;
}

/** The arguments in RFC 8785 form, or the text itself when it is not JSON (then only identical text replays). */
function canonicalArguments(text: string): string {
  try {
    return canonicalJson(parseStrictJson(text));
  } catch {
    return `not-json:${text}`;
  }
}

/** The replay fingerprint of #invocation over what the fake target can see. */
export function invokeFingerprint(callerBare: string, endpoint: string, invoke: Invoke): string {
  return JSON.stringify([
    callerBare,
    endpoint,
    invoke.requestId,
    invoke.tool,
    invoke.apiVersion,
    invoke.manifestHash.algo,
    invoke.manifestHash.value,
    canonicalArguments(invoke.argumentsJson),
    invoke.deadline?.text ?? null,
  ]);
}

export class TaskBook {
  readonly #tasks = new Map<string, FakeTask>();
  /** By caller bare JID, endpoint and request ID. */
  readonly #replays = new Map<string, ReplayRecord>();

  constructor(private readonly now: () => number) {}

  #key(callerBare: string, endpoint: string, requestId: string): string {
    return JSON.stringify([callerBare, endpoint, requestId]);
  }

  /** What an invoke is, before the fake target decides how to answer it. */
  classify(caller: string, endpoint: string, invoke: Invoke): ReplayVerdict {
    const callerBare = bareOf(caller) ?? caller;
    const record = this.#replays.get(this.#key(callerBare, endpoint, invoke.requestId));
    if (record === undefined) return { kind: 'new' };
    if (record.expired || this.now() - record.firstSeenMs >= record.windowMs) {
      record.expired = true;
      return { kind: 'late', task: record.task };
    }
    if (record.fingerprint !== invokeFingerprint(callerBare, endpoint, invoke)) {
      return { kind: 'conflict', task: record.task };
    }
    return { kind: 'replay', task: record.task };
  }

  /** Admits an invoke as a new task with revision 0 and records its replay window. */
  admit(
    caller: string,
    endpoint: string,
    invoke: Invoke,
    replaySeconds: number,
    retainSeconds: number,
  ): FakeTask {
    const nowMs = this.now();
    const created: XmppDateTime = dateTimeFromMillis(nowMs);
    const taskId = generateIdentifier('task-');
    const task: FakeTask = {
      taskId,
      requestId: invoke.requestId,
      endpoint,
      caller,
      invoke,
      accepted: {
        requestId: invoke.requestId,
        taskId,
        revision: 0,
        created,
        retainUntil: dateTimeFromMillis(nowMs + retainSeconds * 1000),
      },
      revision: 0,
      state: 'accepted',
      updated: created,
    };
    this.#tasks.set(taskId, task);
    const callerBare = bareOf(caller) ?? caller;
    this.#replays.set(this.#key(callerBare, endpoint, invoke.requestId), {
      fingerprint: invokeFingerprint(callerBare, endpoint, invoke),
      firstSeenMs: nowMs,
      windowMs: replaySeconds * 1000,
      task,
      expired: false,
    });
    return task;
  }

  /** Forgets request IDs as if their window had passed: all, or those given. */
  expire(requestIds?: readonly string[]): void {
    for (const record of this.#replays.values()) {
      if (requestIds === undefined || requestIds.includes(record.task.requestId)) record.expired = true;
    }
  }

  task(taskId: string): FakeTask | undefined {
    return this.#tasks.get(taskId);
  }

  get tasks(): FakeTask[] {
    return [...this.#tasks.values()];
  }
}
