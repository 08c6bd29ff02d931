/**
 * One reply per IQ (XMPP Core, RFC 6120 §8.2.3, which #errors invokes for every get and set):
 * a second reply to a request already answered is a violation, whatever the two replies say.
 * The driver notices it whenever it arrives (often a moment after the case that sent the
 * request has finished, when a fallback responder answers a handled IQ a second time); it is
 * laid at the door of the case that sent the request.
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
