// #task-message-routing over the wire (issue 5, item 2): events go to the invoking full JID; when
// that route is lost (an error comes back from that full JID for an event), the caller's tasks
// notify its bare JID and the bounced event is sent again there, so every resource of the same
// bare JID receives the events; and events committed while the gateway's component link is down
// are not lost: they are sent once the link is back.
//
// The bounce comes from the invoking client itself: Prosody stores messages for an account
// without available resources (mod_offline is always loaded), so it never bounces them here.
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { NS } from '../protocol/namespaces.ts';
import { parseCancelAccepted } from '../protocol/stanza/index.ts';
import { requesterOf } from '../reference-gateway/component/iq-router.ts';
import { ALICE, BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  EVENT_TIMEOUT_MS,
  eventsUntilTerminal,
  invokeAccepted,
  invokeOf,
  nextEvents,
  sendCancel,
  taskState,
  withConformanceEndpoint,
} from './test-support/tasks.ts';
import { resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint });

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} did not happen within ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function runningTask(caller: Caller, deadline?: string): Promise<string> {
  const accepted = await invokeAccepted(
    caller,
    invokeOf({ steps: [{ wait: {} }], ...(deadline === undefined ? {} : { deadline }) }),
  );
  expect((await nextEvents(caller, accepted.taskId, 1, 1)).kinds).toEqual(['status:running']);
  return accepted.taskId;
}

describe('message routing (#task-message-routing, #events)', () => {
  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`falls back to ${who}'s bare JID once the invoking resource bounces an event, and re-sends it there`, async () => {
      const fed = world();
      const invoker = await fed.caller(jid, 'invoker');
      const accepted = await invokeAccepted(invoker, invokeOf({ steps: [{ wait: {} }] }));
      const [running] = (await nextEvents(invoker, accepted.taskId, 1, 1)).events;
      if (running === undefined) throw new Error('no running event');
      expect(running.stanza.to).toBe(invoker.jid);
      // The invoking resource answers the event with an error (RFC 6120 §8.3: it takes no
      // task events), as a server does for a resource that is gone: the route is lost.
      const rerouted = fed.gateway.next('rerouted');
      await invoker.send(
        xml(
          'message',
          { to: CONFORMANCE, id: running.event.eventId, type: 'error' },
          xml('error', { type: 'cancel' }, xml('service-unavailable', { xmlns: NS.stanzas })),
        ),
      );
      await within(rerouted, EVENT_TIMEOUT_MS, 'the handling of the bounce');
      // The bounced event again, unchanged but for the address: now the bare JID.
      const [again] = (await nextEvents(invoker, accepted.taskId, 1, 1)).events;
      expect(again?.stanza.to).toBe(jid);
      expect(again?.event).toEqual(running.event);

      // Later events go to the bare JID too, so every available resource receives them.
      const other = await fed.caller(jid, 'other');
      const cancelled = parseCancelAccepted(
        resultPayload(await sendCancel(other, { taskId: accepted.taskId, expectedRevision: 1 })),
      );
      expect(cancelled.revision).toBe(2);
      for (const resource of [other, invoker]) {
        const history = await eventsUntilTerminal(resource, accepted.taskId, 2);
        expect(history.kinds).toEqual(['status:cancelling', 'cancelled']);
        for (const event of history.events) expect(event.stanza.to).toBe(jid);
      }
      expect((await taskState(other, accepted.taskId)).state).toBe('cancelled');
      await other.close();
      await invoker.close();
    });
  }

  it('keeps the events committed while the component link is down, and sends them once it is back', async () => {
    const fed = world();
    const bob = await fed.caller(BOB, 'desk');
    const taskId = await runningTask(bob);
    const link = fed.federation.links.component;
    const offline = fed.gateway.next('offline');
    // Frozen first, so the gateway's reconnect attempt hangs until the link resumes.
    link.freeze();
    link.cut();
    await within(offline, EVENT_TIMEOUT_MS, 'the loss of the component stream');
    // A cancellation committed while the gateway cannot send anything.
    const requester = requesterOf(bob.jid);
    if (requester === undefined) throw new Error('no requester');
    const outcome = fed.gateway.tasks.engine.cancel(requester, CONFORMANCE, { taskId, expectedRevision: 1 });
    expect(outcome.ok).toBe(true);
    expect(fed.gateway.online).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fed.gateway.tasks.undelivered).toBe(1);
    const online = fed.gateway.next('online');
    link.resume();
    await within(online, EVENT_TIMEOUT_MS, 'the reconnection');
    const history = await eventsUntilTerminal(bob, taskId, 2);
    expect(history.kinds).toEqual(['status:cancelling', 'cancelled']);
    expect(history.events.map((event) => event.event.eventId)).toEqual(
      fed.state.store.tasks.events(taskId, 2).map((event) => event.eventId),
    );
    expect(fed.gateway.tasks.undelivered).toBe(0);
  });
});
