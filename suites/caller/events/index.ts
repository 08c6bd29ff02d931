/**
 * #events, judged on the caller: an identical replay is ignored, a second event at a known
 * revision is ignored (and logged), and a lifecycle message that breaks any validity rule is
 * dropped whole and never shown as chat. What the caller made of each message is read from what
 * it reports to the suite through its interface: progress (MCP notifications, or the call-out
 * task's progress events), and the call's answer once the task's real, valid completion arrives.
 * Logging is the caller's own and not observable here.
 */
import { xml } from '@xmpp/xml';

import { generateIdentifier } from '../../../protocol/identifiers.ts';
import { buildEvent, buildMessage, serialize } from '../../../protocol/stanza/index.ts';
import { StanzaWaitTimeout } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';
import { callerWaitMs } from '../framework/caller-steps.ts';
import {
  completedWith,
  marker,
  reportsShowing,
  settleAndRead,
  startCalledTask,
  type CalledTask,
} from '../framework/task-steps.ts';

/** One kind of invalid lifecycle message (#events lists the validity rules), carrying `poison`. */
interface InvalidMessage {
  readonly kind: string;
  readonly send: (called: CalledTask, poison: string) => Promise<void>;
}

function lifecycleXml(
  called: CalledTask,
  events: readonly { eventId: string; revision: number; type: string; json: string }[],
  options: { type?: string; from?: string; body?: string } = {},
): string {
  const { task } = called;
  const message = buildMessage(
    {
      from: options.from ?? task.endpoint,
      to: task.caller,
      type: 'normal',
      id: generateIdentifier('msg-'),
    },
    ...events.map((event) =>
      buildEvent({
        taskId: task.taskId,
        eventId: event.eventId,
        revision: event.revision,
        type: event.type as never,
        json: event.json,
      }),
    ),
    ...(options.body === undefined ? [] : [xml('body', {}, options.body)]),
  );
  if (options.type !== undefined) message.attrs['type'] = options.type;
  return serialize(message);
}

function poisonedCompletion(called: CalledTask, poison: string, revision = called.task.revision + 1) {
  return {
    eventId: generateIdentifier('event-'),
    revision,
    type: 'completed',
    json: JSON.stringify(completedWith(poison)),
  };
}

/** The classes of invalid lifecycle message the spec lists, each a completion the caller must not take. */
const INVALID_MESSAGES: readonly InvalidMessage[] = [
  {
    kind: 'payload that is not JSON',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [
          {
            ...poisonedCompletion(called, poison),
            json: `{"result":{"content":[{"type":"text","text":"${poison}"}]`,
          },
        ]),
      ),
  },
  {
    kind: 'two events in one message',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [
          poisonedCompletion(called, poison),
          poisonedCompletion(called, poison, called.task.revision + 2),
        ]),
      ),
  },
  {
    kind: 'message type chat',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [poisonedCompletion(called, poison)], { type: 'chat' }),
      ),
  },
  {
    kind: 'a sender other than the task target',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [poisonedCompletion(called, poison)], {
          from: `impostor@${called.session.target.domain}`,
        }),
      ),
  },
  {
    kind: 'a task ID the caller does not retain',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [poisonedCompletion(called, poison)]).replaceAll(
          called.task.taskId,
          `${called.task.taskId}x`,
        ),
      ),
  },
  {
    kind: 'a completed payload with a member the event schema forbids',
    send: (called, poison) =>
      called.session.target.sendRaw(
        lifecycleXml(called, [
          {
            ...poisonedCompletion(called, poison),
            json: JSON.stringify({ ...completedWith(poison), unexpected: true }),
          },
        ]),
      ),
  },
  {
    kind: 'revision 0, the admission itself (history)',
    send: (called, poison) =>
      called.session.target.sendRaw(lifecycleXml(called, [poisonedCompletion(called, poison, 0)])),
  },
];

/** Whether the caller reported progress showing `text` within the reply wait. */
function forwardedProgress(context: CallerCaseContext, called: CalledTask, text: string): Promise<boolean> {
  return called.session.caller.reportedProgress(text, callerWaitMs(context));
}

/** Sends `messages`, then the valid completion; the call's answer must show the valid result only. */
async function expectDropped(
  context: CallerCaseContext,
  called: CalledTask,
  messages: readonly InvalidMessage[],
  requirement: 'events.caller-drops-invalid-messages' | 'event-json-schemas.reject-invalid-events',
): Promise<void> {
  const poisons = new Map<string, string>();
  for (const message of messages) {
    const poison = marker(context, 'poison');
    poisons.set(poison, message.kind);
    context.note(`sending an invalid lifecycle message (${message.kind}) completing with ${poison}`);
    await message.send(called, poison);
  }
  const valid = marker(context, 'valid');
  const answer = await settleAndRead(context, called, valid);
  for (const [poison, kind] of poisons) {
    if (answer.includes(poison)) {
      throw new RequirementViolation(
        requirement,
        `the invalid message (${kind}) ignored whole: the call answered with the valid completion ${valid}`,
        answer,
        `${requirement}: the caller took an invalid lifecycle message (${kind}) as the task's outcome`,
      );
    }
  }
  if (!answer.includes(valid)) {
    throw new CannotTell(
      `the call's answer shows neither the valid completion ${valid} nor an invalid one: ${answer}`,
    );
  }
  context.held(
    requirement,
    `${String(messages.length)} invalid message(s) ignored; the answer is the valid completion`,
  );
}

export const eventsCallerSuite = defineCallerSuite('events', 'Lifecycle events (caller side)', [
  {
    id: 'events.caller-ignores-identical-replay',
    requirements: ['events.caller-ignores-replay'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A progress event sent twice identically (same event ID, revision, type and payload) reaches the caller’s client once.',
    async run(context) {
      const called = await startCalledTask(context, 'replay');
      const { target } = called.session;
      const text = marker(context, 'progress');
      const sent = await target.sendEvent(called.task, {
        type: 'progress',
        payload: { percent: 10, message: text },
      });
      const forwarded = await forwardedProgress(context, called, text);
      if (!forwarded) {
        throw new CannotTell(
          'the caller reported no progress for a progress event (MCP: no notification; a call-out tool: no progress event of its task), so whether it ignores a replay is not observable through its interface',
        );
      }
      await target.replayEvent(sent);
      // A later event, forwarded only after the replay was handled (one ordered path): the judge's cue.
      const after = marker(context, 'progress');
      await target.sendEvent(called.task, { type: 'progress', payload: { percent: 20, message: after } });
      await forwardedProgress(context, called, after);
      context.note(`progress ${text} sent, replayed identically, then progress ${after}`);
      await settleAndRead(context, called, marker(context, 'valid'));
      const shown = called.session.caller.progressShowing(text);
      if (shown.length > 1) {
        throw new RequirementViolation(
          'events.caller-ignores-replay',
          'one progress report for the event and none for its identical replay',
          shown.join('\n'),
          'events.caller-ignores-replay: the caller acted on an identical replay of a progress event',
        );
      }
      context.held(
        'events.caller-ignores-replay',
        'the replayed progress event produced no second progress report',
      );
    },
  },
  {
    id: 'events.caller-ignores-conflicting-revision',
    requirements: ['events.caller-ignores-conflicting-revision'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A second event at a revision the caller already saw, with another event ID and payload, is ignored: a conflicting completion never becomes the call’s answer.',
    async run(context) {
      const called = await startCalledTask(context, 'conflict');
      const { target } = called.session;
      const running = await target.sendEvent(called.task, {
        type: 'status',
        payload: { state: 'running', updatedAt: target.timestamp() },
      });
      const poison = marker(context, 'conflicting');
      context.note(
        `status running at revision ${String(running.event.revision)}, then a completion ${poison} at that same revision`,
      );
      await target.sendEvent(called.task, {
        type: 'completed',
        payload: completedWith(poison),
        revision: running.event.revision,
        uncommitted: true,
      });
      const valid = marker(context, 'valid');
      const answer = await settleAndRead(context, called, valid);
      if (answer.includes(poison)) {
        throw new RequirementViolation(
          'events.caller-ignores-conflicting-revision',
          `the conflicting completion at revision ${String(running.event.revision)} ignored; the call answered with ${valid}`,
          answer,
          'events.caller-ignores-conflicting-revision: the caller took a conflicting event at a known revision as the outcome',
        );
      }
      if (!answer.includes(valid))
        throw new CannotTell(`the call's answer shows neither completion: ${answer}`);
      context.held('events.caller-ignores-conflicting-revision', 'the conflicting completion was ignored');
    },
  },
  {
    id: 'events.caller-drops-invalid-lifecycle-messages',
    requirements: ['events.caller-drops-invalid-messages'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A lifecycle message that breaks a validity rule (not JSON, two events, type chat, another sender, an unknown task, revision 0) is ignored whole: its completion never becomes the call’s answer.',
    async run(context) {
      const called = await startCalledTask(context, 'invalid');
      await expectDropped(
        context,
        called,
        INVALID_MESSAGES.filter((message) => !message.kind.includes('event schema forbids')),
        'events.caller-drops-invalid-messages',
      );
    },
  },
  {
    id: 'events.caller-shows-no-rejected-message-as-chat',
    requirements: ['events.caller-no-chat-fallback'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'No part of a rejected lifecycle message (its body, its payload) reaches the caller’s client in any form: not in a notification, not in the call’s answer.',
    async run(context) {
      const called = await startCalledTask(context, 'nochat');
      const poison = marker(context, 'rejected');
      context.note(
        `a chat-typed lifecycle message with body and payload ${poison}, then one whose JSON is broken`,
      );
      await called.session.target.sendRaw(
        lifecycleXml(called, [poisonedCompletion(called, poison)], {
          type: 'chat',
          body: `chat text ${poison}`,
        }),
      );
      await called.session.target.sendRaw(
        lifecycleXml(called, [{ ...poisonedCompletion(called, poison), json: `${poison} is not JSON` }], {
          body: `chat text ${poison}`,
        }),
      );
      await settleAndRead(context, called, marker(context, 'valid'));
      const shown = reportsShowing(called.session, poison);
      if (shown.length > 0) {
        throw new RequirementViolation(
          'events.caller-no-chat-fallback',
          `nothing of the rejected messages (${poison}) in anything the caller reported`,
          shown.join('\n'),
          'events.caller-no-chat-fallback: the caller delivered part of a rejected lifecycle message to its client',
        );
      }
      context.held(
        'events.caller-no-chat-fallback',
        'nothing the caller reported showed the rejected messages',
      );
    },
  },
  {
    id: 'events.caller-recovers-state-after-gap',
    requirements: ['events.caller-queries-on-gap'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'SHOULD',
    statement:
      'An event that skips a revision makes the caller ask for the task’s state rather than assume a failure.',
    async run(context) {
      const called = await startCalledTask(context, 'gap');
      const { target } = called.session;
      const queries = target.stream({ kind: 'task-state', from: called.callerJid });
      context.note(`a progress event two revisions ahead of the task's ${String(called.task.revision)}`);
      await target.sendEvent(called.task, {
        type: 'progress',
        payload: { message: marker(context, 'ahead') },
        revision: called.task.revision + 2,
        uncommitted: true,
      });
      try {
        await queries.next(callerWaitMs(context));
      } catch (error) {
        if (!(error instanceof StanzaWaitTimeout)) throw error;
        throw new RequirementViolation(
          'events.caller-queries-on-gap',
          `a <task-state-request/> for ${called.task.taskId} after the gap`,
          `no state query within ${String(callerWaitMs(context))} ms`,
          'events.caller-queries-on-gap: the caller did not recover state after a revision gap',
        );
      }
      context.held('events.caller-queries-on-gap', 'the caller queried the task state after the gap');
      await settleAndRead(context, called, marker(context, 'valid'));
    },
  },
]);

export const eventJsonSchemasCallerSuite = defineCallerSuite(
  'event-json-schemas',
  'Event JSON schemas (caller side)',
  [
    {
      id: 'event-json-schemas.caller-rejects-schema-invalid-event',
      requirements: ['event-json-schemas.reject-invalid-events'],
      assessments: ['caller-side'],
      interfaces: EVERY_INTERFACE,
      level: 'MUST',
      interpretations: ['interp-45'],
      statement:
        'A completed event whose payload breaks the event schema (a member the schema forbids) is dropped: it never becomes the call’s answer.',
      async run(context) {
        const called = await startCalledTask(context, 'schema');
        await expectDropped(
          context,
          called,
          INVALID_MESSAGES.filter((message) => message.kind.includes('event schema forbids')),
          'event-json-schemas.reject-invalid-events',
        );
      },
    },
  ],
);
