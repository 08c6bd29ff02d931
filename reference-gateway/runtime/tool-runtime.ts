/**
 * The transport-neutral boundary between the task engine and the code that runs tools
 * (#model-boundary). A tool sees the tool name, its validated arguments and safe metadata, and
 * reports back only through actions bound to its own task; it never sees a JID, a stanza, a
 * namespace or another task, so its output cannot choose a sender, a destination or a tenant.
 *
 * The engine owns every state transition: an action is a request that the engine commits (or
 * refuses, e.g. after terminal settlement or past the deadline) at its atomic commit boundary.
 */
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { TaskActions } from '../../protocol/tool-actions.ts';

export type {
  ActionRefusal,
  ActionResult,
  InputOutcome,
  InputRequest,
  TaskActions,
  ToolLedger,
} from '../../protocol/tool-actions.ts';

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
