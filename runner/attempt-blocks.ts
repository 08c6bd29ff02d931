/**
 * Clean cases for XEP-0191 blocks: a block lives on the human's server, past the case and past
 * the run wherever the server keeps its data, and one left behind makes the gateway's messages
 * (and, from a gateway that honours it, its answers) vanish for every later case, which then
 * blames a missing fixture. So every account is cleared of the gateway's blocks the first time a
 * run logs it in, and again after any attempt in which it set a block.
 */
import type { Caller, TranscriptEntry } from '../harness/driver/index.ts';
import { bareJidOf } from '../protocol/jid/index.ts';
import { MESSAGING_NS } from '../protocol/messaging.ts';
import { clearGatewayBlocks } from '../suites/sections/support/blocklist.ts';
import type { OwnerCaller } from './task-leftovers.ts';

/** The bare JIDs that sent an XEP-0191 <block/> during the attempt. */
export function accountsThatBlocked(entries: readonly TranscriptEntry[]): string[] {
  const accounts = new Set<string>();
  for (const entry of entries) {
    if (entry.direction !== 'sent' || entry.jid === undefined || entry.xml === undefined) continue;
    if (/<block[\s>]/.test(entry.xml) && entry.xml.includes(MESSAGING_NS.blocking)) {
      accounts.add(bareJidOf(entry.jid));
    }
  }
  return [...accounts];
}

/** Clears `caller`'s blocks of the gateway; what could not be cleared, in words. */
export async function clearedOrWhy(caller: Caller, gatewayJid: string): Promise<string | undefined> {
  try {
    await clearGatewayBlocks(caller, gatewayJid);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * After an attempt: the gateway's blocks held by every account that blocked during it are
 * removed (the case's own clean-up may have been cut short). Returns what could not be removed.
 */
export async function clearAttemptBlocks(
  entries: readonly TranscriptEntry[],
  ownerCaller: OwnerCaller,
  gatewayJid: string,
): Promise<string[]> {
  const left = await Promise.all(
    accountsThatBlocked(entries).map(async (account) => {
      const connecting = ownerCaller(account);
      if (connecting === undefined)
        return `${account}, none of the run's accounts, may still block the gateway`;
      try {
        return await clearedOrWhy(await connecting, gatewayJid);
      } catch (error) {
        return `${account} may still block the gateway: ${error instanceof Error ? error.message : String(error)}`;
      }
    }),
  );
  return left.filter((why) => why !== undefined);
}
