/**
 * A case's time limit. Running out of it is not evidence against the SUT: a gateway that does
 * not answer ends the case sooner through the driver's own reply and event deadlines (IqTimeout,
 * WaitTimeout, verdict failed); what is left is a slow answer or a case with more to do than
 * its limit, so the attempt cannot tell. The attempt is given up for good: its code may still be
 * running, and every stanza it tries to send from then on is refused (evidence.ts).
 */
import { AttemptEvidence } from './evidence.ts';
import { CannotTell } from './verdicts.ts';

export async function withTimeLimit(
  work: Promise<void>,
  timeoutMs: number,
  id: string,
  evidence: AttemptEvidence,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = `no verdict within ${String(timeoutMs)} ms`;
      evidence.abandon(why);
      reject(
        new CannotTell(
          `${id}: ${why}, the case's time limit: the gateway answered too slowly for it, or the case had more to do than fits (a request or event the gateway never answered ends a case sooner, as a failure)`,
        ),
      );
    }, timeoutMs);
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
