/**
 * The conformance tools' ledger (docs/conformance-tools.md): counts per key that show whether a
 * tool ran, read out of band when the SUT file gives the ledger, else through `counter`.
 */
import { isJsonObject } from '../../../protocol/json/json-value.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { terminalPayload } from './task-events.ts';
import type { TaskSession } from './task-session.ts';

/** A ledger key no other case or run uses (keys are global to the gateway). */
export function freshLedgerKey(context: CaseContext, label: string): string {
  return `${label}:${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 16)}`;
}

/** Where readLedger takes a count from, for the case transcript. */
function ledgerSource(context: CaseContext): string {
  return context.ledger?.source ?? "the gateway's counter tool (the SUT file gives no out-of-band ledger)";
}

/** The count of a ledger key, out of band when the context has the ledger, else through `counter`. */
async function countOf(session: TaskSession, key: string, requirement: RequirementId): Promise<number> {
  if (session.context.ledger !== undefined) return session.context.ledger.read(key);
  const { accepted } = await session.start('counter', { key });
  const history = await session.awaitSettled(accepted.taskId);
  const { state, payload } = terminalPayload(history);
  const result = isJsonObject(payload) ? payload['result'] : undefined;
  const structured = isJsonObject(result) ? result['structuredContent'] : undefined;
  const count = isJsonObject(structured) ? structured['count'] : undefined;
  if (state !== 'completed' || typeof count !== 'number') {
    throw new RequirementViolation(
      requirement,
      `the counter tool completing with {"structuredContent":{"key":"${key}","count":N}}`,
      history.map((received) => received.stanza.xml).join('\n'),
      `${requirement}: the ledger counter could not be read`,
    );
  }
  return count;
}

/**
 * The current count of a ledger key (docs/conformance-tools.md): out of band when the SUT's
 * conformance tools keep their ledger outside the gateway (`context.ledger`), else through the
 * gateway's own `counter` tool, kept as the fallback. The case transcript says which was read.
 */
export async function readLedger(
  session: TaskSession,
  key: string,
  requirement: RequirementId,
): Promise<number> {
  const { context, caller } = session;
  const count = await countOf(session, key, requirement);
  caller.transcript.note(`ledger ${key}: ${String(count)}, read from ${ledgerSource(context)}`);
  return count;
}

/**
 * Reads the ledger key until a script's `increment` step counted it (docs/conformance-tools.md:
 * an increment after the late output): from then on every late attempt has been made.
 */
export async function untilCounted(
  session: TaskSession,
  key: string,
  requirement: RequirementId,
): Promise<void> {
  const { context, caller } = session;
  const deadline = Date.now() + context.sut.taskTimeoutMs;
  for (;;) {
    const count = await countOf(session, key, requirement);
    if (count >= 1) {
      caller.transcript.note(`ledger ${key}: ${String(count)}, read from ${ledgerSource(context)}`);
      return;
    }
    if (Date.now() > deadline) {
      throw new RequirementViolation(
        requirement,
        `the ledger key ${key} counted once the tool's late output was attempted (docs/conformance-tools.md)`,
        `the counter stayed at 0 (read from ${ledgerSource(context)})`,
      );
    }
    // A file read returns at once: poll it gently (a counter call is a round trip anyway).
    if (context.ledger !== undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Fails unless the ledger `key` is still 0: the tool never ran (`why` says why it must not have). */
export async function expectLedgerUntouched(
  session: TaskSession,
  key: string,
  requirement: RequirementId,
  why: string,
): Promise<void> {
  const count = await readLedger(session, key, requirement);
  expectThat(`count ${String(count)}`, requirement, why, count === 0);
}
