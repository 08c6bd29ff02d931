/**
 * #invocation, judged on the caller: a lost `<accepted/>` leaves admission uncertain, so the
 * caller repeats the identical request (same request ID, same fingerprinted content) instead of
 * issuing a fresh one, which could run the tool twice.
 */
import { StanzaWaitTimeout } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { callerWaitMs, listedTool, oneToolWorld } from '../framework/caller-steps.ts';
import { fingerprintDifferences, fingerprintedContent, invokeOf } from '../framework/invoke-stanzas.ts';

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
    level: 'MUST',
    statement:
      'After the <accepted/> of its invoke is lost, the caller repeats the identical request: the same request ID and the same fingerprinted content, never a fresh request.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'retry', 'echo.say');
      const session = await context.startSession(world);
      const listed = await listedTool(session, jid, tool);
      const invokes = session.target.stream({ kind: 'invoke' });
      const lost = session.target.on({ kind: 'invoke' }, { answer: 'drop' }, 1);
      const text = context.random.string('abcdefghijklmnopqrstuvwxyz', 12);
      context.note(`the first invoke's <accepted/> will be lost; arguments {"text":"${text}"}`);
      const call = session.caller.driver.call(listed.name, { text });
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
]);
