/**
 * One reply per IQ (XMPP Core, RFC 6120 §8.2.3, which #errors invokes for every get and set):
 * a second reply to a request already answered is a violation, whatever the two replies say.
 * The driver notices it whenever it arrives (often a moment after the case that sent the
 * request has finished, when a fallback responder answers a handled IQ a second time); it is
 * laid at the door of the case that sent the request.
 *
 * How long it is listened for: a caller records second replies as long as it is connected, so
 * one to a role caller's request counts whenever it comes in the run. What ends the listening
 * is ordered, never timed: a sibling an attempt opened closes its stream gracefully, and the
 * server's closing tag comes after every stanza queued for it before; after the last case each
 * open caller makes a round trip to the gateway (run-conformance.ts, awaitStragglers), and the
 * gateway's stanzas to one client travel one ordered path. So every second reply the gateway wrote
 * before it handled that last stanza is seen: a fallback responder's, a doubled dispatch's. One
 * it holds on a timer past the end of the run is not, and no fixed wait would bound it.
 *
 * Not a second reply: an answer to a request that timed out (a late reply), one from another JID
 * than the request's addressee, and one after a routing error a server may have sent in the
 * addressee's name (harness/driver/caller.ts, #replyTarget); a new request that reuses an ID is
 * answered as itself while it is pending.
 */
import type { SecondReply } from '../../harness/driver/index.ts';
import { RequirementViolation } from './verdicts.ts';

/** Case ID (the transcript title the request was sent in) → the first second reply's violation. */
export function secondReplyViolations(
  replies: readonly SecondReply[],
  caseIds: ReadonlySet<string>,
): Map<string, RequirementViolation> {
  const found = new Map<string, RequirementViolation>();
  for (const reply of replies) {
    if (!caseIds.has(reply.sentDuring) || found.has(reply.sentDuring)) continue;
    found.set(
      reply.sentDuring,
      new RequirementViolation(
        'errors.one-reply-per-iq',
        `exactly one reply to iq ${reply.id} sent by ${reply.caller}:\n${reply.replyXml}`,
        `a second reply to the same request:\n${reply.secondXml}\n\nthe request:\n${reply.requestXml}`,
        `errors.one-reply-per-iq: iq ${reply.id} to ${reply.to} was answered twice`,
      ),
    );
  }
  return found;
}
