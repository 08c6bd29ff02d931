/**
 * The transport-neutral boundary between the task engine and the code that runs tools
 * (#model-boundary). A tool sees the tool name, its validated arguments and safe metadata, and
 * reports back only through actions bound to its own task; it never sees a JID, a stanza, a
 * namespace or another task, so its output cannot choose a sender, a destination or a tenant.
 *
 * The engine owns every state transition: an action is a request that the engine commits (or
 * refuses, e.g. after terminal settlement or past the deadline) at its atomic commit boundary.
 */
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import type { ProgressPayload, TaskFailure, ToolResult } from '../../protocol/events/payload-types.ts';

/** What a tool is told about the work it is asked to do. */
export interface ToolInvocation {
  /** An opaque handle for this task, unrelated to the wire task ID (#model-boundary). */
  readonly taskHandle: string;
  readonly tool: string;
  readonly apiVersion: string;
  /** The arguments after strict I-JSON parsing and schema validation. */
  readonly arguments: JsonValue;
  /** The accepted deadline as a XEP-0082 date-time, when the caller set one. */
  readonly deadline?: string;
}

/** A request for caller input: the engine adds the request ID and creation time. */
export interface InputRequest {
  readonly question: string;
  readonly inputSchema: JsonObject;
  /** XEP-0082 date-time; absent means the request does not expire. */
  readonly expiresAt?: string;
}

/** How a pending input request ended, as seen by the tool. */
export type InputOutcome =
  | { readonly kind: 'answered'; readonly input: JsonValue }
  /** Expired before an answer committed; the engine re-issued nothing (the tool decides). */
  | { readonly kind: 'expired' }
  /**
   * The request can no longer be answered: the task settled (failed, deadline) or an accepted
   * cancellation superseded the request — the task may then still be non-terminal (cancelling),
   * and the tool decides how it ends.
   */
  | { readonly kind: 'settled' };

/** Why an action was not committed. */
export type ActionRefusal =
  /** The task already has a terminal state: late output is discarded (#cancellation). */
  | 'settled'
  /** The deadline passed at the commit boundary; the engine settled failed/deadline-expired. */
  | 'deadline-expired'
  /** Another input request is pending (#interactive-input: at most one). */
  | 'input-pending'
  /** The payload is invalid (e.g. structuredContent against outputSchema, bad failure code). */
  | 'invalid';

export type ActionResult = { readonly ok: true } | { readonly ok: false; readonly refusal: ActionRefusal };

/** The actions bound to one task: the only way a tool affects anything. */
export interface TaskActions {
  progress(update: ProgressPayload): Promise<ActionResult>;
  /** Commits input_required and resolves when the request is answered, expires or the task settles. */
  requestInput(request: InputRequest): Promise<InputOutcome | ActionRefusal>;
  complete(result: ToolResult, summary?: string): Promise<ActionResult>;
  fail(failure: TaskFailure): Promise<ActionResult>;
  /**
   * Settles the task cancelled, with an optional reason for the cancelled payload
   * (#cancellation: the target confirms; #task-states: any non-terminal state may move to
   * cancelled), normally after `cancellation` aborted. Optional, so engines written before it
   * still satisfy this interface; without it a tool can neither give a reason nor cancel on its
   * own initiative, and confirms only in whatever way its engine documents.
   */
  confirmCancellation?(reason?: string): Promise<ActionResult>;
  /** Aborted once a cancellation is accepted (state cancelling): advisory, the tool may ignore it. */
  readonly cancellation: AbortSignal;
  /** Aborted once the task is terminal for any reason: no action can commit after it. */
  readonly settled: AbortSignal;
}

/**
 * A durable counter space shared by the tools of one gateway, kept in the gateway's store, so
 * a tool can prove from outside how many times side-effecting work really ran (replay and crash
 * tests read it through a tool call).
 */
export interface ToolLedger {
  /** Adds one to `key` durably (committed before it returns) and returns the new count. */
  increment(key: string): number;
  /** The current count of `key` (0 when never incremented). */
  read(key: string): number;
}

/**
 * Code that runs the tools of some endpoints. The fixture world names, per endpoint, the
 * runtime that executes its tools; the gateway keeps the endpoint-to-runtime map, so the
 * runtime itself never learns which JID it serves.
 */
export interface ToolRuntime {
  /** The name the fixture world uses to assign endpoints to this runtime (e.g. "conformance"). */
  readonly name: string;
  /**
   * Runs one task. Resolving without having completed or failed the task is a runtime fault:
   * the engine then settles it failed with a retryable code (throwing is the same) — except
   * while a cancellation is pending, where returning is how a tool honours it: the engine
   * settles the task cancelled (#cancellation).
   */
  execute(invocation: ToolInvocation, actions: TaskActions): Promise<void>;
}
