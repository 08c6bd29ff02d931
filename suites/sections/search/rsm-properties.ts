/**
 * RSM and ordering properties of the empty search: random paths over the reference world or a
 * seeded random world. The paging oracle and the random worlds are in
 * ../support/rsm-properties.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import type { IqExchange } from '../../../harness/driver/index.ts';
import { NS } from '../../../protocol/namespaces.ts';
import type { RsmRequest } from '../../../protocol/stanza/index.ts';
import { expectStanzaError } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { callerFor } from '../support/discovery.ts';
import { freshToken, hasAdmin, withRestore } from '../support/provisioning.ts';
import { readFound, searchForm, searchLegacy, searchWithForm } from '../support/search.ts';
import {
  PATHS,
  DEEP_PATHS,
  walkPaths,
  LETTERS,
  localDirectory,
  octets,
  provisionRandomWorld,
  RANDOM_WORLD_EXTRA,
  RANDOM_WORLD_PATHS,
} from '../support/rsm-properties.ts';

export const rsmPropertyCases: readonly CaseDeclaration<'search'>[] = [
  {
    id: 'search.rsm-random-paths',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    scenario: 'rsm-order',
    requirements: ['search.octet-order', 'search.visibility-filter'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-18'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any JID or none, index, max 0), every page of the empty search is the local directory in UTF-8 octet order from where it starts, with exact counts — with random endpoints whose UTF-8, UTF-16 and collation orders disagree provisioned for the case where the administrator may (removed afterwards).',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const caller = await callerFor(context, 'local');
        const gateway = context.sut.gatewayJid;
        // One name for all of them: the nick that pages them where the empty search lists nothing.
        const sharedName = `agentconf-rsm-${freshToken(context)}`;
        const added = hasAdmin(context)
          ? await provisionRandomWorld(
              context,
              restorer,
              caller,
              context.budget.iterations(...RANDOM_WORLD_EXTRA),
              sharedName,
            )
          : [];
        let uids = await localDirectory(context, caller, added);
        const { offer } = await searchForm(caller, gateway, 'search.octet-order');
        let fetch = (rsm: RsmRequest): Promise<IqExchange> =>
          offer.form === undefined
            ? searchLegacy(caller, gateway, {}, rsm)
            : searchWithForm(caller, gateway, {}, rsm);
        const probe = await fetch({ max: 1 });
        if (probe.parsed.type === 'error' || readFound(probe, 'search.octet-order').jids.length === 0) {
          if (probe.parsed.type === 'error')
            expectStanzaError(probe, 'search.octet-order', 'not-acceptable', context);
          // interp-18 lets the empty search list nothing: the provisioned endpoints' shared name
          // is then the result set the paths walk, where the deployment matches nick on names.
          const byName = (rsm: RsmRequest): Promise<IqExchange> =>
            searchLegacy(caller, gateway, { nick: sharedName }, rsm);
          const named = added.length === 0 ? undefined : await byName({ max: 1 });
          if (named?.parsed.type !== 'result' || readFound(named, 'search.octet-order').jids.length === 0) {
            throw new CannotTell(
              `an empty search lists nothing (interp-18 allows it), and ${added.length === 0 ? 'without Administrative Provisioning no endpoints sharing a name can be provisioned' : `the nick ${sharedName}, the name of the ${String(added.length)} provisioned endpoints, finds none of them`}: no result set is known to hold several endpoints, so its paging cannot be walked`,
            );
          }
          caller.transcript.note(
            `rsm-order: the empty search lists nothing; the paths walk the nick ${sharedName} (${String(added.length)} endpoints)`,
          );
          fetch = byName;
          uids = added.toSorted(octets);
        }
        await walkPaths(
          context,
          {
            caller,
            fetch,
            read: (exchange) => {
              const found = readFound(exchange, 'search.octet-order');
              return { uids: found.jids, rsm: found.results.rsm };
            },
            uids,
            keyOf: (uid) => uid,
            foreignUid: (random) => `${random.random.string(LETTERS, 3)}@${gateway}`,
            requirement: 'search.octet-order',
            countRequirement: 'search.visibility-filter',
            foreignNotFound: true,
          },
          added.length > 0 ? RANDOM_WORLD_PATHS : [PATHS, DEEP_PATHS],
        );
      }),
  },
];
