/**
 * The engine's only sources of time: `now` for every comparison and time stamp, and timers for
 * deadline and input expiry. Injected, so tests move time explicitly and never sleep.
 */
import { dateTimeFromMillis, type XmppDateTime } from '../../protocol/datetime.ts';

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fire` once, no earlier than `delayMs` from now (as `now` counts). */
  setTimer(delayMs: number, fire: () => void): TimerHandle;
}

/** setTimeout cannot wait longer than 2^31-1 ms; longer waits re-arm in steps. */
const MAX_TIMEOUT_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fire) {
    const due = Date.now() + Math.max(0, delayMs);
    let timer: NodeJS.Timeout;
    const arm = (): void => {
      const left = due - Date.now();
      // Timers never keep the process alive: the XMPP connection does that.
      timer = setTimeout(left > MAX_TIMEOUT_MS ? arm : fire, Math.min(Math.max(0, left), MAX_TIMEOUT_MS));
      timer.unref();
    };
    arm();
    return {
      cancel() {
        clearTimeout(timer);
      },
    };
  },
};

/** The clock's current instant as an XEP-0082 date-time (millisecond precision, UTC). */
export function nowDateTime(clock: Clock): XmppDateTime {
  return dateTimeFromMillis(clock.now());
}
