/**
 * Absence checks on the caller ("it sent no X") used to wait out a whole window after the call,
 * twice the SUT file's reply timeout, whatever the caller did. When the caller already reported
 * the call's outcome, what it sent while handling the call can be collected at once instead: a
 * barrier round trip to it (FakeTarget.roundTrip) puts in the target's log every stanza it sent
 * the target before it read the barrier, which it reads after its report. A stanza the caller
 * sends later, on its own, is outside the call these cases judge.
 */
import {
  StanzaWaitTimeout,
  type RecordedStanza,
  type StanzaStream,
} from '../../../harness/fake-target/index.ts';
import type { CallerCaseContext, CallerScene } from './caller-context.ts';

/** Resolves true once `done` settled (either way), false when `timeoutMs` passed or `signal` aborted first. */
async function settledWithin(
  done: Promise<unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, timeoutMs);
    onAbort = () => {
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      done.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * True once the call settled within `windowMs` and the caller was flushed (flushCaller). False
 * when the call is still open at the window's end, when flushing failed, or when `signal` aborts.
 */
export async function callSettledAndFlushed(
  context: CallerCaseContext,
  session: CallerScene,
  done: Promise<unknown>,
  windowMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  if (!(await settledWithin(done, windowMs, signal))) return false;
  return await flushCaller(context, session, signal);
}

/**
 * For a caller that already reported its call: a barrier round trip to it, after which the
 * target's log holds all the call made it send the target. False when it sent the target nothing
 * yet (no address to ping), when it answers no ping within the SUT file's reply timeout, or when
 * `signal` aborts: the case then waits out its window as before.
 */
export async function flushCaller(
  context: CallerCaseContext,
  session: CallerScene,
  signal?: AbortSignal,
): Promise<boolean> {
  const aborted = (): boolean => signal?.aborted === true;
  const callerJid = session.target.log.all({}).findLast((stanza) => stanza.from !== undefined)?.from;
  if (callerJid === undefined || aborted()) return false;
  const flushed = await session.target.roundTrip(callerJid, context.timeouts.replySeconds * 1000, signal);
  if (aborted()) return false;
  context.note(
    flushed
      ? `${callerJid} answered a ping after its report, so all it sent while handling the call is in`
      : `${callerJid} answered no ping after its report: waiting out the window`,
  );
  return flushed;
}

/**
 * Waits for the next stanza of `stream` for at most `windowMs`, or less: until the call settled
 * and was flushed (callSettledAndFlushed) with nothing on the stream. Returns the stanza, or
 * undefined when none came.
 */
export async function nextDuringCall(
  context: CallerCaseContext,
  session: CallerScene,
  done: Promise<unknown>,
  stream: StanzaStream,
  windowMs: number,
): Promise<RecordedStanza | undefined> {
  const stop = new AbortController();
  const arrived = stream.next(windowMs, stop.signal).catch((error: unknown) => {
    if (error instanceof StanzaWaitTimeout || stop.signal.aborted) return undefined;
    throw error;
  });
  const flushed = callSettledAndFlushed(context, session, done, windowMs, stop.signal).then((ok) =>
    // Not flushed: the stream's own wait decides, to the window's end.
    ok ? ('flushed' as const) : new Promise<never>(() => undefined),
  );
  try {
    const first = await Promise.race([arrived, flushed]);
    if (first !== 'flushed') return first;
    // The barrier is in: a stanza that came before it is on the stream already.
    return stream.pending()[0];
  } finally {
    stop.abort();
  }
}

/**
 * For a caller that already reported its call: the first stanza of `stream` it sent while
 * handling it, or undefined. Flushed (flushCaller), the log has it already; else `stream` is
 * watched for `windowMs` as before.
 */
export async function stanzaAfterReport(
  context: CallerCaseContext,
  session: CallerScene,
  stream: StanzaStream,
  windowMs: number,
): Promise<RecordedStanza | undefined> {
  if (await flushCaller(context, session)) return stream.pending()[0];
  return await stream.next(windowMs).catch((error: unknown) => {
    if (error instanceof StanzaWaitTimeout) return undefined;
    throw error;
  });
}
