/**
 * A stand-in for the task engine's TaskActions: it records every call, commits what it is
 * asked unless a test queued a refusal, turns the first terminal action into settlement (later
 * actions are refused 'settled', as the contract says), and lets the test answer or expire the
 * pending input request, accept a cancellation, or settle the task from outside (a deadline).
 */
import type { ProgressPayload, TaskFailure, ToolResult } from '../../events/payload-types.ts';
import type { JsonValue } from '../../json/json-value.ts';
import type {
  ActionRefusal,
  ActionResult,
  InputOutcome,
  InputRequest,
  TaskActions,
} from '../../tool-actions.ts';

export type ActionCall =
  | { readonly kind: 'progress'; readonly update: ProgressPayload }
  | { readonly kind: 'requestInput'; readonly request: InputRequest }
  | { readonly kind: 'complete'; readonly result: ToolResult; readonly summary?: string }
  | { readonly kind: 'fail'; readonly failure: TaskFailure }
  | { readonly kind: 'confirmCancellation'; readonly reason?: string };

export type ActionKind = ActionCall['kind'];

export interface FakeActionsOptions {
  /** Leave TaskActions.confirmCancellation out, as an engine written before it would. */
  readonly withoutConfirm?: boolean;
}

const OK: ActionResult = Object.freeze({ ok: true });

export class FakeEngine {
  readonly calls: ActionCall[] = [];
  readonly actions: TaskActions;
  readonly #cancellation = new AbortController();
  readonly #settled = new AbortController();
  readonly #refusals = new Map<ActionKind, ActionRefusal[]>();
  #pendingInput: ((outcome: InputOutcome) => void) | undefined;
  #onCall: { readonly kind: ActionKind; readonly count: number; readonly resolve: () => void }[] = [];

  constructor(options: FakeActionsOptions = {}) {
    const actions: TaskActions = {
      cancellation: this.#cancellation.signal,
      settled: this.#settled.signal,
      progress: (update) => Promise.resolve(this.#commit({ kind: 'progress', update }, false)),
      requestInput: (request) => this.#requestInput(request),
      complete: (result, summary) =>
        Promise.resolve(
          this.#commit(
            summary === undefined ? { kind: 'complete', result } : { kind: 'complete', result, summary },
            true,
          ),
        ),
      fail: (failure) => Promise.resolve(this.#commit({ kind: 'fail', failure }, true)),
    };
    this.actions = options.withoutConfirm
      ? actions
      : {
          ...actions,
          confirmCancellation: (reason) =>
            Promise.resolve(
              this.#commit(
                reason === undefined
                  ? { kind: 'confirmCancellation' }
                  : { kind: 'confirmCancellation', reason },
                true,
              ),
            ),
        };
  }

  /** The next call of `kind` is refused with `refusal` (queued per kind, first in first out). */
  refuseNext(kind: ActionKind, refusal: ActionRefusal): this {
    this.#refusals.set(kind, [...(this.#refusals.get(kind) ?? []), refusal]);
    return this;
  }

  /** Resolves once `count` calls of `kind` have been made (at once if they already have). */
  whenCalled(kind: ActionKind, count = 1): Promise<void> {
    if (this.#count(kind) >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.#onCall.push({ kind, count, resolve });
    });
  }

  get isSettled(): boolean {
    return this.#settled.signal.aborted;
  }

  get inputPending(): boolean {
    return this.#pendingInput !== undefined;
  }

  answer(input: JsonValue): void {
    this.#resolveInput({ kind: 'answered', input });
  }

  expire(): void {
    this.#resolveInput({ kind: 'expired' });
  }

  /**
   * Accepts a cancellation. With `supersedeInput` the pending request ends 'settled' as the
   * reference engine reports it (tasks/cancellation.ts), although the task is not terminal.
   */
  cancel(options: { readonly supersedeInput?: boolean } = {}): void {
    this.#cancellation.abort();
    if (options.supersedeInput === true && this.#pendingInput !== undefined) {
      this.#resolveInput({ kind: 'settled' });
    }
  }

  /** The task settles without the tool (a deadline, a gateway decision). */
  settleFromOutside(): void {
    this.#settled.abort();
    if (this.#pendingInput !== undefined) this.#resolveInput({ kind: 'settled' });
  }

  #count(kind: ActionKind): number {
    return this.calls.filter((call) => call.kind === kind).length;
  }

  #record(call: ActionCall): void {
    this.calls.push(call);
    const due = this.#onCall.filter((w) => w.kind === call.kind && this.#count(w.kind) >= w.count);
    this.#onCall = this.#onCall.filter((w) => !due.includes(w));
    for (const waiter of due) waiter.resolve();
  }

  #takeRefusal(kind: ActionKind): ActionRefusal | undefined {
    const queue = this.#refusals.get(kind);
    return queue?.shift();
  }

  #commit(call: ActionCall, terminal: boolean): ActionResult {
    this.#record(call);
    const refusal = this.#settled.signal.aborted ? 'settled' : this.#takeRefusal(call.kind);
    if (refusal !== undefined) return { ok: false, refusal };
    if (terminal) this.#settled.abort();
    return OK;
  }

  #requestInput(request: InputRequest): Promise<InputOutcome | ActionRefusal> {
    this.#record({ kind: 'requestInput', request });
    if (this.#settled.signal.aborted) return Promise.resolve('settled');
    if (this.#pendingInput !== undefined) return Promise.resolve('input-pending');
    const refusal = this.#takeRefusal('requestInput');
    if (refusal !== undefined) return Promise.resolve(refusal);
    return new Promise((resolve) => {
      this.#pendingInput = resolve;
    });
  }

  #resolveInput(outcome: InputOutcome): void {
    const resolve = this.#pendingInput;
    if (resolve === undefined) throw new Error('no input request is pending');
    this.#pendingInput = undefined;
    resolve(outcome);
  }
}
