/**
 * The conformance chat as the #messaging cases drive it (docs/conformance-tools.md, "Chat"): the
 * endpoint that answers it, fresh tokens, one chat turn and its answer, holding and releasing a
 * reply, and what reached a human from the endpoint. Shared by index.ts and the block-state
 * fault cases (block-state-faults.ts).
 */
import { xml, type Element } from '@xmpp/xml';
import { WaitTimeout, type Caller, type ReceivedStanza } from '../../../harness/driver/index.ts';
import { bareJidOf, JidError, normalizeBareJid } from '../../../protocol/jid/index.ts';
import type { ConformanceCase } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import type { CallerRole } from '../../fixtures/reference-world.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';

const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The conformance tools' endpoint, which the fixture makes chat; `roles` must be allowed to see it. */
export function chatEndpoint(context: CaseContext, roles: readonly CallerRole[]): string {
  const world = requireWorld(context);
  const endpoint = world.conformanceEndpoint();
  if (endpoint === undefined) {
    throw new MissingFixture(
      `the fixture world (${world.source}) hosts no conformance tools' endpoint, which answers the conformance chat (docs/conformance-tools.md, "Chat")`,
    );
  }
  for (const role of roles) {
    if (!world.maySee(role, endpoint)) {
      throw new MissingFixture(
        `${world.jidOf(role)} may not see ${endpoint.jid} in ${world.source}, so it cannot chat with it`,
      );
    }
  }
  return endpoint.jid;
}

export function fresh(context: CaseContext, label: string): string {
  return `${label}-${context.random.string(TOKEN_ALPHABET, 12)}`;
}

export function isFromEndpoint(stanza: ReceivedStanza, endpoint: string): boolean {
  if (stanza.from === undefined) return false;
  try {
    return bareJidOf(stanza.from) === normalizeBareJid(endpoint);
  } catch (error) {
    if (error instanceof JidError) return false;
    throw error;
  }
}

export function bodyOf(stanza: ReceivedStanza): string | undefined {
  const body = stanza.element?.getChild('body');
  return body === undefined ? undefined : body.getText();
}

/** A one-to-one chat message to the endpoint, with a fresh id. */
export function chat(
  context: CaseContext,
  to: string,
  body: string,
  extra: readonly Element[] = [],
): Element {
  return xml('message', { type: 'chat', to, id: fresh(context, 'm') }, xml('body', {}, body), ...extra);
}

/** The first message from the endpoint since `since` that satisfies `matches`, or undefined at the deadline. */
export async function messageFrom(
  context: CaseContext,
  caller: Caller,
  endpoint: string,
  since: number,
  what: string,
  matches: (stanza: ReceivedStanza) => boolean,
): Promise<ReceivedStanza | undefined> {
  try {
    return await caller.waitForStanza(
      (stanza) => stanza.name === 'message' && isFromEndpoint(stanza, endpoint) && matches(stanza),
      { since, timeoutMs: context.sut.replyTimeoutMs, description: what },
    );
  } catch (error) {
    if (error instanceof WaitTimeout) return undefined;
    throw error;
  }
}

export function bodyContains(text: string): (stanza: ReceivedStanza) => boolean {
  return (stanza) => bodyOf(stanza)?.includes(text) === true;
}

/** Sends `body` and waits for the endpoint's chat answer containing `expect`; none means no fixture. */
export async function exchange(
  context: CaseContext,
  caller: Caller,
  endpoint: string,
  body: string,
  expect: string,
): Promise<ReceivedStanza> {
  const since = caller.inbound.length;
  await caller.send(chat(context, endpoint, body));
  const answer = await messageFrom(
    context,
    caller,
    endpoint,
    since,
    `chat answer containing ${expect}`,
    bodyContains(expect),
  );
  if (answer === undefined) {
    throw new MissingFixture(
      `${endpoint} did not answer ${body} with a chat message containing ${expect} within ${String(context.sut.replyTimeoutMs)} ms: the case needs the conformance chat (docs/conformance-tools.md, "Chat")`,
    );
  }
  return answer;
}

/** Holds a reply under `token`: acknowledged before the case goes on. */
export async function hold(
  context: CaseContext,
  human: Caller,
  endpoint: string,
  token: string,
  text: string,
): Promise<void> {
  await exchange(
    context,
    human,
    endpoint,
    JSON.stringify({ hold: token, text }),
    JSON.stringify({ holding: token }),
  );
}

/** Releases `token` from another account; resolves once the endpoint says it tried every held reply. */
export async function release(
  context: CaseContext,
  releaser: Caller,
  endpoint: string,
  token: string,
): Promise<void> {
  await exchange(context, releaser, endpoint, JSON.stringify({ release: token }), `"released":"${token}"`);
}

/** A round trip to the human's own server: stanzas sent to the session before it (offline messages) have arrived. */
export async function fence(human: Caller): Promise<void> {
  await human.exchangeIq(
    human.bareJid.slice(human.bareJid.indexOf('@') + 1),
    'get',
    xml('ping', { xmlns: 'urn:xmpp:ping' }),
  );
}

/** Every message from the endpoint carrying `text` that any of `humans` received since its index. */
export function delivered(
  endpoint: string,
  text: string,
  humans: readonly { caller: Caller; since: number }[],
): ReceivedStanza[] {
  return humans.flatMap(({ caller, since }) =>
    caller.inbound.filter(
      (stanza) =>
        stanza.index >= since &&
        stanza.name === 'message' &&
        isFromEndpoint(stanza, endpoint) &&
        stanza.xml.includes(text),
    ),
  );
}

const BLOCKING_REQUIREMENTS = [
  'security.honor-blocking',
  'security.no-assumed-server-blocking',
  'identity-presence.presence-not-unblock-evidence',
  'messaging.blocking-claim',
  'security.no-unfounded-blocking-claim',
] as const;

/**
 * What every blocking case declares, so none of them drifts from the others: the blocking
 * requirements, Human Messaging, MUST, and the position on who may enforce a block (interp-44).
 */
export const BLOCKING_CASE = {
  requirements: [...BLOCKING_REQUIREMENTS],
  profiles: ['human-messaging'],
  level: 'MUST',
  interpretations: ['interp-44'],
} as const satisfies Pick<ConformanceCase, 'requirements' | 'profiles' | 'level' | 'interpretations'>;

/**
 * The blocking cases judge a gateway by what reaches a blocked human on example.com, whose
 * server must leave the block to the sender and answer the block-state query. Another server
 * there (ejabberd: no such query, its own XEP-0191 filtering of the component's messages) makes
 * a gateway that honours blocks silent towards its humans and covers for one that leaves them to
 * routing: nothing the case could see tells the two apart, so it does not try.
 */
export function requireSenderEnforcedRecipient(context: CaseContext): void {
  const server = context.remoteServer;
  if (server === undefined || server.leavesBlockingToSender) return;
  if (server.external) {
    throw new MissingFixture(
      `example.com (server A) is an external server whose connection file does not declare "leavesBlockingToSender": true (it answers agentconf's block-state query and leaves XEP-0191 on the component's messages to the sender, as the harness's Prosody with mod_agentconf_block_state does): on any other server a gateway that honours blocks cannot speak to its humans, or one that leaves blocking to routing is covered by the server, so the case cannot tell them apart (docs/federation.md, "Server stacks in a run")`,
    );
  }
  throw new MissingFixture(
    `example.com (server A) runs ${server.implementation}, which offers the gateway no block-state query and filters the component's messages by its users' XEP-0191 blocklists itself: a gateway that honours blocks cannot speak to its humans, and one that leaves blocking to routing is covered by the server, so the case cannot tell them apart (docs/federation.md, "Server stacks in a run"); run it with --server-a prosody`,
  );
}

/** After unblocking, a released reply must arrive, or the blocked half proved nothing. */
export function expectControl(arrived: readonly ReceivedStanza[], who: string, endpoint: string): void {
  if (arrived.length === 0) {
    throw new CannotTell(
      `${endpoint} delivered nothing to ${who} after the block was lifted either: the case cannot tell blocking from an endpoint that never originates messages`,
    );
  }
}
