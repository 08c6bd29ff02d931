/**
 * The reference gateway's durable task engine (#execution): the one object the XMPP wiring
 * talks to. Its operations take parsed requests (protocol/stanza task codecs), the
 * authenticated requester and the addressed endpoint bare JID, and return a reply payload or
 * a StanzaFault, exactly like the discovery responders, so the router answers with
 * buildIqResult/buildIqError. Lifecycle messages leave through the injected `deliver` port.
 *
 * The modules, one job each: admission.ts (invoke + replay + group commit), transitions.ts
 * (revision + event per mutation), execution.ts and task-actions.ts (the runtime side),
 * interactive-input.ts, cancellation.ts, deadlines.ts, recovery.ts, retention.ts and
 * crash-recovery.ts. docs/tasks.md describes the tables and the order of checks.
 */
import type { Cancel } from '../../protocol/stanza/task-cancel.ts';
import type { ProvideInput } from '../../protocol/stanza/task-input.ts';
import type { Invoke } from '../../protocol/stanza/task-invoke.ts';
import type { TaskRequest } from '../../protocol/stanza/task-recovery.ts';
import { sharedBudgetedValidator, type BudgetedValidator } from '../../protocol/tool-schema/index.ts';
import { bareJidOf, normalizeJid } from '../../protocol/jid/index.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { AccessPolicy } from '../policy/access-policy.ts';
import type { ToolRuntime } from '../runtime/tool-runtime.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { ActiveTasks } from './active-tasks.ts';
import { Admission } from './admission.ts';
import { cancelTask } from './cancellation.ts';
import { systemClock, type Clock } from './clock.ts';
import { recoverTasks, type RecoveryReport } from './crash-recovery.ts';
import { armDeadline } from './deadlines.ts';
import {
  accepting,
  type DeliverPort,
  type EngineContext,
  type InvocationLimiter,
  type TaskFeatures,
} from './engine-context.ts';
import { eventMessage } from './event-delivery.ts';
import { DispatchQueue } from './execution.ts';
import { GroupCommitter } from './group-commit.ts';
import { provideInput } from './interactive-input.ts';
import { LiveTasks } from './live-tasks.ts';
import { PinnedTools } from './pinned-tools.ts';
import { taskResult, taskState } from './recovery.ts';
import { purgeExpired, type PurgeReport } from './retention.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, refuse } from '../iq/outcome.ts';
import { DEFAULT_TASK_LIMITS, type TaskLimits } from './task-limits.ts';

export interface TaskEngineOptions {
  readonly store: GatewayStore;
  /** Read on every invocation, so a recompiled policy applies at once. */
  readonly policy: () => AccessPolicy;
  /** Which runtime executes each endpoint's tools, by normalized endpoint bare JID. */
  readonly runtimes: ReadonlyMap<string, ToolRuntime>;
  readonly deliver: DeliverPort;
  /** request_replay_seconds as the endpoint-info form advertises it. */
  readonly replayWindowSeconds: number;
  readonly clock?: Clock;
  readonly limits?: Partial<TaskLimits>;
  /** The endpoint-wide task features advertised in discovery (all on by default). */
  readonly features?: Partial<TaskFeatures>;
  /** The gateway's rate limiter; its 'invocation' bucket applies to <invoke/>. */
  readonly limiter?: InvocationLimiter;
  /** The budgeted schema validator (default: the process-wide one). */
  readonly validator?: BudgetedValidator;
  readonly log?: (line: string) => void;
  /** 'per-request' commits every admission on its own (the bench's baseline). */
  readonly commitMode?: 'group' | 'per-request';
}

export class TaskEngine {
  readonly #ctx: EngineContext;
  readonly #admission: Admission;
  readonly #committer: GroupCommitter;
  #recovery: RecoveryReport = { settled: 0, resumed: 0 };

  private constructor(options: TaskEngineOptions) {
    const limits: TaskLimits = { ...DEFAULT_TASK_LIMITS, ...options.limits };
    const runtimes = options.runtimes;
    const committer = new GroupCommitter(options.store, options.commitMode);
    const dispatcher = new DispatchQueue(() => ctx, committer);
    const ctx: EngineContext = {
      store: options.store,
      clock: options.clock ?? systemClock,
      deliver: options.deliver,
      policy: options.policy,
      runtimes,
      limits,
      features: { progress: true, cancel: true, input: true, ...options.features },
      replayWindowSeconds: options.replayWindowSeconds,
      limiter: options.limiter,
      validator: options.validator ?? sharedBudgetedValidator(),
      pinned: new PinnedTools(options.store),
      live: new LiveTasks(),
      active: new ActiveTasks(options.store),
      log: options.log ?? (() => undefined),
      dispatch: (taskId) => {
        dispatcher.schedule(taskId);
      },
      armDeadline: (taskId, deadline) => {
        armDeadline(ctx, taskId, deadline);
      },
    };
    this.#ctx = ctx;
    this.#committer = committer;
    this.#admission = new Admission(ctx, this.#committer);
  }

  /**
   * Creates the engine and recovers what the store holds (crash-recovery.ts): call once the
   * store is open and before the first request is routed.
   */
  static start(options: TaskEngineOptions): TaskEngine {
    const engine = new TaskEngine(options);
    engine.#recovery = recoverTasks(engine.#ctx);
    return engine;
  }

  /** What start-up recovery did. */
  get recovery(): RecoveryReport {
    return this.#recovery;
  }

  /** Transactions the admission path committed (group commit shares one among many). */
  get admissionCommits(): number {
    return this.#committer.commits;
  }

  /** IQ set <invoke/>: <accepted/> once durable, or the fault. */
  invoke(requester: Requester, targetJid: string, invoke: Invoke): Promise<Outcome> {
    if (!accepting(this.#ctx)) return Promise.resolve(refuse(FAULT.serviceUnavailable));
    return this.#admission.invoke(requester, targetJid, invoke);
  }

  /** IQ get <task-state-request/>. */
  taskState(requester: Requester, targetJid: string, request: TaskRequest): Outcome {
    return taskState(this.#ctx, requester, targetJid, request);
  }

  /** IQ get <task-result-request/>. */
  taskResult(requester: Requester, targetJid: string, request: TaskRequest): Outcome {
    return taskResult(this.#ctx, requester, targetJid, request);
  }

  /** IQ set <cancel/>. */
  cancel(requester: Requester, targetJid: string, cancel: Cancel): Outcome {
    if (!accepting(this.#ctx)) return refuse(FAULT.serviceUnavailable);
    return cancelTask(this.#ctx, requester, targetJid, cancel);
  }

  /** IQ set <provide-input/>. */
  provideInput(requester: Requester, targetJid: string, request: ProvideInput): Promise<Outcome> {
    if (!accepting(this.#ctx)) return Promise.resolve(refuse(FAULT.serviceUnavailable));
    return provideInput(this.#ctx, requester, targetJid, request);
  }

  /** Deletes what is past its retention (retention.ts); the gateway calls it periodically. */
  purge(): PurgeReport {
    return purgeExpired(this.#ctx);
  }

  /**
   * The invoking full JID is gone (unavailable presence, a delivery error): later events of
   * its tasks go to the bare JID (#task-message-routing).
   */
  routeLost(fullJid: string): number {
    return this.#ctx.store.tasks.rerouteNotifications(normalizeJid(fullJid), bareJidOf(fullJid));
  }

  /**
   * Sends a task's stored events again, identical in event ID, revision and payload (#events:
   * an identical replay), to the task's current route. Returns how many were sent.
   */
  resendEvents(taskId: string, fromRevision = 1): number {
    const task = this.#ctx.store.tasks.task(taskId);
    if (task === undefined) return 0;
    const events = this.#ctx.store.tasks.events(taskId, fromRevision);
    for (const event of events) this.#ctx.deliver(eventMessage(task, event));
    return events.length;
  }

  /**
   * Sends a task's stored events from `fromRevision` on again, unchanged, to its caller's bare
   * JID (#task-message-routing: after loss of the invoking full JID's route, notifications may
   * go to the bare JID). For a delivery that bounced: routeLost moves only non-terminal tasks,
   * and the terminal event is the one a caller most needs. The destination is the task's own
   * caller, never anything the bounce named. Returns the last revision sent (fromRevision - 1
   * when there was none).
   */
  resendToCaller(taskId: string, fromRevision: number): number {
    const task = this.#ctx.store.tasks.task(taskId);
    if (task === undefined) return fromRevision - 1;
    const route = { endpointJid: task.endpointJid, notifyJid: task.callerJid };
    const events = this.#ctx.store.tasks.events(taskId, fromRevision);
    for (const event of events) this.#ctx.deliver(eventMessage(route, event));
    return events.at(-1)?.revision ?? fromRevision - 1;
  }

  /** The caller bare JID of a task, if the store still holds it (for bounce checks). */
  callerOf(taskId: string): string | undefined {
    return this.#ctx.store.tasks.task(taskId)?.callerJid;
  }

  /**
   * Stops the timers and tells running tools to stop; nothing commits afterwards, and later
   * mutations are refused (service-unavailable), so what the store holds at close is exactly
   * what the next start's crash recovery sees. The store stays open (the gateway owns it).
   */
  close(): void {
    this.#ctx.live.close();
  }
}
