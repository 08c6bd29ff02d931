/**
 * #cancellation, judged on the caller: its own wait limit is a local observation. Reaching it
 * neither creates a remote terminal state (no <cancel/> goes out for it) nor asserts one (the
 * caller's answer does not present the task as settled).
 */
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { stanzaAfterReport } from '../framework/call-settled.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import { marker, startCalledTask } from '../framework/task-steps.ts';

/** The caller config's timeoutSeconds for this case: short, so the case ends soon. */
const LOCAL_TIMEOUT_SECONDS = 2;

/**
 * What the caller answered: an error (the wait ended, nothing asserted) or its report. A report
 * presents the task as settled unless it says otherwise: MCP, a result without `isError`; a
 * gateway's call-out tool, any state but "unknown" (docs/caller.md: the state after a local timeout).
 */
async function answerOf(done: Promise<unknown>): Promise<{ error: boolean; text: string }> {
  try {
    return { error: false, text: JSON.stringify(await done) };
  } catch (error) {
    // The suite's own wait ended (a call-out task that never reported): that is no answer.
    if (error instanceof CannotTell) throw error;
    return { error: true, text: error instanceof Error ? error.message : String(error) };
  }
}

export const cancellationCallerSuite = defineCallerSuite('cancellation', 'Cancellation (caller side)', [
  {
    id: 'cancellation.caller-local-timeout-stays-local',
    requirements: ['cancellation.caller-timeout-local'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    statement:
      'When the caller’s own wait limit passes on a task that never settles, it sends no <cancel/> for it and does not answer as if the task had completed.',
    async run(context) {
      const called = await startCalledTask(context, 'frozen', { timeoutSeconds: LOCAL_TIMEOUT_SECONDS });
      const cancels = called.session.target.stream({ kind: 'cancel' });
      context.note(
        `the task stays accepted and silent past the caller's ${String(LOCAL_TIMEOUT_SECONDS)} s timeoutSeconds`,
      );
      const answer = await answerOf(called.call.done);
      // The caller's answer came at its limit; a cancel it sends for that would follow at once:
      // flushed (call-settled.ts), it is in already; else within the SUT file's reply timeout.
      const cancel = await stanzaAfterReport(
        context,
        called.session,
        cancels,
        context.timeouts.replySeconds * 1000,
      );
      if (cancel !== undefined) {
        throw new RequirementViolation(
          'cancellation.caller-timeout-local',
          `no <cancel/> for task ${called.task.taskId}: the ${String(LOCAL_TIMEOUT_SECONDS)} s wait limit is the caller's own`,
          cancel.xml,
          'cancellation.caller-timeout-local: the caller asked the target to cancel a task because its own wait limit passed',
        );
      }
      if (!answer.error) {
        const result = JSON.parse(answer.text) as { isError?: unknown; state?: unknown };
        const presentsSettled =
          context.callerInterface === 'mcp' ? result.isError !== true : result.state !== 'unknown';
        if (presentsSettled) {
          throw new RequirementViolation(
            'cancellation.caller-timeout-local',
            context.callerInterface === 'mcp'
              ? 'an answer that does not present the task as completed (the task never settled)'
              : 'a report with state "unknown" (the task never settled)',
            answer.text,
            'cancellation.caller-timeout-local: the caller answered a call whose task never settled as a completed result',
          );
        }
      }
      if (called.session.target.task(called.task.taskId).state !== 'accepted') {
        throw new CannotTell(
          'the fake target’s task moved, so the caller’s answer was not about a silent task',
        );
      }
      context.held(
        'cancellation.caller-timeout-local',
        `the wait ended with ${answer.error ? 'an error' : context.callerInterface === 'mcp' ? 'an isError result' : 'state "unknown"'} and no <cancel/> followed`,
      );
      context.note(`answer: ${answer.text}`);
      await called.session.target.sendEvent(called.task, {
        type: 'cancelled',
        payload: { reason: marker(context, 'cleanup') },
      });
    },
  },
]);
