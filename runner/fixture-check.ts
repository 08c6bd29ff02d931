/**
 * Before any case: did the gateway get the fixture world the cases are written against? A run
 * whose fixtures are not there would judge every case on an empty directory — cases that loop
 * over a listing would decide nothing, and those that need an endpoint would all say "missing
 * fixture" — so it stops instead (exit 3), naming what failed: the admin-iq operations the
 * gateway refused, a provisioned world with no endpoint, or a world file the gateway shows no
 * sign of having loaded.
 */
import { xml } from '@xmpp/xml';
import type { Caller } from '../harness/driver/index.ts';
import { StanzaErrorReply } from '../harness/driver/index.ts';
import { NS } from '../protocol/namespaces.ts';
import type { ReferenceWorld } from '../suites/fixtures/reference-world.ts';
import type { ProvisionedWorld } from './admin-fixtures.ts';

/** The fixtures the run depends on are not in place: the run stops before its first case. */
export class FixturesNotInPlace extends Error {
  override readonly name = 'FixturesNotInPlace';
}

/** How many problems a message lists before it says how many more there were. */
const LISTED_PROBLEMS = 5;

/**
 * admin-iq: every register and activate must have gone through, and something must have been
 * registered. A partly provisioned world would leave cases judging a world nobody asked for.
 */
export function checkProvisioned(provisioned: ProvisionedWorld, admin: string | undefined): void {
  const who = admin ?? '(no admin account)';
  if (provisioned.problems.length > 0) {
    const shown = provisioned.problems.slice(0, LISTED_PROBLEMS).map((problem) => `\n  ${problem}`);
    const more = provisioned.problems.length - LISTED_PROBLEMS;
    throw new FixturesNotInPlace(
      `fixtures: admin-iq provisioning as ${who} failed (${String(provisioned.problems.length)} operation(s) refused, ${String(provisioned.registered)} version(s) registered):${shown.join('')}${more > 0 ? `\n  and ${String(more)} more` : ''}\nthe run stops before any case: check the admin account, its rights at the gateway and the gateway's log`,
    );
  }
  if (provisioned.registered === 0) {
    throw new FixturesNotInPlace(
      `fixtures: admin-iq provisioning as ${who} registered nothing: the fixture world has no endpoint version to register, so no case would have anything to judge`,
    );
  }
}

/**
 * world-file: at least one active endpoint the world shows the local caller must answer
 * disco#info with a result. One that errs may be a visibility bug the cases will report; all
 * of them erring means the gateway never loaded the world file.
 */
export async function checkWorldLoaded(caller: Caller, world: ReferenceWorld): Promise<void> {
  if (world.endpoints.length === 0) {
    throw new FixturesNotInPlace(
      `fixtures: ${world.source} has no endpoint: no case would have anything to judge`,
    );
  }
  const listed = world.listedFor('local');
  if (listed.length === 0) return;
  const refusals: string[] = [];
  for (const endpoint of listed) {
    try {
      await caller.iq(endpoint.jid, 'get', xml('query', { xmlns: NS.discoInfo }));
      return;
    } catch (error) {
      if (!(error instanceof StanzaErrorReply)) throw error;
      refusals.push(`${endpoint.jid}: <${error.error.condition}/>`);
    }
  }
  throw new FixturesNotInPlace(
    `fixtures: the gateway answers none of the ${String(listed.length)} active endpoint(s) ${world.source} shows the local caller with disco#info (${refusals.slice(0, LISTED_PROBLEMS).join(', ')}): it did not load the world file; check the "world" setting of the SUT file and the gateway's log`,
  );
}
