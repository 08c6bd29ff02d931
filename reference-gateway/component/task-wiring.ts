/**
 * The task engine on the component (#execution): started from the gateway state before the
 * first connection, so crash recovery has run before any request is routed; delivering through
 * the outbox (task-outbox.ts) so no committed event is lost while the stream is down; purging
 * retained tasks periodically; and following bounced lifecycle messages.
 *
 * - Engine inputs: the store, the policy in force (read per call), the world's endpoint →
 *   runtime map, the state's rate limiter (its `invocation` bucket limits <invoke/>), the
 *   advertised replay window (endpointInfo.requestReplaySeconds), and the clock.
 * - Bounces (#task-message-routing): a message error from a caller's full JID means that route
 *   is gone. The caller's non-terminal tasks then notify its bare JID (routeLost), and when the
 *   bounced message was one of our recent events, that task's events from the bounced one on
 *   are sent again, unchanged, to the caller's bare JID — once per task and revision, so
 *   several bounces of one burst do not multiply the re-sends. A bounce from a bare JID ends
 *   there: that was the last route, and recovery IQs remain the source of truth.
 * - Shutdown: close() clears the purge timer and closes the engine (no commit after it); the
 *   gateway closes the store afterwards.
 */
import type { Element } from '@xmpp/xml';
import { JidError, bareJidOf, normalizeJid, parseJid } from '../../protocol/jid/index.ts';
import type { GatewayState } from '../config/gateway-state.ts';
import { DEFAULT_TASK_PURGE_INTERVAL_SECONDS, taskEngineSettingsOf } from '../config/task-settings.ts';
import type { DiscoverySettings } from '../discovery/index.ts';
import { TaskEngine, type Clock, type TaskFeatures, type TaskLimits } from '../tasks/index.ts';
import { TaskOutbox, type StanzaSender } from './task-outbox.ts';
import { taskRoutingOf, type TaskRouting } from './task-routing.ts';

/** The timers the wiring uses (the component's GatewayTiming satisfies it). */
export interface WiringTimers {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

export interface TaskWiringOptions {
  /** The engine's clock (deadlines, expiries, time stamps); real time by default. */
  readonly clock?: Clock;
  /** Overrides of the engine's limits (tasks/task-limits.ts); the bench raises capacities. */
  readonly limits?: Partial<TaskLimits>;
  /** How often retained tasks past retain-until are purged (default: the config's `tasks`). */
  readonly purgeIntervalMs?: number;
}

export const DEFAULT_PURGE_INTERVAL_MS = DEFAULT_TASK_PURGE_INTERVAL_SECONDS * 1000;

/**
 * The endpoint-wide task features: the engine implements all three, and the same object both
 * switches the engine and is what executable endpoints advertise, so the two cannot drift.
 */
export const TASK_FEATURES: TaskFeatures = Object.freeze({ progress: true, cancel: true, input: true });

/** Re-send bookkeeping is per task; beyond this many tasks the oldest entries are forgotten. */
const RESENT_MEMORY = 4096;

function fullJidOrUndefined(from: unknown): string | undefined {
  if (typeof from !== 'string') return undefined;
  try {
    return parseJid(from).resourcepart === undefined ? undefined : normalizeJid(from);
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

export class TaskWiring {
  readonly engine: TaskEngine;
  /** Normalized endpoint JIDs a runtime executes: where task requests can succeed. */
  readonly executable: readonly string[];
  readonly #outbox: TaskOutbox;
  readonly #timers: WiringTimers;
  readonly #purgeIntervalMs: number;
  readonly #log: (line: string) => void;
  /** Task ID → the last revision already re-sent to the caller's bare JID after a bounce. */
  readonly #resent = new Map<string, number>();
  readonly #rerouted = new Set<() => void>();
  #purgeTimer: unknown;
  #closed = false;

  private constructor(
    engine: TaskEngine,
    executable: readonly string[],
    outbox: TaskOutbox,
    timers: WiringTimers,
    purgeIntervalMs: number,
    log: (line: string) => void,
  ) {
    this.engine = engine;
    this.executable = executable;
    this.#outbox = outbox;
    this.#timers = timers;
    this.#purgeIntervalMs = purgeIntervalMs;
    this.#log = log;
  }

  /**
   * Starts the engine over the state's open store (crash recovery runs here) and the purge
   * timer. Events until attach() are kept for the first flush.
   */
  static start(
    state: GatewayState,
    timers: WiringTimers,
    log: (line: string) => void,
    options: TaskWiringOptions = {},
  ): TaskWiring {
    const outbox = new TaskOutbox({ log });
    const settings = taskEngineSettingsOf(state.config.tasks, state.config.limits);
    const engine = TaskEngine.start({
      store: state.store,
      policy: () => state.policy,
      runtimes: state.runtimes,
      deliver: outbox.deliver,
      replayWindowSeconds: state.config.endpointInfo.requestReplaySeconds,
      limiter: state.rateLimiter,
      features: TASK_FEATURES,
      log,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      // The config's retention, duration and JSON limits (docs/gateway-config.md "Tasks"); a
      // caller's overrides win.
      limits: { ...settings.limits, ...options.limits },
    });
    const { settled, resumed } = engine.recovery;
    if (settled + resumed > 0) {
      log(`gateway: task recovery settled ${String(settled)} and resumed ${String(resumed)} task(s)`);
    }
    const wiring = new TaskWiring(
      engine,
      [...state.runtimes.keys()],
      outbox,
      timers,
      options.purgeIntervalMs ?? settings.purgeIntervalMs,
      log,
    );
    wiring.#purge();
    return wiring;
  }

  /** What the IQ router needs: the engine, and the settings answered where it executes. */
  routing(base: DiscoverySettings): TaskRouting {
    return taskRoutingOf(this.engine, this.executable, TASK_FEATURES, base, this.#log);
  }

  /** Lifecycle messages leave through `sender` (the component's send) from now on. */
  attach(sender: StanzaSender): void {
    this.#outbox.attach(sender);
  }

  /** The stream is up: re-sends what the link did not take while it was down. */
  online(): void {
    if (this.#closed) return;
    const tasks = this.#outbox.flush((taskId, fromRevision) => {
      this.engine.resendEvents(taskId, fromRevision);
    });
    if (tasks > 0) this.#log(`gateway: re-sent the undelivered events of ${String(tasks)} task(s)`);
  }

  /** Tasks whose events still wait for the link (for tests and health views). */
  get undelivered(): number {
    return this.#outbox.undelivered.size;
  }

  /** Calls `listener` each time a bounce moved a caller's route to its bare JID or re-sent events. */
  onRerouted(listener: () => void): () => void {
    this.#rerouted.add(listener);
    return () => this.#rerouted.delete(listener);
  }

  /** An inbound <message type='error'/> (a bounce), already parsed strictly. */
  bounced(message: Element): void {
    if (this.#closed) return;
    const from = fullJidOrUndefined(message.attrs['from']);
    if (from === undefined) return;
    const moved = this.engine.routeLost(from);
    const id: unknown = message.attrs['id'];
    const sent = typeof id === 'string' ? this.#outbox.sentEvent(id) : undefined;
    let resent = 0;
    // Only a bounce of what we sent to that very address re-sends, and only to its task's caller.
    if (sent?.to === from && this.engine.callerOf(sent.taskId) === bareJidOf(from)) {
      const through = this.#resent.get(sent.taskId) ?? 0;
      if (sent.revision > through) {
        const last = this.engine.resendToCaller(sent.taskId, sent.revision);
        this.#rememberResent(sent.taskId, Math.max(last, sent.revision));
        resent = Math.max(0, last - sent.revision + 1);
      }
    }
    if (moved + resent === 0) return;
    // Counts only: a JID is personal data and stays out of the operator log (#privacy).
    this.#log(`gateway: a task event bounced; ${String(moved)} task(s) rerouted, ${String(resent)} re-sent`);
    for (const listener of [...this.#rerouted]) listener();
  }

  /** Stops the purge timer and closes the engine (before the gateway closes its store). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#purgeTimer !== undefined) this.#timers.clearTimeout(this.#purgeTimer);
    this.#purgeTimer = undefined;
    this.engine.close();
  }

  #purge(): void {
    this.#purgeTimer = undefined;
    if (this.#closed) return;
    try {
      const { tasks, replays } = this.engine.purge();
      if (tasks + replays > 0) {
        this.#log(`gateway: purged ${String(tasks)} task(s) and ${String(replays)} replay record(s)`);
      }
    } catch (error) {
      this.#log(`gateway: task purge failed: ${error instanceof Error ? error.name : 'error'}`);
    }
    this.#purgeTimer = this.#timers.setTimeout(() => {
      this.#purge();
    }, this.#purgeIntervalMs);
  }

  #rememberResent(taskId: string, revision: number): void {
    this.#resent.delete(taskId);
    this.#resent.set(taskId, revision);
    if (this.#resent.size <= RESENT_MEMORY) return;
    const oldest = this.#resent.keys().next();
    if (oldest.done !== true) this.#resent.delete(oldest.value);
  }
}
