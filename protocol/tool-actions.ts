/**
 * The actions a tool reports through (#model-boundary): transport-neutral, bound to one task.
 * A tool sees its tool name, validated arguments and safe metadata, and reports back only
 * through these actions; it never sees a JID, a stanza, a namespace or another task, so its
 * output cannot choose a sender, a destination or a tenant.
 *
 * The reference gateway's task engine implements TaskActions (its ToolRuntime contract,
 * reference-gateway/runtime/tool-runtime.ts); the conformance-tools MCP server implements them
 * over MCP (harness/conformance-tools/). The conformance script interpreter
 * (conformance-script/interpreter.ts) runs against either.
 */
import type { ProgressPayload, TaskFailure, ToolResult } from './events/payload-types.ts';
import type { JsonObject, JsonValue } from './json/json-value.ts';

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
 * A durable counter space shared by the tools of one host (the reference gateway keeps it in
 * its store, the conformance-tools server in its process or a file), so a tool can prove from
 * outside how many times side-effecting work really ran (replay and crash tests read it).
 */
export interface ToolLedger {
  /** Adds one to `key` durably (committed before it returns) and returns the new count. */
  increment(key: string): number;
  /** The current count of `key` (0 when never incremented). */
  read(key: string): number;
}
