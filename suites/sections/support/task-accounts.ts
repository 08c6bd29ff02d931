/**
 * The run's extra accounts on the local caller's domain that task cases borrow: a second
 * account (authorization by bare JID, not domain) and one that only per-sender bounds use.
 */
import type { Caller } from '../../../harness/driver/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';

/**
 * The run's second account on the gateway's own server (CallerPool.localPeer), which holds the
 * same domain grants as the local caller in the reference world: the account that shows task
 * operations are authorized by bare JID, not by domain.
 */
export async function localPeer(context: CaseContext): Promise<Caller> {
  const world = requireWorld(context);
  const local = world.jidOf('local');
  let peer: Caller;
  try {
    peer = await context.callers.localPeer();
  } catch (error) {
    throw new MissingFixture(
      `needs a second account on ${local.split('@')[1] ?? "the gateway's server"}, beside ${local}, that can log in (the runner's localPeer account, dave@; list it under "accounts" for an external federation): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (peer.bareJid.split('@')[1] !== local.split('@')[1]) {
    throw new MissingFixture(`the localPeer account ${peer.bareJid} is not on the local caller's domain`);
  }
  return peer;
}

/**
 * The run's account that only the cases filling a per-sender bound use (CallerPool.prober): on
 * the local caller's domain, so the world's domain grants let it invoke the conformance tools.
 */
export async function prober(context: CaseContext): Promise<Caller> {
  const world = requireWorld(context);
  const local = world.jidOf('local');
  let caller: Caller;
  try {
    caller = await context.callers.prober();
  } catch (error) {
    throw new MissingFixture(
      `needs an account of its own on ${local.split('@')[1] ?? "the gateway's server"} that no other case uses (the runner's prober account, prober@; list it under "accounts" for an external federation): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (caller.bareJid.split('@')[1] !== local.split('@')[1]) {
    throw new MissingFixture(`the prober account ${caller.bareJid} is not on the local caller's domain`);
  }
  return caller;
}
