/**
 * XEP-0191 blocks a case sets on a human's own server, and their removal. A block outlives the
 * case, and the run too, wherever the server keeps its data: one left behind makes the gateway's
 * messages vanish for every later case and run, which then blame a missing fixture. So a case
 * that blocks starts by removing the gateway's blocks it finds, and a removal that fails is
 * reported, never swallowed.
 */
import { xml } from '@xmpp/xml';
import type { Caller } from '../../../harness/driver/index.ts';
import { MESSAGING_NS } from '../../../protocol/messaging.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';

function blockingIq(action: 'block' | 'unblock', jids: readonly string[]) {
  return xml(action, { xmlns: MESSAGING_NS.blocking }, ...jids.map((jid) => xml('item', { jid })));
}

/** Blocks or unblocks `jid` at `human`'s server; its IQ result is the settle point. */
export async function setBlocked(human: Caller, action: 'block' | 'unblock', jid: string): Promise<void> {
  const { reply } = await human.exchangeIq(human.bareJid, 'set', blockingIq(action, [jid]));
  if (reply.type !== 'result') {
    throw new MissingFixture(
      `${human.bareJid}'s server refused the XEP-0191 ${action} of ${jid} (${reply.xml}): the case needs XEP-0191 on the recipient's server`,
    );
  }
  human.transcript.note(`${human.bareJid} ${action}ed ${jid} (XEP-0191 result received)`);
}

/** Whether a blocklist item names the gateway's domain or an address at it. */
function namesGateway(item: string, gatewayDomain: string): boolean {
  const domain = item.slice(item.indexOf('@') + 1).split('/')[0] ?? '';
  return domain.toLowerCase() === gatewayDomain.toLowerCase();
}

/**
 * Removes every block `human` holds against the gateway or its endpoints, left by an earlier case
 * or run. A server that does not answer the blocklist query keeps none. One the unblock does not
 * remove leaves the case unable to tell, naming the block.
 */
export async function clearGatewayBlocks(human: Caller, gatewayDomain: string): Promise<void> {
  const asked = await human.exchangeIq(
    human.bareJid,
    'get',
    xml('blocklist', { xmlns: MESSAGING_NS.blocking }),
  );
  if (asked.parsed.type !== 'result') return;
  const items = (asked.parsed.payload?.getChildren('item') ?? [])
    .map((item) => item.attrs['jid'])
    .filter((jid): jid is string => typeof jid === 'string' && namesGateway(jid, gatewayDomain));
  if (items.length === 0) return;
  const { reply } = await human.exchangeIq(human.bareJid, 'set', blockingIq('unblock', items));
  if (reply.type !== 'result') {
    throw new CannotTell(
      `${human.bareJid} still blocks ${items.join(', ')} (left by an earlier case or run), and its server refused the unblock (${reply.xml})`,
    );
  }
  human.transcript.note(
    `${human.bareJid} held blocks left by an earlier case or run: unblocked ${items.join(', ')}`,
  );
}

/**
 * Runs `body`, then `cleanUp` whatever happened. A clean-up failure is never swallowed: after a
 * body that ended without a finding (it may have checked little), the case cannot tell (it leaves the account changed for the cases and runs
 * after it); after a verdict, the failure is noted beside it in the transcript and the verdict
 * stands.
 */
export async function withCleanUp(
  caller: Caller,
  body: () => Promise<void>,
  cleanUp: () => Promise<void>,
): Promise<void> {
  let verdict: { readonly error: unknown } | undefined;
  try {
    await body();
  } catch (error) {
    verdict = { error };
  }
  try {
    await cleanUp();
  } catch (error) {
    const what = `clean-up failed: ${error instanceof Error ? error.message : String(error)}`;
    caller.transcript.note(what);
    if (verdict === undefined) throw new CannotTell(`ended without a finding, but its ${what}`);
  }
  if (verdict !== undefined) throw verdict.error;
}
