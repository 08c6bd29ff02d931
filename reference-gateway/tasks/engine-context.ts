/**
 * What every part of the engine shares: the store, the clock, the delivery port, the policy,
 * the runtimes, the limits, the live-task registry, and `commit`, the one way a mutation is
 * made durable. `commit` runs checks and writes in one store transaction and only after COMMIT
 * runs the effects the work queued (delivering events, aborting signals, resolving input
 * waiters), so nothing leaves the process that is not already on disk (#invocation, #events).
 */
import type { Element } from '@xmpp/xml';
import type { BudgetedValidator } from '../../protocol/tool-schema/index.ts';
import type { AccessPolicy } from '../policy/access-policy.ts';
import type { RateDecision } from '../policy/rate-limiter.ts';
import type { ToolRuntime } from '../runtime/tool-runtime.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { nowDateTime, type Clock } from './clock.ts';
import type { ActiveTasks } from './active-tasks.ts';
import type { LiveTasks } from './live-tasks.ts';
import type { PinnedTools } from './pinned-tools.ts';
import type { TaskLimits } from './task-limits.ts';

/** Sends one complete <message/> (from, to, type and id set) over the component link. */
export type DeliverPort = (message: Element) => void;

/** The invocation bucket of the gateway's rate limiter (config/limits.ts 'invocation'). */
export interface InvocationLimiter {
  take(operation: 'invocation', principal: string): RateDecision;
}

/** Endpoint-wide task features the gateway advertises (discovery's TaskFeatureSwitches). */
export interface TaskFeatures {
  readonly progress: boolean;
  readonly cancel: boolean;
  readonly input: boolean;
}

export class Effects {
  readonly #queued: (() => void)[] = [];

  /** Runs `effect` after the transaction commits; never if it rolls back. */
  later(effect: () => void): void {
    this.#queued.push(effect);
  }

  run(log: (line: string) => void): void {
    for (const effect of this.#queued.splice(0)) {
      try {
        effect();
      } catch (error) {
        // Delivery and signalling are best-effort (#task-message-routing); the commit stands.
        log(`task effect failed: ${error instanceof Error ? error.name : 'error'}`);
      }
    }
  }
}

export interface EngineContext {
  readonly store: GatewayStore;
  readonly clock: Clock;
  readonly deliver: DeliverPort;
  readonly policy: () => AccessPolicy;
  readonly runtimes: ReadonlyMap<string, ToolRuntime>;
  readonly limits: TaskLimits;
  readonly features: TaskFeatures;
  /** request_replay_seconds as advertised in endpoint info (#invocation). */
  readonly replayWindowSeconds: number;
  readonly limiter: InvocationLimiter | undefined;
  readonly validator: BudgetedValidator;
  readonly pinned: PinnedTools;
  readonly live: LiveTasks;
  /** Non-terminal task counts for the capacity limits, kept in step with the commits. */
  readonly active: ActiveTasks;
  /** Bounded, redacted operator log lines (#privacy: no payloads, no secrets). */
  readonly log: (line: string) => void;
  /** Schedules the runtime call for an admitted task (execution.ts). */
  readonly dispatch: (taskId: string) => void;
  /** Arms the deadline timer of a task (deadlines.ts). */
  readonly armDeadline: (taskId: string, deadline: string) => void;
}

/**
 * Runs `work` in one durable transaction, then its effects — after the effects of every
 * earlier commit, including deferred ones still waiting for the disk (GatewayStore.afterDurable),
 * so events leave in commit order. Normally that is at once, before `commit` returns.
 *
 * events.revision-increments, task-message-routing.delivery-independent: a mutation and its event
 * commit together; delivery is an effect after durability.
 */
export function commit<T>(ctx: EngineContext, work: (effects: Effects) => T): T {
  const effects = new Effects();
  const result = ctx.store.transaction(() => work(effects));
  ctx.store.afterDurable(() => {
    effects.run(ctx.log);
  });
  return result;
}

/**
 * Whether the engine may still commit: its store is open and it was not closed. Work that
 * arrives later (a tool waking up, a timer, a dispatch) commits nothing; crash recovery at the
 * next start owns those tasks.
 */
export function accepting(ctx: EngineContext): boolean {
  return ctx.store.isOpen && !ctx.live.closed;
}

/**
 * The current instant as the text the engine writes (XEP-0082, UTC, milliseconds).
 *
 * event-json-schemas.datetime-xep0082
 */
export function nowText(ctx: EngineContext): string {
  return nowDateTime(ctx.clock).text;
}
