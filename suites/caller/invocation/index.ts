/**
 * #invocation, judged on the caller: a lost `<accepted/>` leaves admission uncertain, so the
 * caller repeats the identical request (same request ID, same fingerprinted content) instead of
 * issuing a fresh one, which could run the tool twice.
 */
import { StanzaWaitTimeout } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import { nextDuringCall } from '../framework/call-settled.ts';
import { callerWaitMs, oneToolWorld } from '../framework/caller-steps.ts';
import { fingerprintDifferences, fingerprintedContent, invokeOf } from '../framework/invoke-stanzas.ts';

/** The endpoint's advertised replay window in the no-late-retry world: short, so the case ends soon. */
const SHORT_REPLAY_SECONDS = 4;
/** Transit slack: a retry the caller sent inside the window may arrive a little after it. */
const ARRIVAL_GRACE_MS = 1000;

function contentText(content: Record<string, string>): string {
  return Object.entries(content)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

export const invocationCallerSuite = defineCallerSuite('invocation', 'Invocation (caller side)', [
  {
    id: 'invocation.caller-retry-identical-after-lost-accepted',
    requirements: ['invocation.caller-retries-identically'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    statement:
      'After the <accepted/> of its invoke is lost, the caller repeats the identical request: the same request ID and the same fingerprinted content, never a fresh request.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'retry', 'echo.say');
      const session = await context.startCaller(world);
      const invokes = session.target.stream({ kind: 'invoke' });
      const lost = session.target.on({ kind: 'invoke' }, { answer: 'drop' }, 1);
      const text = context.random.string('abcdefghijklmnopqrstuvwxyz', 12);
      context.note(`the first invoke's <accepted/> will be lost; arguments {"text":"${text}"}`);
      const call = await session.caller.call({ jid, tool, arguments: { text } });
      const first = await invokes.next(callerWaitMs(context));
      let retry;
      try {
        retry = await invokes.next(callerWaitMs(context));
      } catch (error) {
        if (!(error instanceof StanzaWaitTimeout)) throw error;
        throw new CannotTell(
          `the caller sent no second invoke within ${String(callerWaitMs(context))} ms of the first (twice the SUT file's replySeconds): the retry could not be observed`,
        );
      }
      if (lost.used !== 1) throw new CannotTell('the fake target did not drop the first <accepted/>');
      const firstId = invokeOf(first).requestId;
      if (invokeOf(retry).requestId !== firstId) {
        throw new RequirementViolation(
          'invocation.caller-retries-identically',
          `a retry with request-id ${firstId} (the request whose <accepted/> was lost)`,
          `a new request:\n${retry.xml}`,
          'invocation.caller-retries-identically: after a lost <accepted/> the caller sent a fresh request ID instead of retrying the identical request',
        );
      }
      const differences = fingerprintDifferences(first, retry);
      if (differences.length > 0) {
        throw new RequirementViolation(
          'invocation.caller-retries-identically',
          `the identical request:\n${contentText(fingerprintedContent(first))}`,
          `a retry that differs in ${differences.join(', ')}:\n${contentText(fingerprintedContent(retry))}`,
          `invocation.caller-retries-identically: the retry of request ${firstId} changed ${differences.join(', ')}`,
        );
      }
      context.held('invocation.caller-retries-identically', `retry of ${firstId} was identical`);
      // Settle the call: the retry met the same task, which now completes.
      const task = session.target.taskOf(first);
      await session.target.sendEvent(task, {
        type: 'completed',
        payload: { result: { content: [{ type: 'text', text }] } },
      });
      await call.done.catch(() => undefined);
    },
  },
  {
    id: 'invocation.caller-no-retry-after-replay-window',
    requirements: ['invocation.caller-no-late-retry'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    statement:
      'When no <accepted/> ever arrives, the caller stops repeating the request once the endpoint’s advertised replay window has passed; a fresh request ID or recovery is its own choice.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'window', 'echo.say', {
        replaySeconds: SHORT_REPLAY_SECONDS,
      });
      const session = await context.startCaller(world);
      const invokes = session.target.stream({ kind: 'invoke' });
      // Every invoke is admitted and its answer lost: the caller never learns the outcome.
      session.target.on({ kind: 'invoke' }, { answer: 'drop' });
      context.note(
        `every <accepted/> is lost; ${jid} advertises a ${String(SHORT_REPLAY_SECONDS)} s replay window`,
      );
      const call = await session.caller.call({
        jid,
        tool,
        arguments: { text: context.random.string('abcdefgh', 8) },
      });
      const first = await invokes.next(callerWaitMs(context));
      const requestId = invokeOf(first).requestId;
      const windowEndsMs = first.atMs + SHORT_REPLAY_SECONDS * 1000 + ARRIVAL_GRACE_MS;
      // Watched until a late repeat arrives, or the call settled and was flushed (call-settled.ts),
      // or for the call's longest wait and the SUT file's reply timeout more.
      const lateRepeats = session.target.stream({
        kind: 'invoke',
        where: (stanza) => stanza.atMs > windowEndsMs && invokeOf(stanza).requestId === requestId,
      });
      const watchMs =
        SHORT_REPLAY_SECONDS * 1000 + callerWaitMs(context) + context.timeouts.replySeconds * 1000;
      await nextDuringCall(context, session, call.done, lateRepeats, watchMs);
      const repeats = session.target.log
        .all({ kind: 'invoke' })
        .filter((stanza) => invokeOf(stanza).requestId === requestId);
      const late = repeats.filter((stanza) => stanza.atMs > windowEndsMs);
      if (late[0] !== undefined) {
        throw new RequirementViolation(
          'invocation.caller-no-late-retry',
          `no invoke with request-id ${requestId} after ${String(SHORT_REPLAY_SECONDS)} s from its first arrival (+${String(ARRIVAL_GRACE_MS)} ms transit slack)`,
          `${String(late.length)} late repeat(s), the first ${(late[0].atMs - first.atMs).toFixed(0)} ms after the first send:\n${late[0].xml}`,
          `invocation.caller-no-late-retry: the caller repeated request ${requestId} after the endpoint's replay window`,
        );
      }
      context.held(
        'invocation.caller-no-late-retry',
        `${String(repeats.length)} send(s) of ${requestId}, none after the replay window`,
      );
    },
  },
]);
