/**
 * The other route to a result set of several endpoints, for a gateway whose empty search lists
 * nothing (interp-18 allows it): random endpoints, whose UTF-8, UTF-16 and collation orders
 * disagree, provisioned as the administrator under one fresh agent name, then searched for by
 * that name. Only a deployment that matches nick against the name (the spec lets it choose among
 * localpart, name and title) finds them; one that does not leaves the order unseen.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import type { RsmRequest } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { freshToken, hasAdmin, type Restorer } from '../support/provisioning.ts';
import { octets, provisionRandomWorld, RANDOM_WORLD_EXTRA } from '../support/rsm-properties.ts';
import { readFound, searchLegacy } from '../support/search.ts';

export interface SharedNameResults {
  /** The nick that finds them. */
  readonly nick: string;
  /** The provisioned endpoints, in UTF-8 octet order: the whole result set the nick must give. */
  readonly jids: readonly string[];
  /** A page of the nick's result set. */
  readonly fetch: (rsm: RsmRequest) => Promise<IqExchange>;
}

export async function sharedNameResults(
  context: CaseContext,
  restorer: Restorer,
  caller: Caller,
  why: string,
): Promise<SharedNameResults> {
  if (!hasAdmin(context)) {
    throw new CannotTell(
      `an empty search lists nothing (interp-18 allows it), and without Administrative Provisioning the suite cannot provision endpoints that share a name: ${why}`,
    );
  }
  const nick = `agentconf-order-${freshToken(context)}`;
  const provisioned = await provisionRandomWorld(
    context,
    restorer,
    caller,
    context.budget.iterations(...RANDOM_WORLD_EXTRA),
    nick,
  );
  const gateway = context.sut.gatewayJid;
  const fetch = (rsm: RsmRequest): Promise<IqExchange> => searchLegacy(caller, gateway, { nick }, rsm);
  const probe = await fetch({ max: 1 });
  if (probe.parsed.type === 'error' || readFound(probe, 'search.octet-order').jids.length === 0) {
    throw new CannotTell(
      `an empty search lists nothing (interp-18 allows it), and the nick ${nick}, the name of ${String(provisioned.length)} provisioned endpoints, finds none of them (the deployment may match nick against localparts or titles only): ${why}`,
    );
  }
  caller.transcript.note(
    `search: the empty search lists nothing, so the result set is the nick ${nick} (${String(provisioned.length)} endpoints of that name)`,
  );
  return { nick, jids: provisioned.toSorted(octets), fetch };
}
