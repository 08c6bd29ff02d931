// Proof that an IQ exchange crosses the s2s fault proxies, in both directions, although s2s is
// TLS and the proxies cannot read it: each direction is frozen in turn, and the exchange is seen
// to wait on it. The request link holds bytes while the answering component has sent nothing;
// once it is resumed the component's reply is read on its (plaintext, inspected) component link;
// the reply link then holds bytes while the requester still waits; resumed, the reply arrives.
import type { Element } from '@xmpp/xml';

import type { FaultProxy } from '../../faults/fault-proxy.ts';

export interface CrossingRecord {
  /** Bytes the request link held while frozen (the request, from the requester's server). */
  readonly requestBytesHeld: number;
  /** The answering component's reply, read on its component link. */
  readonly replyOnComponentLink: Element;
  /** Bytes the reply link held while frozen (the reply, from the component's server). */
  readonly replyBytesHeld: number;
}

export interface CrossingLinks {
  /** The s2s direction from the requester's server to the component's server. */
  readonly request: FaultProxy;
  /** The s2s direction back. */
  readonly reply: FaultProxy;
  /** The answering component's link (its stanzas are inspected). */
  readonly answeringComponent: FaultProxy;
}

function nextStanza(
  proxy: FaultProxy,
  matches: (stanza: Element) => boolean,
  timeoutMs: number,
): Promise<Element> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proxy.off('stanza', listener);
      reject(new Error(`${proxy.name}: no matching stanza within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (stanza: Element): void => {
      if (!matches(stanza)) return;
      clearTimeout(timer);
      proxy.off('stanza', listener);
      resolve(stanza);
    };
    proxy.on('stanza', listener);
  });
}

/**
 * Runs `exchange` (which sends one IQ with `id` and resolves with its reply) with both s2s
 * directions frozen, releasing them one by one, and records what each held.
 */
export async function recordCrossing<T>(
  links: CrossingLinks,
  id: string,
  exchange: () => Promise<T>,
  timeoutMs = 10_000,
): Promise<{ readonly reply: T; readonly record: CrossingRecord }> {
  // Set from callbacks: an object, so that the checks below read what they set.
  const seen = { answeredBeforeRelease: false, settled: false };
  // Decided when the stanza event fires (synchronously), not in a later microtask.
  const reply = nextStanza(
    links.answeringComponent,
    (stanza) => {
      if (stanza.attrs['id'] !== id) return false;
      seen.answeredBeforeRelease = links.request.mode === 'frozen';
      return true;
    },
    timeoutMs,
  );
  reply.then(
    () => undefined,
    () => undefined,
  );
  links.request.freeze();
  links.reply.freeze();
  try {
    const pending = exchange();
    pending.then(
      () => (seen.settled = true),
      () => (seen.settled = true),
    );
    await links.request.waitFor('held', () => links.request.heldBytesTowardsTarget > 0, timeoutMs);
    const requestBytesHeld = links.request.heldBytesTowardsTarget;
    links.request.resume();
    const replyOnComponentLink = await reply;
    if (seen.answeredBeforeRelease)
      throw new Error('the component answered before the request link was released');
    await links.reply.waitFor('held', () => links.reply.heldBytesTowardsTarget > 0, timeoutMs);
    const replyBytesHeld = links.reply.heldBytesTowardsTarget;
    if (seen.settled) throw new Error('the requester had its reply while the reply link was frozen');
    links.reply.resume();
    return { reply: await pending, record: { requestBytesHeld, replyOnComponentLink, replyBytesHeld } };
  } finally {
    links.request.resume();
    links.reply.resume();
  }
}
