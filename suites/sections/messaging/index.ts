/**
 * #messaging (Human Messaging profile), with the blocking conditions of #security and
 * #identity-presence (interp-44), driven from the human side with real client accounts.
 *
 * The chat an endpoint takes part in is the SUT's own business, so the cases need a fixture to
 * make an endpoint speak at a moment they choose: the conformance chat of
 * docs/conformance-tools.md ("Chat"), answered by the conformance tools' endpoint. A plain body is
 * echoed; `{"hold":T,"text":X}` is acknowledged with `{"holding":T}` and X is kept for the
 * conversation; `{"release":T}` (from anyone who may chat with the endpoint) makes the endpoint
 * originate every reply held under T, each to its own conversation, and is then answered with
 * `{"released":T,…}`. A SUT that does not answer so cannot be tested here (MissingFixture).
 *
 * Blocking (interp-44): the human holds a reply, blocks the endpoint's bare JID (or the gateway's
 * domain) at their own server with XEP-0191 and waits for the block's IQ result — the settle
 * point, no timer — and another account releases the reply. Nothing may reach the human, online
 * or offline. The human then unblocks and a second reply is held and released: it must arrive
 * (otherwise the case cannot tell blocking from an endpoint that never speaks), and since both
 * go from the same endpoint to the same human over the same path, in order, the first would
 * have arrived before it: no wait for "nothing" is needed. The federated server (example.com)
 * does not apply blocklists to the component's messages (docs/federation.md, "Blocking"), so
 * there a gateway that relies on server routing delivers; the gateway's own server does apply
 * them, as a well-behaved deployment's would.
 */
import { xml } from '@xmpp/xml';
import { WaitTimeout, type Caller, type ReceivedStanza } from '../../../harness/driver/index.ts';
import { MESSAGING_NS } from '../../../protocol/messaging.ts';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { eventPayload } from '../support/task-events.ts';
import { setBlocked, withCleanUp } from '../support/blocklist.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { blockStateFaultCases } from './block-state-faults.ts';
import {
  BLOCKING_CASE,
  bodyContains,
  requireSenderEnforcedRecipient,
  bodyOf,
  chat,
  chatEndpoint,
  delivered,
  exchange,
  expectControl,
  fence,
  fresh,
  hold,
  isFromEndpoint,
  messageFrom,
  release,
} from './conversation.ts';

const NS_ROSTER = 'jabber:iq:roster';
/** One online human: hold, subscribe and send presence, block `item`, release, and then the control. */
async function blockedOnline(
  context: CaseContext,
  role: 'remote' | 'localPeer',
  endpoint: string,
  releaser: Caller,
): Promise<void> {
  const human = role === 'remote' ? await context.callers.remote() : await context.callers.localPeer();
  // A resource that asked for the roster, so the subscription answer reaches the account.
  const rosterResource = await context.callers.sibling(human);
  await rosterResource.exchangeIq(rosterResource.bareJid, 'get', xml('query', { xmlns: NS_ROSTER }));
  const blockedToken = fresh(context, 'blocked');
  const blockedText = `held while blocked ${blockedToken}`;
  let blocked = false;
  const body = async (): Promise<void> => {
    // identity-presence.presence-not-unblock-evidence: a subscription and available presence
    // the endpoint saw before the block, and presence sent after it, change nothing.
    const subscribedSince = rosterResource.inbound.length;
    await rosterResource.send(xml('presence', { to: endpoint, type: 'subscribe' }));
    await messageOrPresence(context, rosterResource, endpoint, subscribedSince);
    await human.send(xml('presence', { to: endpoint }));
    await hold(context, human, endpoint, blockedToken, blockedText);
    await setBlocked(human, 'block', endpoint);
    blocked = true;
    const since = [
      { caller: human, since: human.inbound.length },
      { caller: rosterResource, since: rosterResource.inbound.length },
    ];
    await human.send(xml('presence', { to: endpoint }));
    await release(context, releaser, endpoint, blockedToken);
    await setBlocked(human, 'unblock', endpoint);
    blocked = false;
    const controlToken = fresh(context, 'control');
    const controlText = `held after unblocking ${controlToken}`;
    await hold(context, human, endpoint, controlToken, controlText);
    const controlSince = human.inbound.length;
    await release(context, releaser, endpoint, controlToken);
    await messageFrom(context, human, endpoint, controlSince, 'the control reply', bodyContains(controlText));
    const leaked = delivered(endpoint, blockedText, since);
    expectThat(
      leaked.map((stanza) => stanza.xml).join('\n'),
      'security.honor-blocking',
      `nothing from ${endpoint} to ${human.bareJid} while ${human.bareJid} blocks it (XEP-0191), whatever its subscription and presence`,
      leaked.length === 0,
    );
    expectControl(
      delivered(endpoint, controlText, [{ caller: human, since: controlSince }]),
      human.bareJid,
      endpoint,
    );
  };
  await withCleanUp(human, body, async () => {
    if (blocked) await setBlocked(human, 'unblock', endpoint);
    // Leaves the account's roster as it was: no subscription to the endpoint.
    const removed = await rosterResource.exchangeIq(
      rosterResource.bareJid,
      'set',
      xml('query', { xmlns: NS_ROSTER }, xml('item', { jid: endpoint, subscription: 'remove' })),
    );
    // item-not-found: the case stopped before the subscription made the item.
    if (removed.parsed.type === 'error' && removed.parsed.error.condition !== 'item-not-found') {
      throw new Error(`${rosterResource.bareJid}'s roster kept ${endpoint}: ${removed.reply.xml}`);
    }
  });
}

/** Waits briefly for the endpoint's answer to a subscription request (any answer, or none). */
async function messageOrPresence(
  context: CaseContext,
  caller: Caller,
  endpoint: string,
  since: number,
): Promise<void> {
  await caller
    .waitForStanza((stanza) => stanza.name === 'presence' && isFromEndpoint(stanza, endpoint), {
      since,
      timeoutMs: context.sut.replyTimeoutMs,
      description: `presence from ${endpoint}`,
    })
    .catch((error: unknown) => {
      if (!(error instanceof WaitTimeout)) throw error;
    });
}

/** The features the endpoint advertises in disco#info (none when it does not answer). */
async function advertisedFeatures(human: Caller, endpoint: string): Promise<ReadonlySet<string>> {
  const info = await human.iq(
    endpoint,
    'get',
    xml('query', { xmlns: 'http://jabber.org/protocol/disco#info' }),
  );
  return new Set((info?.getChildren('feature') ?? []).map((feature) => String(feature.attrs['var'])));
}

/** Two chat messages and the answer to the second: only the second asked for a receipt. */
interface ReceiptProbe {
  readonly plainId: string;
  readonly askedId: string;
  /** Where the human's inbound stanzas stood before the first message. */
  readonly since: number;
  readonly answer: ReceivedStanza;
}

/** A message without a receipt request, then one with: a receipt for the first is unasked for. */
async function plainThenAsked(context: CaseContext, human: Caller, endpoint: string): Promise<ReceiptProbe> {
  const plain = chat(context, endpoint, `no receipt please ${fresh(context, 'plain')}`);
  const plainSince = human.inbound.length;
  await human.send(plain);
  await messageFrom(context, human, endpoint, plainSince, 'the echo', bodyContains('no receipt please'));
  const asked = chat(context, endpoint, `receipt please ${fresh(context, 'asked')}`, [
    xml('request', { xmlns: MESSAGING_NS.receipts }),
    xml('active', { xmlns: MESSAGING_NS.chatStates }),
  ]);
  const askedId = String(asked.attrs['id']);
  const askedSince = human.inbound.length;
  await human.send(asked);
  const answer = await messageFrom(
    context,
    human,
    endpoint,
    askedSince,
    'the echo',
    bodyContains('receipt please'),
  );
  if (answer === undefined) {
    throw new MissingFixture(
      `${endpoint} did not answer chat: the case needs the conformance chat (docs/conformance-tools.md, "Chat")`,
    );
  }
  return { plainId: String(plain.attrs['id']), askedId, since: plainSince, answer };
}

/** No receipt for the message that did not ask; one for the message that did, if receipts are advertised. */
function expectReceiptsAsAdvertised(
  human: Caller,
  endpoint: string,
  probe: ReceiptProbe,
  features: ReadonlySet<string>,
): void {
  const receipts = human.inbound
    .slice(probe.since)
    .filter(
      (stanza) =>
        isFromEndpoint(stanza, endpoint) &&
        stanza.element?.getChild('received', MESSAGING_NS.receipts) !== undefined,
    );
  const receiptFor = (id: string): boolean =>
    receipts.some(
      (stanza) => stanza.element?.getChild('received', MESSAGING_NS.receipts)?.attrs['id'] === id,
    );
  expectThat(
    receipts.map((stanza) => stanza.xml).join('\n') || '(none)',
    'messaging.advertise-implemented',
    'no XEP-0184 receipt for a message that did not ask for one',
    !receiptFor(probe.plainId),
  );
  if (features.has(MESSAGING_NS.receipts)) {
    expectThat(
      receipts.map((stanza) => stanza.xml).join('\n') || '(none)',
      'messaging.advertise-implemented',
      `urn:xmpp:receipts is advertised: a <received id='${probe.askedId}'/> for the message that asked`,
      receiptFor(probe.askedId),
    );
  }
}

/** The answer carries each advertised extension: a chat state, an origin-id, a reply reference. */
function expectAnswerExtensions({ answer, askedId }: ReceiptProbe, features: ReadonlySet<string>): void {
  const element = answer.element;
  if (features.has(MESSAGING_NS.chatStates)) {
    const states = ['active', 'composing', 'paused', 'inactive', 'gone'];
    expectThat(
      answer.xml,
      'messaging.advertise-implemented',
      'chat states are advertised: the answer carries one (XEP-0085)',
      states.some((state) => element?.getChild(state, MESSAGING_NS.chatStates) !== undefined),
    );
  }
  if (features.has(MESSAGING_NS.stableIds)) {
    const originId = element?.getChild('origin-id', MESSAGING_NS.stableIds)?.attrs['id'];
    expectThat(
      answer.xml,
      'messaging.advertise-implemented',
      'urn:xmpp:sid:0 is advertised: the answer carries a non-empty <origin-id/> (XEP-0359)',
      typeof originId === 'string' && originId !== '',
    );
  }
  const reply = element?.getChild('reply', MESSAGING_NS.replies);
  if (features.has(MESSAGING_NS.replies)) {
    expectThat(
      answer.xml,
      'security.reply-provenance',
      `the answer references the message it answers (XEP-0461, id '${askedId}')`,
      reply?.attrs['id'] === askedId,
    );
  }
}

export const messagingSuite = defineSuite('messaging', 'Human Messaging Profile', [
  {
    id: 'messaging.chat-answer-stays-chat',
    requirements: ['messaging.chat-not-task', 'messaging.separation'],
    profiles: ['human-messaging'],
    level: 'MUST',
    statement:
      "An endpoint's answer to a one-to-one chat message is a chat message along the conversation, not a task: no task events, no agent-task payload, whatever produced the text.",
    run: async (context) => {
      const endpoint = chatEndpoint(context, ['local']);
      const human = await context.callers.local();
      const nonce = fresh(context, 'hello');
      const eventsBefore = human.events.all().length;
      const since = human.inbound.length;
      await human.send(
        chat(context, endpoint, `hello ${nonce}`, [xml('active', { xmlns: MESSAGING_NS.chatStates })]),
      );
      // Whatever the endpoint sends back that mentions the message: a chat answer or a task.
      const answer = await messageFrom(
        context,
        human,
        endpoint,
        since,
        `an answer mentioning ${nonce}`,
        (stanza) => stanza.xml.includes(nonce),
      );
      if (answer === undefined) {
        throw new MissingFixture(
          `${endpoint} did not answer a chat message within ${String(context.sut.replyTimeoutMs)} ms: the case needs the conformance chat (docs/conformance-tools.md, "Chat")`,
        );
      }
      expectThat(
        answer.xml,
        'messaging.chat-not-task',
        "a message of type 'chat' with the answer in its <body/>",
        answer.type === 'chat' && bodyOf(answer)?.includes(nonce) === true,
      );
      expectThat(
        answer.xml,
        'messaging.chat-not-task',
        `no ${NS_AGENT_TASK} element: a conversation is not a task`,
        !answer.xml.includes(NS_AGENT_TASK),
      );
      // A second turn fences the first: anything task-like the first produced has arrived.
      await exchange(context, human, endpoint, `again ${nonce}`, `again ${nonce}`);
      // Only events about this conversation: tasks of earlier cases may still report to this caller.
      const events = human.events
        .all()
        .slice(eventsBefore)
        .filter((event) => event.stanza.xml.includes(nonce));
      expectThat(
        events.map((event) => event.stanza.xml).join('\n') || '(none)',
        'messaging.separation',
        'no task event to the human for a conversation',
        events.length === 0,
      );
    },
  },
  {
    id: 'messaging.task-result-not-chat',
    requirements: ['messaging.task-not-chat', 'messaging.separation'],
    profiles: ['human-messaging'],
    level: 'MUST',
    statement:
      "A task whose result is prose answers through its task lifecycle to the invoking resource, never as chat along a conversation the caller has with the endpoint from another resource; that conversation's answers stay with it.",
    run: async (context) => {
      const target = conformanceTarget(context);
      const endpoint = chatEndpoint(context, ['local']);
      const invoker = await context.callers.local();
      const invokerTasks = new TaskSession(context, invoker, target);
      const chatter = await context.callers.sibling(invoker);
      const nonce = fresh(context, 'prose');
      // The conversation is open, from another resource of the same account.
      await exchange(context, chatter, endpoint, `hi ${nonce}`, `hi ${nonce}`);
      const invokerSince = invoker.inbound.length;
      const chatterSince = chatter.inbound.length;
      const prose = `Dear human, here is your answer ${nonce}.`;
      const { accepted } = await invokerTasks.start('script', {
        steps: [{ complete: { content: [{ type: 'text', text: prose }], summary: prose } }],
      });
      // An event sent as chat is no lifecycle message (the codec refuses type 'chat'), so waiting
      // for a valid terminal event alone would only time out: it ends the wait too, and fails here.
      const isChat = (received: { readonly stanza: ReceivedStanza }): boolean =>
        received.stanza.type === 'chat';
      await invoker.events.waitFor(
        accepted.taskId,
        (received) =>
          received.valid
            ? ['completed', 'failed', 'cancelled'].includes(received.event.type)
            : isChat(received),
        { timeoutMs: context.sut.taskTimeoutMs },
        'terminal event',
      );
      const chatEvents = invoker.events
        .all(accepted.taskId)
        .filter((received) => !received.valid && isChat(received));
      expectThat(
        chatEvents.map((received) => received.stanza.xml).join('\n') || '(none)',
        'messaging.task-not-chat',
        "the task's events are task traffic (type 'normal' or absent), never chat messages",
        chatEvents.length === 0,
      );
      const history = await invokerTasks.awaitSettled(accepted.taskId);
      const last = history.at(-1);
      expectThat(
        last?.stanza.xml ?? '(none)',
        'messaging.task-not-chat',
        'the prose result as the completed event of the task, at the invoking resource',
        last?.event.type === 'completed' && JSON.stringify(eventPayload(last)).includes(nonce),
      );
      expectThat(
        last?.stanza.xml ?? '(none)',
        'messaging.task-not-chat',
        "the completed event is task traffic, not a chat message (type 'normal' or absent)",
        last !== undefined && last.message.type !== 'chat',
      );
      // Fences the task: the conversation answers a new turn at its own resource.
      await exchange(context, chatter, endpoint, `still here ${nonce}`, `still here ${nonce}`);
      const asChat = [...invoker.inbound.slice(invokerSince), ...chatter.inbound.slice(chatterSince)].filter(
        (stanza) => stanza.name === 'message' && stanza.type === 'chat' && stanza.xml.includes(prose),
      );
      expectThat(
        asChat.map((stanza) => stanza.xml).join('\n') || '(none)',
        'messaging.task-not-chat',
        "no chat message carrying the task's prose result",
        asChat.length === 0,
      );
      const eventsAtChatter = chatter.events.all(accepted.taskId);
      expectThat(
        eventsAtChatter.map((event) => event.stanza.xml).join('\n') || '(none)',
        'messaging.separation',
        `the task's events at the invoking resource ${invoker.jid} only, not at the conversation's ${chatter.jid}`,
        eventsAtChatter.length === 0,
      );
      const receiptRequests = history.filter((event) => event.stanza.xml.includes(MESSAGING_NS.receipts));
      if (receiptRequests.length > 0) {
        context.warn(
          'messaging.advertise-implemented',
          'task events carry XEP-0184 receipt requests (#messaging: receipts are for chat, not task messages)',
        );
      }
    },
  },
  {
    id: 'messaging.advertised-extensions',
    // SHOULD: the XEPs let a recipient decline receipts and make chat states, origin-ids and
    // replies optional, so an advertised extension left unused is a warning, never a failure.
    requirements: ['security.reply-provenance', 'messaging.advertise-implemented'],
    profiles: ['human-messaging'],
    level: 'SHOULD',
    statement:
      'Each chat extension the endpoint advertises works in its chat: receipts come when requested and only then, answers carry a chat state, an origin-id and a XEP-0461 reference to the message answered.',
    run: async (context) => {
      const endpoint = chatEndpoint(context, ['local']);
      const human = await context.callers.local();
      const features = await advertisedFeatures(human, endpoint);
      const exchange = await plainThenAsked(context, human, endpoint);
      expectReceiptsAsAdvertised(human, endpoint, exchange, features);
      expectAnswerExtensions(exchange, features);
    },
  },
  {
    id: 'messaging.blocked-endpoint-online',
    ...BLOCKING_CASE,
    statement:
      "Online humans on both servers who block the endpoint's bare JID (XEP-0191) get nothing from it while the block holds, though they subscribed to it and sent it presence; after unblocking, its messages arrive again.",
    run: async (context) => {
      requireSenderEnforcedRecipient(context);
      const endpoint = chatEndpoint(context, ['local', 'remote', 'localPeer']);
      const releaser = await context.callers.local();
      // example.com does not apply blocklists to the component's messages; server.example does.
      await blockedOnline(context, 'remote', endpoint, releaser);
      await blockedOnline(context, 'localPeer', endpoint, releaser);
    },
  },
  {
    id: 'messaging.blocked-domain-offline',
    ...BLOCKING_CASE,
    statement:
      "An offline human who blocks the gateway's domain (XEP-0191) finds nothing from its endpoints in offline storage; after unblocking, a message to them while offline is stored and delivered.",
    run: async (context) => {
      requireSenderEnforcedRecipient(context);
      const endpoint = chatEndpoint(context, ['local', 'remote']);
      const releaser = await context.callers.local();
      const domain = context.sut.gatewayJid;
      let human = await context.callers.remote();
      const blockedToken = fresh(context, 'blocked');
      const blockedText = `held while blocked ${blockedToken}`;
      let blocked = false;
      const body = async (): Promise<void> => {
        await hold(context, human, endpoint, blockedToken, blockedText);
        await setBlocked(human, 'block', domain);
        blocked = true;
        await human.close();
        await release(context, releaser, endpoint, blockedToken);
        human = await context.callers.remote();
        await fence(human);
        // What offline storage held for the account arrived before the fence's result.
        const leaked = delivered(endpoint, blockedText, [{ caller: human, since: 0 }]);
        await setBlocked(human, 'unblock', domain);
        blocked = false;
        expectThat(
          leaked.map((stanza) => stanza.xml).join('\n'),
          'security.honor-blocking',
          `nothing from ${endpoint} stored for ${human.bareJid} while ${human.bareJid} blocks ${domain} (XEP-0191)`,
          leaked.length === 0,
        );
        const controlToken = fresh(context, 'control');
        const controlText = `held after unblocking ${controlToken}`;
        await hold(context, human, endpoint, controlToken, controlText);
        await human.close();
        await release(context, releaser, endpoint, controlToken);
        human = await context.callers.remote();
        await fence(human);
        expectControl(
          delivered(endpoint, controlText, [{ caller: human, since: 0 }]),
          `${human.bareJid} (offline)`,
          endpoint,
        );
      };
      await withCleanUp(releaser, body, async () => {
        if (!blocked) return;
        const current = human.status === 'online' ? human : await context.callers.remote();
        await setBlocked(current, 'unblock', domain);
      });
    },
  },
  ...blockStateFaultCases,
]);
