/**
 * #task-message-routing, judged on the caller: task commands and recovery IQs go to the
 * target's bare JID, even when the target's events come from one of its full JIDs.
 */
import { StanzaWaitTimeout, type RecordedStanza } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import { callerWaitMs } from '../framework/caller-steps.ts';
import { marker, startCalledTask } from '../framework/task-steps.ts';

const TASK_IQS = ['invoke', 'cancel', 'provide-input', 'task-state', 'task-result'] as const;

export const taskMessageRoutingCallerSuite = defineCallerSuite(
  'task-message-routing',
  'Task message routing (caller side)',
  [
    {
      id: 'task-message-routing.caller-commands-to-bare-jid',
      requirements: ['task-message-routing.bare-jid-commands'],
      assessments: ['caller-side'],
      interfaces: EVERY_INTERFACE,
      level: 'MUST',
      interpretations: ['interp-19'],
      statement:
        'The caller sends its invoke, cancel and state queries to the endpoint’s bare JID, though the task’s events come from a full JID of it.',
      async run(context) {
        const called = await startCalledTask(context, 'routing');
        const { target } = called.session;
        const fullJid = `${called.jid}/${marker(context, 'worker')}`;
        context.note(`events come from ${fullJid}; then a revision gap and a cancellation by the suite`);
        const commands = target.stream({ kind: ['cancel', 'task-state', 'task-result'] });
        await target.sendEvent(called.task, {
          type: 'status',
          payload: { state: 'running', updatedAt: target.timestamp() },
          from: fullJid,
        });
        // The suite's cancellation reaches the caller by another path than the target's events:
        // once the caller reports this progress (if it reports progress at all), it has read the
        // full JID before it is asked to cancel.
        const cue = marker(context, 'progress');
        const progress = await target.sendEvent(called.task, {
          type: 'progress',
          payload: { message: cue },
          from: fullJid,
        });
        if (!(await called.session.caller.reportedProgress(cue, callerWaitMs(context)))) {
          context.note('the caller reported no progress: the cancellation may overtake the events');
        }
        // A gap: the caller may recover state (a SHOULD), which is a recovery IQ to route.
        await target.sendEvent(called.task, {
          type: 'progress',
          payload: { message: marker(context, 'gap') },
          revision: progress.event.revision + 2,
          from: fullJid,
          uncommitted: true,
        });
        called.call.cancel(
          context.callerInterface === 'mcp' ? 'the suite cancels over MCP' : 'the suite cancels',
        );
        let command: RecordedStanza | undefined;
        try {
          command = await commands.next(callerWaitMs(context));
        } catch (error) {
          if (!(error instanceof StanzaWaitTimeout)) throw error;
        }
        if (command === undefined) {
          throw new CannotTell(
            'after a revision gap and a cancellation by the suite the caller sent no cancel, state or result query: there is no command to judge beyond the invoke',
          );
        }
        await target.sendEvent(called.task, { type: 'cancelled', payload: {}, from: fullJid });
        const sent = target.log.all({ kind: [...TASK_IQS] });
        const misrouted = sent.filter((stanza) => stanza.to !== called.jid);
        if (misrouted[0] !== undefined) {
          throw new RequirementViolation(
            'task-message-routing.bare-jid-commands',
            `every task command and recovery IQ addressed to ${called.jid}`,
            misrouted.map((stanza) => stanza.xml).join('\n'),
            `task-message-routing.bare-jid-commands: the caller sent ${misrouted[0].kind} to ${misrouted[0].to ?? '(no to)'}`,
          );
        }
        context.held(
          'task-message-routing.bare-jid-commands',
          `${String(sent.length)} task IQ(s) (${[...new Set(sent.map((stanza) => stanza.kind))].join(', ')}) all to ${called.jid}`,
        );
      },
    },
  ],
);
