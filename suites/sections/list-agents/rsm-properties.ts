/**
 * RSM and ordering properties of the directory (interp-13, interp-14): random paths over the
 * reference world, and over a seeded random world where the administrator may provision. The
 * paging oracle and the random worlds are in ../support/rsm-properties.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { FEATURE, NODE_DIRECTORY } from '../../../protocol/namespaces.ts';
import { callerFor } from '../support/discovery.ts';
import { withRestore } from '../support/provisioning.ts';
import {
  discoItemsPages,
  walkPaths,
  LETTERS,
  localDirectory,
  provisionRandomWorld,
  RANDOM_WORLD_EXTRA,
  RANDOM_WORLD_PATHS,
} from '../support/rsm-properties.ts';

export const rsmPropertyCases: readonly CaseDeclaration<'list-agents'>[] = [
  {
    id: 'list-agents.rsm-random-paths',
    scenario: 'rsm-order',
    requirements: ['list-agents.rsm-paging', 'list-agents.octet-order', 'list-agents.count-visible-only'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14', 'interp-15'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any JID or none, index, max 0), every directory page is the visible set in UTF-8 octet order from where it starts, the pages of a walk add up to exactly that set, and every count is its size.',
    run: async (context) => {
      const caller = await callerFor(context, 'local');
      const uids = await localDirectory(context, caller, []);
      await walkPaths(context, {
        ...discoItemsPages(
          caller,
          context.sut.gatewayJid,
          NODE_DIRECTORY,
          'list-agents.octet-order',
          (item) => item.jid,
        ),
        uids,
        keyOf: (uid) => uid,
        foreignUid: (random) => `${random.random.string(LETTERS, 3)}@${context.sut.gatewayJid}`,
        requirement: 'list-agents.octet-order',
        countRequirement: 'list-agents.count-visible-only',
        foreignNotFound: true,
      });
    },
  },
  {
    id: 'list-agents.rsm-random-world',
    scenario: 'rsm-order',
    requirements: ['list-agents.octet-order', 'list-agents.rsm-paging', 'list-agents.count-visible-only'],
    profiles: ['core-directory'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-13', 'interp-14', 'interp-15'],
    statement:
      'With random endpoints provisioned for the case — JIDs of compatibility ideographs, CJK Extension B, CJK, Hangul, Hiragana and ASCII, whose UTF-8, UTF-16 and collation orders disagree — random paths over the directory find them in UTF-8 octet order among the world’s endpoints, with exact counts; they are removed afterwards.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const caller = await callerFor(context, 'local');
        const added = await provisionRandomWorld(
          context,
          restorer,
          caller,
          context.budget.iterations(...RANDOM_WORLD_EXTRA),
        );
        const uids = await localDirectory(context, caller, added);
        await walkPaths(
          context,
          {
            ...discoItemsPages(
              caller,
              context.sut.gatewayJid,
              NODE_DIRECTORY,
              'list-agents.octet-order',
              (item) => item.jid,
            ),
            uids,
            keyOf: (uid) => uid,
            // Just after a random endpoint in octet order, where UTF-16 and octets may disagree.
            foreignUid: (caseContext) => {
              const jid = caseContext.random.pick(added.length > 0 ? added : uids);
              return `${jid.slice(0, jid.indexOf('@'))}x@${context.sut.gatewayJid}`;
            },
            requirement: 'list-agents.octet-order',
            countRequirement: 'list-agents.count-visible-only',
            foreignNotFound: true,
          },
          RANDOM_WORLD_PATHS,
        );
      }),
  },
];
