/**
 * #identity-presence, as far as a client can see it: a visible virtual endpoint answers
 * subscription requests and probes the way XMPP IM has a contact answer them (approving is
 * allowed, not required), and the answers about a hidden endpoint and about a JID that names
 * nothing cannot be told apart. vCards, profile contents and blocking are not observable here
 * (their registry entries say why).
 *
 * A server hands subscription answers (`subscribed`/`unsubscribed`) only to resources that asked
 * for the roster (RFC 6121 §3.1.6), so each case opens a resource of its own that does; the
 * shared role callers stay roster-less. Probes are the server's: a new resource's initial
 * presence makes it probe every contact the account is subscribed to (RFC 6121 §4.3).
 */
import { xml } from '@xmpp/xml';
import { WaitTimeout, type Caller, type ReceivedStanza } from '../../../harness/driver/index.ts';
import { bareJidOf, JidError, normalizeBareJid } from '../../../protocol/jid/index.ts';
import { parseXml } from '../../../protocol/stanza/index.ts';
import { defineSuite, type CaseDeclaration, type CaseId } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { comparableXml, expectThat } from '../../framework/expect.ts';
import { CannotTell, NotApplicable } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';

const NS_ROSTER = 'jabber:iq:roster';

/** Another resource of `of`'s account that asked for the roster, so subscription answers reach it. */
async function rosterResource(context: CaseContext, of: Caller): Promise<Caller> {
  const resource = await context.callers.sibling(of);
  await resource.exchangeIq(resource.bareJid, 'get', xml('query', { xmlns: NS_ROSTER }));
  return resource;
}

function isFrom(stanza: ReceivedStanza, jid: string): boolean {
  if (stanza.name !== 'presence' || stanza.from === undefined) return false;
  try {
    return bareJidOf(stanza.from) === normalizeBareJid(jid);
  } catch (error) {
    if (error instanceof JidError) return false;
    throw error;
  }
}

/** The first presence from `jid` that arrived since `since`, or undefined at the deadline. */
async function presenceFrom(
  context: CaseContext,
  caller: Caller,
  jid: string,
  since: number,
): Promise<ReceivedStanza | undefined> {
  try {
    return await caller.waitForStanza((stanza) => isFrom(stanza, jid), {
      since,
      timeoutMs: context.sut.replyTimeoutMs,
      description: `presence from ${jid}`,
    });
  } catch (error) {
    if (error instanceof WaitTimeout) return undefined;
    throw error;
  }
}

/** What a contact may answer a subscription request with (RFC 6121 §3.1): approve, decline, or its presence. */
const SUBSCRIPTION_ANSWERS: readonly (string | undefined)[] = [
  'subscribed',
  'unsubscribed',
  undefined,
  'unavailable',
];

/** Subscribes `resource` to the endpoint and returns the endpoint's answer; no answer violates #identity-presence. */
async function subscribe(context: CaseContext, resource: Caller, jid: string): Promise<ReceivedStanza> {
  const since = resource.inbound.length;
  await resource.send(xml('presence', { to: jid, type: 'subscribe' }));
  const answer = await presenceFrom(context, resource, jid, since);
  expectThat(
    answer?.xml ?? '(nothing)',
    'identity-presence.presence-handling',
    `an answer from ${jid} to the subscription request within ${String(context.sut.replyTimeoutMs)} ms: subscribed, unsubscribed or its presence`,
    answer !== undefined && SUBSCRIPTION_ANSWERS.includes(answer.type),
  );
  if (answer === undefined) throw new Error('unreachable');
  return answer;
}

function subscribeCase(
  role: 'local' | 'remote',
  id: CaseId<'identity-presence'>,
  statement: string,
): CaseDeclaration<'identity-presence'> {
  return {
    id,
    requirements: ['identity-presence.presence-handling'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement,
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const resource = await rosterResource(context, await context.callers[role]());
      await subscribe(context, resource, endpoint.jid);
    },
  };
}

/** The first presence from `jid` already received since `since`. */
function firstPresence(caller: Caller, jid: string, since: number): ReceivedStanza | undefined {
  return caller.inbound.slice(since).find((stanza) => isFrom(stanza, jid));
}

/** The answer with its sender left out, for comparing what two endpoints said. */
function answerShape(stanza: ReceivedStanza | undefined): string {
  if (stanza === undefined) return '(no answer)';
  const element = stanza.element ?? parseXml(stanza.xml);
  return comparableXml(element, ['from', 'id']);
}

export const identityPresenceSuite = defineSuite('identity-presence', 'Identity and Presence', [
  subscribeCase(
    'local',
    'identity-presence.subscribe-visible-local',
    'A visible endpoint answers a local caller’s subscription request (approving, declining, or with its presence).',
  ),
  subscribeCase(
    'remote',
    'identity-presence.subscribe-visible-federated',
    'A visible endpoint answers a federated caller’s subscription request across server-to-server.',
  ),
  {
    id: 'identity-presence.probe-answered',
    requirements: ['identity-presence.presence-handling'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement:
      'Once subscribed to a visible endpoint, a new resource’s server probe is answered with the endpoint’s presence (available or unavailable).',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const local = await context.callers.local();
      const answer = await subscribe(context, await rosterResource(context, local), endpoint.jid);
      if (answer.type === 'unsubscribed') {
        // Approving is allowed, not required (RFC 6121 §3.1): without a subscription there is no probe.
        throw new NotApplicable(
          `${endpoint.jid} declined the subscription (which it may), so the server has nothing to probe`,
        );
      }
      // Connecting sends initial presence; the server then probes every contact with a subscription.
      const fresh = await context.callers.sibling(local);
      const presence = await presenceFrom(context, fresh, endpoint.jid, 0);
      expectThat(
        presence?.xml ?? '(nothing)',
        'identity-presence.presence-handling',
        `the presence of ${endpoint.jid} (available or unavailable) in answer to the server's probe`,
        presence !== undefined && (presence.type === undefined || presence.type === 'unavailable'),
      );
    },
  },
  {
    id: 'identity-presence.hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['identity-presence.presence-handling'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement:
      'A local caller’s subscription request to a hidden endpoint is answered exactly as one to a JID that names nothing, and neither is approved.',
    run: async (context) => {
      const world = requireWorld(context);
      const hidden = world.hiddenEndpoint.jid;
      const missing = world.nonexistentJid;
      const resource = await rosterResource(context, await context.callers.local());
      const since = resource.inbound.length;
      await resource.send(xml('presence', { to: hidden, type: 'subscribe' }));
      await resource.send(xml('presence', { to: missing, type: 'subscribe' }));
      const [toHidden, toMissing] = await Promise.all([
        presenceFrom(context, resource, hidden, since),
        presenceFrom(context, resource, missing, since),
      ]);
      expectThat(
        toHidden?.xml ?? '(no answer)',
        'identity-presence.presence-handling',
        `the same answer for hidden ${hidden} as for nonexistent ${missing}:\n${toMissing?.xml ?? '(no answer)'}`,
        answerShape(toHidden) === answerShape(toMissing),
      );
      expectThat(
        toHidden?.xml ?? '(no answer)',
        'identity-presence.presence-handling',
        `a declined subscription (unsubscribed), as XMPP IM answers for a JID without an account`,
        toHidden?.type === 'unsubscribed',
      );
    },
  },
  {
    id: 'identity-presence.probe-hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['identity-presence.presence-handling'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement:
      'A presence probe from a local caller without a subscription to a hidden endpoint is answered exactly as one to a JID that names nothing, and neither answer is available presence.',
    run: async (context) => {
      const world = requireWorld(context);
      const hidden = world.hiddenEndpoint.jid;
      const missing = world.nonexistentJid;
      const visible = world.visibleEndpoint.jid;
      const caller = await context.callers.local();
      const since = caller.inbound.length;
      await caller.send(xml('presence', { to: hidden, type: 'probe' }));
      await caller.send(xml('presence', { to: missing, type: 'probe' }));
      // The visible endpoint's answer travels the same path after the other two: once it is in,
      // so is whatever they answered. Without it only a timeout would separate "answered alike"
      // from "not answered yet", which is no evidence.
      await caller.send(xml('presence', { to: visible, type: 'probe' }));
      const fence = await presenceFrom(context, caller, visible, since);
      if (fence === undefined) {
        throw new CannotTell(
          `the visible endpoint ${visible} answered no probe within the reply timeout, so nothing shows that the answers to the probes of ${hidden} and ${missing} sent before it (if any) have arrived`,
        );
      }
      const toHidden = firstPresence(caller, hidden, since);
      const toMissing = firstPresence(caller, missing, since);
      expectThat(
        toHidden?.xml ?? '(no answer)',
        'identity-presence.presence-handling',
        `the same answer to a probe of hidden ${hidden} as of nonexistent ${missing}:\n${toMissing?.xml ?? '(no answer)'}`,
        answerShape(toHidden) === answerShape(toMissing),
      );
      // XMPP IM (RFC 6121 §4.3.2) answers a probe from a sender without a subscription with
      // 'unsubscribed', and a JID that names nothing has no availability to show.
      const available = [toHidden, toMissing].filter(
        (answer) => answer !== undefined && answer.type === undefined,
      );
      expectThat(
        available.map((answer) => answer?.xml).join('\n') || '(none)',
        'identity-presence.presence-handling',
        `no available presence from ${hidden} (hidden from ${caller.bareJid}) or ${missing} (no endpoint) in answer to a probe`,
        available.length === 0,
      );
    },
  },
]);
