/**
 * #task-message-routing: lifecycle events go to the full JID that invoked, carry no XEP-0334
 * no-copy hint and have type normal.
 */
import { defineSuite } from '../../framework/case.ts';
import { expectThat } from '../../framework/expect.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';

export const taskMessageRoutingSuite = defineSuite('task-message-routing', 'Task Message Routing', [
  {
    id: 'task-message-routing.events-to-invoking-resource',
    requirements: ['task-message-routing.events-to-full-jid'],
    profiles: ['task-execution'],
    level: 'SHOULD',
    statement:
      'With another resource of the caller online, every lifecycle event is addressed to the full JID that invoked.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const sibling = await context.callers.sibling(caller);
      const siblingTasks = new TaskSession(context, sibling, target);
      const { accepted } = await siblingTasks.start('script', { steps: [{ complete: {} }] });
      const history = await siblingTasks.awaitSettled(accepted.taskId);
      for (const received of history) {
        expectThat(
          received.stanza.xml,
          'task-message-routing.events-to-full-jid',
          `to='${sibling.jid}'`,
          received.stanza.to === sibling.jid,
        );
      }
    },
  },
  {
    id: 'task-message-routing.no-no-copy-hint',
    requirements: ['task-message-routing.no-no-copy-hint'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-41'],
    statement:
      'No lifecycle event carries the XEP-0334 no-copy hint (bare-JID fallback must stay possible); distinct events sharing a stanza ID or asking for receipts are warned about.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const { accepted } = await tasks.start('script', {
        steps: [{ progress: { percent: 10 } }, { complete: {} }],
      });
      const history = await tasks.awaitSettled(accepted.taskId);
      const ids = new Set<string>();
      for (const received of history) {
        const hint = received.stanza.element?.getChild('no-copy', 'urn:xmpp:hints');
        expectThat(
          received.stanza.xml,
          'task-message-routing.no-no-copy-hint',
          'no <no-copy xmlns="urn:xmpp:hints"/>',
          hint === undefined,
        );
        if (received.stanza.element?.getChild('request', 'urn:xmpp:receipts') !== undefined) {
          context.warn(
            'task-message-routing.no-no-copy-hint',
            'a lifecycle event requests a XEP-0184 receipt (interp-41)',
          );
        }
        const id = received.stanza.id;
        if (id !== undefined && ids.has(id))
          context.warn(
            'task-message-routing.no-no-copy-hint',
            `distinct events share the stanza id ${id} (interp-41)`,
          );
        if (id !== undefined) ids.add(id);
      }
    },
  },
]);
