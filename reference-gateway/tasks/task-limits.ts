/**
 * The task engine's documented limits and retention promises (#rules: "bound … result size,
 * pending IQ count, task count, task duration, task-state retention"; #security: bound JSON
 * size and validation time, rate-limit invocation, progress events and input requests).
 * Exceeding an admission limit answers <resource-constraint/> after authorization
 * (interp-42); a runtime exceeding a per-task limit gets the refusal 'invalid'.
 */
import type { JsonLimits } from '../../protocol/json/json-limits.ts';

export interface TaskLimits {
  /** Strict-parse limits for <arguments/> and <input/> JSON. */
  readonly json: JsonLimits;
  /** Wall-clock budget for one schema validation (arguments, input, structured result). */
  readonly validationTimeoutMs: number;
  /** Non-terminal tasks the gateway holds at once (task capacity). */
  readonly maxActiveTasks: number;
  /** Non-terminal tasks one caller bare JID holds at once. */
  readonly maxActiveTasksPerCaller: number;
  /** Per-caller capacities that replace maxActiveTasksPerCaller for the bare JIDs named. */
  readonly maxActiveTasksOf?: Readonly<Record<string, number>>;
  /** The longest a task may run: the deadline given to a task without one, and the clamp. */
  readonly maxTaskDurationSeconds: number;
  /** How long state and the terminal result stay queryable after the effective deadline. */
  readonly retentionSeconds: number;
  /** RFC 8785 bytes of one terminal payload (completed result, failure, cancellation). */
  readonly resultMaxBytes: number;
  /** Events one task may commit (progress floods are the runtime's to avoid). */
  readonly maxEventsPerTask: number;
  /** Input requests one task may issue. */
  readonly maxInputRequestsPerTask: number;
}

/**
 * Why these numbers:
 * - json: 256 KiB, depth 32: arguments are one tool call's parameters, far smaller than a
 *   manifest; the other limits are the strict parser's defaults. A gateway started from a config
 *   takes depth, strings, members and items from its documented `limits` instead
 *   (config/task-settings.ts, callerJsonLimitsOf).
 * - validationTimeoutMs 250: a warm validation takes well under a millisecond; 250 ms bounds a
 *   catastrophic pattern without failing honest schemas (protocol/tool-schema/README.md).
 * - maxActiveTasks 1000, per caller 100: far above what the suites run at once.
 * - maxTaskDurationSeconds 3600: a fixture tool finishes in seconds; an hour bounds a tool that
 *   never settles. A tool's own maximumTimeoutSeconds clamps further (interp-32).
 * - retentionSeconds 86400: one day after the deadline, as in the spec's examples.
 * - resultMaxBytes 1 MiB: Prosody's C2S stanza cap is 256 KiB, so larger results could never
 *   be delivered anyway; the bound is ours regardless of the server.
 * - maxEventsPerTask 10000, maxInputRequestsPerTask 100: generous for honest tools.
 */
export const DEFAULT_TASK_LIMITS: TaskLimits = Object.freeze({
  json: Object.freeze({
    maxBytes: 262_144,
    maxDepth: 32,
    maxStringLength: 65_536,
    maxObjectMembers: 16_384,
    maxArrayElements: 65_536,
    maxValues: 262_144,
  }),
  validationTimeoutMs: 250,
  maxActiveTasks: 1000,
  maxActiveTasksPerCaller: 100,
  maxTaskDurationSeconds: 3600,
  retentionSeconds: 86_400,
  resultMaxBytes: 1_048_576,
  maxEventsPerTask: 10_000,
  maxInputRequestsPerTask: 100,
});
