/**
 * The reference gateway's durable task engine (#execution). See task-engine.ts and docs/tasks.md.
 */
export { TaskEngine, type TaskEngineOptions } from './task-engine.ts';
export { TASK_REQUEST_ELEMENTS, respondToTaskIq } from './task-iq.ts';
export { systemClock, type Clock, type TimerHandle } from './clock.ts';
export type { DeliverPort, InvocationLimiter, TaskFeatures } from './engine-context.ts';
export { DEFAULT_TASK_LIMITS, type TaskLimits } from './task-limits.ts';
export type { PurgeReport } from './retention.ts';
export type { RecoveryReport } from './crash-recovery.ts';
