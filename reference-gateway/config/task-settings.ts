/**
 * The config's `tasks` member (docs/gateway-config.md, "Tasks"): how long a task's state and
 * result stay queryable after its effective deadline (#invocation: retain-until is a promise the
 * gateway must keep; #task-recovery: afterwards the task answers like one that never existed),
 * the longest a task may run, and how often the retention sweep deletes what has expired.
 * #rules asks a gateway to bound both task duration and task-state retention; these are the
 * bounds, documented and settable, with the engine's defaults (tasks/task-limits.ts) unchanged.
 *
 * The replay window is not here: it is advertised in endpoint info, so it lives in
 * `endpointInfo.requestReplaySeconds` and the engine takes it from there.
 */
import type { JsonLimits } from '../../protocol/json/json-limits.ts';
import type { ManifestLimits } from '../registration/manifest-intake.ts';
import { DEFAULT_TASK_LIMITS, type TaskLimits } from '../tasks/task-limits.ts';

export interface TasksConfig {
  /** retain-until = effective deadline + this (tasks/task-limits.ts `retentionSeconds`). */
  readonly retentionSeconds: number;
  /** The deadline of a task without one, and the clamp of a later one. */
  readonly maxTaskDurationSeconds: number;
  /** Period of the retention sweep; the gateway also sweeps once at start. */
  readonly purgeIntervalMs: number;
  /** Non-terminal tasks one caller may hold (#rules task count). */
  readonly maxActiveTasksPerCaller: number;
  /** Capacities replacing maxActiveTasksPerCaller for the caller bare JIDs named. */
  readonly maxActiveTasksOf: Readonly<Record<string, number>>;
}

/** The sweep's default period: frequent enough that purged data does not linger for long. */
export const DEFAULT_TASK_PURGE_INTERVAL_SECONDS = 300;

/** The shape the config schema guarantees for `tasks`; members absent stay absent. */
export interface RawTasksConfig {
  readonly retentionSeconds?: number;
  readonly maxTaskDurationSeconds?: number;
  readonly purgeIntervalSeconds?: number;
  readonly maxActiveTasksPerCaller?: number;
  readonly maxActiveTasksOf?: Readonly<Record<string, number>>;
}

export function tasksConfigOf(raw: RawTasksConfig | undefined): TasksConfig {
  return {
    retentionSeconds: raw?.retentionSeconds ?? DEFAULT_TASK_LIMITS.retentionSeconds,
    maxTaskDurationSeconds: raw?.maxTaskDurationSeconds ?? DEFAULT_TASK_LIMITS.maxTaskDurationSeconds,
    purgeIntervalMs: Math.round((raw?.purgeIntervalSeconds ?? DEFAULT_TASK_PURGE_INTERVAL_SECONDS) * 1000),
    maxActiveTasksPerCaller: raw?.maxActiveTasksPerCaller ?? DEFAULT_TASK_LIMITS.maxActiveTasksPerCaller,
    maxActiveTasksOf: raw?.maxActiveTasksOf ?? {},
  };
}

/**
 * The JSON limits of what callers send (arguments, input answers): the nesting depth, string
 * length, member and item counts of the config's `limits`, the bytes at most the engine's own
 * bound. A gateway documents one set of JSON limits (#json-encoding; a SUT file has one, docs/sut.md),
 * so its tasks must not refuse a document within them that its registrations would take.
 */
export function callerJsonLimitsOf(limits: ManifestLimits): JsonLimits {
  return {
    ...DEFAULT_TASK_LIMITS.json,
    maxBytes: Math.min(DEFAULT_TASK_LIMITS.json.maxBytes, limits.manifestMaxBytes),
    maxDepth: limits.jsonMaxDepth,
    maxStringLength: limits.jsonMaxStringLength,
    maxObjectMembers: limits.jsonMaxObjectMembers,
    maxArrayElements: limits.jsonMaxArrayItems,
  };
}

/** What the task wiring hands the engine: limit overrides and the sweep period. */
export interface TaskEngineSettings {
  readonly limits: Pick<
    TaskLimits,
    'retentionSeconds' | 'maxTaskDurationSeconds' | 'maxActiveTasksPerCaller' | 'maxActiveTasksOf' | 'json'
  >;
  readonly purgeIntervalMs: number;
}

/**
 * The engine options the config asks for, in the shape of the component's TaskWiringOptions,
 * so code that starts the gateway can pass them on (and override members for a benchmark).
 */
export function taskEngineSettingsOf(tasks: TasksConfig, limits: ManifestLimits): TaskEngineSettings {
  return {
    limits: {
      json: callerJsonLimitsOf(limits),
      retentionSeconds: tasks.retentionSeconds,
      maxTaskDurationSeconds: tasks.maxTaskDurationSeconds,
      maxActiveTasksPerCaller: tasks.maxActiveTasksPerCaller,
      maxActiveTasksOf: tasks.maxActiveTasksOf,
    },
    purgeIntervalMs: tasks.purgeIntervalMs,
  };
}
