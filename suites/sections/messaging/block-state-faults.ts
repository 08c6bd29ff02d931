/**
 * Blocking (#security, interp-44) where the endpoint cannot simply ask and be told: the answer to
 * a message the human sent just before blocking, with its XEP-0184 receipt; and a held reply
 * released while the human's server gives no block state (it errs, or does not answer in time).
 * Both act on the s2s links between the human's server (example.com, which does not apply
 * blocklists to the component's messages) and the gateway's, so only on the harness's own
 * federation.
 *
 * The s2s links delay every byte (in order) while the human sends and then blocks: when the
 * block's result is in before the delay is over, the gateway reads the message only once the
 * block is in force (measured, not assumed: otherwise the case cannot tell). Nothing is waited
 * for "nothing": the human's own IQ to the gateway, sent after the message over the same links,
 * is answered after whatever the gateway wrote to the human before it, so once its result is in,
 * so is any leak.
 */
import { xml, type Element } from '@xmpp/xml';
import { IqTimeout, type Caller } from '../../../harness/driver/index.ts';
import { bareJidOf, JidError } from '../../../protocol/jid/index.ts';
import { MESSAGING_NS } from '../../../protocol/messaging.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext, ComponentLinkControl, S2sLinkControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { setBlocked, withCleanUp } from '../support/blocklist.ts';
import { decided, escalating, tooShort, type Attempt, type Rung } from '../support/escalating.ts';
import { harnessFederationOnly } from '../support/harness-federation-only.ts';
import {
  BLOCKING_CASE,
  bodyContains,
  chat,
  chatEndpoint,
  delivered,
  fresh,
  hold,
  isFromEndpoint,
  messageFrom,
  release,
  requireSenderEnforcedRecipient,
} from './conversation.ts';

const HARNESS_FEDERATION_ONLY = harnessFederationOnly(
  "the fault proxies on the s2s links and the gateway's component link",
);
/**
 * How late the s2s links carry every byte while a case needs the gateway to see a message after
 * the human's block, or its block-state query answered by the harness first: far above a block
 * IQ's round trip to the human's own server and an injected answer's trip (milliseconds). A case
 * that measures its margin fell short tries again with the longer one.
 */
const S2S_DELAYS_MS = [300, 1_000] as const;
const S2S_DELAY_MS = S2S_DELAYS_MS[0];
const NS_DISCO_INFO = 'http://jabber.org/protocol/disco#info';
const NS_STANZAS = 'urn:ietf:params:xml:ns:xmpp-stanzas';

function s2sOf(context: CaseContext): S2sLinkControl {
  const s2s = context.sutControl?.s2s;
  if (s2s === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
  return s2s;
}

function linkOf(context: CaseContext): ComponentLinkControl {
  const link = context.sutControl?.link;
  if (link === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
  return link;
}

/** Runs `during` with every s2s byte `delayMs` late; the links are restored whatever happens. */
async function whileS2sDelayed<T>(
  s2s: S2sLinkControl,
  delayMs: number,
  during: () => Promise<T>,
): Promise<T> {
  s2s.delay(delayMs);
  try {
    return await during();
  } finally {
    s2s.restore();
  }
}

/**
 * A disco#info round trip from the human to the gateway's domain (the human blocks the endpoint,
 * not the domain), over the links the endpoint's messages take: once its result is in, whatever
 * the gateway wrote to the human before answering it has arrived. Its answer queues behind what
 * the links still hold from the delay (`delayedMs`), so the wait covers that too.
 */
async function gatewayRoundTrip(context: CaseContext, human: Caller, delayedMs: number): Promise<void> {
  try {
    await human.exchangeIq(context.sut.gatewayJid, 'get', xml('query', { xmlns: NS_DISCO_INFO }), {
      timeoutMs: context.sut.replyTimeoutMs + delayedMs,
    });
  } catch (error) {
    if (!(error instanceof IqTimeout)) throw error;
    throw new CannotTell(
      `the gateway did not answer ${human.bareJid}'s disco#info after the s2s links were restored, so the case cannot tell when a message to it would have arrived`,
    );
  }
}

/** Blocks `endpoint` for `human` while `body` runs, and unblocks it after, whatever happened. */
async function whileBlocked(
  human: Caller,
  endpoint: string,
  body: (block: () => Promise<void>) => Promise<void>,
): Promise<void> {
  let blocked = false;
  await withCleanUp(
    human,
    () =>
      body(async () => {
        await setBlocked(human, 'block', endpoint);
        blocked = true;
      }),
    async () => {
      if (blocked) await setBlocked(human, 'unblock', endpoint);
    },
  );
}

/** A chat message asking for a receipt: its echo and the receipt are what the endpoint answers. */
function askingForReceipt(context: CaseContext, endpoint: string, text: string): Element {
  return chat(context, endpoint, text, [
    xml('request', { xmlns: MESSAGING_NS.receipts }),
    xml('active', { xmlns: MESSAGING_NS.chatStates }),
  ]);
}

/**
 * Unblocked, the endpoint answers the human (and sends the receipt, if it implements them): what
 * the blocked half withholds is then something it would have sent.
 */
async function answeredBeforeBlocking(context: CaseContext, human: Caller, endpoint: string): Promise<void> {
  const text = `before blocking ${fresh(context, 'control')}`;
  const message = askingForReceipt(context, endpoint, text);
  const since = human.inbound.length;
  await human.send(message);
  const answer = await messageFrom(context, human, endpoint, since, 'the echo', bodyContains(text));
  if (answer === undefined) {
    throw new CannotTell(
      `${endpoint} did not answer ${human.bareJid} before the block either: the case cannot tell blocking from an endpoint that never answers (docs/conformance-tools.md, "Chat")`,
    );
  }
  const receipted = human.inbound
    .slice(since)
    .some(
      (stanza) =>
        isFromEndpoint(stanza, endpoint) &&
        stanza.element?.getChild('received', MESSAGING_NS.receipts)?.attrs['id'] === message.attrs['id'],
    );
  human.transcript.note(
    `unblocked, ${endpoint} answered ${human.bareJid}${receipted ? ' and sent the receipt' : ' without a receipt (receipts are optional)'}`,
  );
}

/** The human sends, then blocks, while the s2s links are stalled: the gateway reads it blocked. */
async function blockedBeforeAnswer(context: CaseContext, human: Caller, endpoint: string): Promise<void> {
  await answeredBeforeBlocking(context, human, endpoint);
  const outcome = await escalating(
    S2S_DELAYS_MS,
    (rung) => blockedWhileHeld(context, human, endpoint, rung),
    (why) => {
      human.transcript.note(`${why}; again with a longer delay`);
    },
  );
  if (outcome.kind === 'exhausted') throw new CannotTell(outcome.evidence);
}

/**
 * One attempt with every s2s byte `ms` late; too short, with why, when the block took longer than
 * that (the gateway may have read the message before the block).
 */
async function blockedWhileHeld(
  context: CaseContext,
  human: Caller,
  endpoint: string,
  { ms: delayMs, last }: Rung,
): Promise<Attempt<undefined, string>> {
  const s2s = s2sOf(context);
  let attempt: Attempt<undefined, string> = decided(undefined);
  await whileBlocked(human, endpoint, async (block) => {
    const text = `sent just before blocking ${fresh(context, 'asked')}`;
    const message = askingForReceipt(context, endpoint, text);
    const messageId = String(message.attrs['id']);
    const since = human.inbound.length;
    const sentAt = performance.now();
    const blockedAfterMs = await whileS2sDelayed(s2s, delayMs, async () => {
      await human.send(message);
      await block();
      return performance.now() - sentAt;
    });
    // The message entered the s2s link after sentAt, so it leaves it delayMs later at the
    // earliest: the block was in force before the gateway could read it.
    if (blockedAfterMs >= delayMs) {
      attempt = tooShort(
        `the block took ${blockedAfterMs.toFixed(0)} ms, not less than the ${String(delayMs)} ms the s2s links held the message: the gateway may have read it before the block`,
      );
      // Only a longer try needs what the gateway still writes for this one to have arrived.
      if (!last) await gatewayRoundTrip(context, human, delayMs);
      return;
    }
    human.transcript.note(
      `blocked ${blockedAfterMs.toFixed(0)} ms after sending ${messageId}, which the s2s links hold ${String(delayMs)} ms: the gateway reads it with the block in force`,
    );
    await gatewayRoundTrip(context, human, delayMs);
    const leaked = human.inbound
      .slice(since)
      .filter(
        (stanza) =>
          stanza.name === 'message' &&
          isFromEndpoint(stanza, endpoint) &&
          (stanza.xml.includes(text) ||
            stanza.element?.getChild('received', MESSAGING_NS.receipts)?.attrs['id'] === messageId),
      );
    expectThat(
      leaked.map((stanza) => stanza.xml).join('\n'),
      'security.honor-blocking',
      `nothing from ${endpoint} to ${human.bareJid}, who blocked it after asking: no answer, no XEP-0184 receipt, no chat state`,
      leaked.length === 0,
    );
  });
  return attempt;
}

/** How the human's server fails to tell the block state. */
type Unanswered = 'error' | 'silence';

/**
 * While `during` runs, every IQ the gateway sends to the human is answered by the harness with
 * <service-unavailable/>, as a server without the gateway's block-state source answers, at once,
 * while the s2s links delay the real query ('error'); or the links delay it longer than the reply
 * timeout ('silence'), past any sensible block-state timeout of the gateway's. Resolves with
 * the delay the links applied.
 */
async function blockStateUnanswered(
  context: CaseContext,
  human: Caller,
  how: Unanswered,
  during: () => Promise<void>,
): Promise<number> {
  const link = linkOf(context);
  const injected: Promise<void>[] = [];
  const stop = link.onSent((stanza) => {
    if (how !== 'error' || stanza.name !== 'iq' || !['get', 'set'].includes(String(stanza.attrs['type']))) {
      return;
    }
    if (!addressedTo(stanza, human.bareJid)) return;
    const answer = xml(
      'iq',
      { type: 'error', from: stanza.attrs['to'], to: stanza.attrs['from'], id: stanza.attrs['id'] },
      xml('error', { type: 'cancel' }, xml('service-unavailable', { xmlns: NS_STANZAS })),
    );
    human.transcript.note(
      `the gateway asked ${String(stanza.attrs['to'])}: ${stanza.toString()}; the harness answered <service-unavailable/> on the server's behalf`,
    );
    injected.push(link.inject(answer.toString()));
  });
  const delayMs = how === 'error' ? S2S_DELAY_MS : context.sut.replyTimeoutMs;
  try {
    await whileS2sDelayed(s2sOf(context), delayMs, during);
  } finally {
    stop();
  }
  await Promise.all(injected);
  return delayMs;
}

function addressedTo(stanza: Element, bareJid: string): boolean {
  const to: unknown = stanza.attrs['to'];
  if (typeof to !== 'string') return false;
  try {
    return bareJidOf(to) === bareJid;
  } catch (error) {
    if (error instanceof JidError) return false;
    throw error;
  }
}

/** A reply held while the endpoint could learn the block state, released while it cannot. */
async function releasedUnanswered(
  context: CaseContext,
  human: Caller,
  releaser: Caller,
  endpoint: string,
  how: Unanswered,
): Promise<void> {
  const token = fresh(context, `unknown-${how}`);
  const text = `released while the block state is unknown ${token}`;
  // Acknowledged to the human: the endpoint delivers to this human while its state is known.
  await hold(context, human, endpoint, token, text);
  await whileBlocked(human, endpoint, async (block) => {
    await block();
    const since = human.inbound.length;
    // The release is answered once the endpoint tried the held reply, before the links return.
    const delayedMs = await blockStateUnanswered(context, human, how, () =>
      release(context, releaser, endpoint, token),
    );
    await gatewayRoundTrip(context, human, delayedMs);
    const leaked = delivered(endpoint, text, [{ caller: human, since }]);
    expectThat(
      leaked.map((stanza) => stanza.xml).join('\n'),
      'security.no-unfounded-blocking-claim',
      `nothing from ${endpoint} to ${human.bareJid}, who blocks it, while its server ${how === 'error' ? 'answers the block-state query with an error' : 'gives no answer'}: an unknown block state is not "unblocked"`,
      leaked.length === 0,
    );
  });
}

export const blockStateFaultCases: readonly CaseDeclaration<'messaging'>[] = [
  {
    id: 'messaging.blocked-before-answer',
    ...BLOCKING_CASE,
    scenario: 'link-fault',
    statement:
      'A human who asks the endpoint for an answer and a XEP-0184 receipt and blocks it before the message reaches the gateway gets neither, nor a chat state, on a server that leaves blocking to the sender.',
    run: async (context) => {
      requireSenderEnforcedRecipient(context);
      const endpoint = chatEndpoint(context, ['remote']);
      await blockedBeforeAnswer(context, await context.callers.remote(), endpoint);
    },
  },
  {
    id: 'messaging.block-state-unknown',
    ...BLOCKING_CASE,
    scenario: 'link-fault',
    statement:
      "A reply held for a human who then blocks the endpoint is not delivered when it is released while the human's server cannot tell the block state: it answers the query with an error (and, with --deep, gives no answer at all).",
    run: async (context) => {
      requireSenderEnforcedRecipient(context);
      const endpoint = chatEndpoint(context, ['remote', 'local']);
      const human = await context.callers.remote();
      const releaser = await context.callers.local();
      const ways: readonly Unanswered[] = context.budget.deep ? ['error', 'silence'] : ['error'];
      for (const how of ways) await releasedUnanswered(context, human, releaser, endpoint, how);
    },
  },
];
