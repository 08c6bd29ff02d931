/**
 * Instants for deadlines and expiries: this machine's clock, and the gateway's clock as measured
 * from the `created` times it reports; tasks that wait on it and that are kept only shortly.
 */
import {
  dateTimeFromMillis,
  parseDateTime,
  toEpochMillis,
  type XmppDateTime,
} from '../../../protocol/datetime.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import type { StartedTask, TaskSession } from './task-session.ts';

/** A date-time `offsetMs` from now on this machine's clock (the federation runs here too). */
export function instantFromNow(offsetMs: number): XmppDateTime {
  return dateTimeFromMillis(Date.now() + offsetMs);
}

export function dateTime(text: string): XmppDateTime {
  return parseDateTime(text);
}

/**
 * The gateway's clock as this machine sees it, bounded from the `created` times it reports
 * (spec positions, section I: "estimated from created"). Deadlines and expiries are compared on
 * the gateway's clock (#cancellation), so cases place them on that clock: a gateway whose clock
 * is a few seconds off ours decides them the same way (interp-30).
 */
export interface GatewayClock {
  /** Bounds of (gateway clock − this machine's clock) in ms: the true offset lies between them. */
  readonly offsetLowMs: number;
  readonly offsetHighMs: number;
  /** An instant at least `aheadMs` after the gateway's current time. */
  ahead(aheadMs: number): XmppDateTime;
  /** An instant at least `agoMs` before the gateway's current time. */
  ago(agoMs: number): XmppDateTime;
  /** This machine's time (ms) by which the gateway's clock has certainly reached `instant`. */
  reachedBy(instant: XmppDateTime): number;
  /** This machine's time (ms) before which the gateway's clock has certainly not reached `instant`. */
  notBefore(instant: XmppDateTime): number;
}

/** How finely a reported date-time resolves the gateway's clock: 1 ms to 1 s by its digits. */
function resolutionMs(value: XmppDateTime): number {
  const digits = /\.(\d+)/.exec(value.text)?.[1]?.length ?? 0;
  return Math.max(1, 1000 / 10 ** Math.min(digits, 3));
}

/**
 * Measures the gateway's clock: each sample invokes a task that completes at once, between this
 * machine's instants `sent` and `answered`; its `created` lies within the resolution of the
 * gateway's time at some instant in between. The bounds are the intersection over the samples
 * (their union, should a gateway's clock jump between them).
 */
export async function measureGatewayClock(session: TaskSession, samples = 3): Promise<GatewayClock> {
  const lows: number[] = [];
  const highs: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const sent = Date.now();
    const { accepted } = await session.start('script', { steps: [{ complete: {} }] });
    const answered = Date.now();
    const created = toEpochMillis(accepted.created);
    const resolution = resolutionMs(accepted.created);
    lows.push(created - resolution - answered);
    highs.push(created + resolution - sent);
    await session.awaitSettled(accepted.taskId);
  }
  let low = Math.max(...lows);
  let high = Math.min(...highs);
  if (low > high) {
    low = Math.min(...lows);
    high = Math.max(...highs);
  }
  return {
    offsetLowMs: low,
    offsetHighMs: high,
    ahead: (aheadMs) => dateTimeFromMillis(Date.now() + high + aheadMs),
    ago: (agoMs) => dateTimeFromMillis(Date.now() + low - agoMs),
    reachedBy: (instant) => toEpochMillis(instant) - low,
    notBefore: (instant) => toEpochMillis(instant) - high,
  };
}

/** The longest a task with a deadline may be kept past it for the expiry cases (short-retention). */
export const SHORT_RETENTION_MS = 10_000;

/**
 * Invokes `args` with a deadline `aheadMs` ahead on the gateway's clock and requires a
 * retain-until that comes within SHORT_RETENTION_MS: the registry fixture short-retention, which
 * the reference SUT file provides with tasks.retentionSeconds. MissingFixture otherwise.
 */
export async function startShortlyRetained(
  session: TaskSession,
  clock: GatewayClock,
  args: JsonValue,
  aheadMs = 300,
): Promise<StartedTask> {
  const started = await session.start('script', args, {
    deadline: clock.ahead(aheadMs),
  });
  const { retainUntil } = started.accepted;
  const keptForMs = clock.reachedBy(retainUntil) - Date.now();
  if (keptForMs > SHORT_RETENTION_MS) {
    throw new MissingFixture(
      `retain-until ${retainUntil.text} is ${String(Math.round(keptForMs / 1000))} s away for a task whose deadline is ${String(aheadMs / 1000)} s away: needs a gateway configured to keep tasks only a few seconds past their deadline (registry fixture short-retention; the reference gateway's tasks.retentionSeconds, which fixtures/sut/reference-gateway.json sets to 0.25)`,
    );
  }
  return started;
}

/** Returns once `instant` has passed on the gateway's clock: a task of the conformance tools waits until then. */
export async function passOnGatewayClock(session: TaskSession, instant: XmppDateTime): Promise<void> {
  const { accepted } = await session.start('script', {
    steps: [{ wait: { until: instant.text } }, { complete: {} }],
  });
  await session.awaitSettled(accepted.taskId);
}
