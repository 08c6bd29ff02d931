/**
 * RSM and ordering properties of a tool collection (interp-15): random paths over the toolbox,
 * whose non-ASCII tool names sort differently by octets and by UTF-16 code units. The paging
 * oracle is in ../support/rsm-properties.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import { callerFor } from '../support/discovery.ts';
import { octets, discoItemsPages, walkPaths } from '../support/rsm-properties.ts';

export const rsmPropertyCases: readonly CaseDeclaration<'list-tools'>[] = [
  {
    id: 'list-tools.rsm-random-paths',
    scenario: 'rsm-order',
    requirements: ['list-tools.rsm-paging', 'list-tools.name-byte-order'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any tool node, index, max 0), every page of the tool collection with the most tools is its tools in UTF-8 octet order of their names, the pages of a walk add up to exactly them, and every count is their number.',
    run: async (context) => {
      const world = requireWorld(context);
      const candidates = world.listedFor('local').filter((endpoint) => endpoint.active !== undefined);
      const endpoint = candidates.toSorted(
        (a, b) => (b.active?.tools.length ?? 0) - (a.active?.tools.length ?? 0),
      )[0];
      const manifest = endpoint?.active;
      if (endpoint === undefined || manifest === undefined || manifest.tools.length < 3) {
        throw new MissingFixture('the local caller needs an endpoint with at least 3 tools to page over');
      }
      const byNode = new Map(manifest.tools.map((tool) => [tool.node, tool.name]));
      const uids = manifest.tools.toSorted((a, b) => octets(a.name, b.name)).map((tool) => tool.node);
      await walkPaths(context, {
        ...discoItemsPages(
          await callerFor(context, 'local'),
          endpoint.jid,
          manifest.collectionNode,
          'list-tools.name-byte-order',
          (item) => item.node ?? '',
        ),
        uids,
        keyOf: (uid) => byNode.get(uid) ?? uid,
        // Only UIDs of the set: a foreign tool node's position is the gateway's to decode.
        foreignUid: (random) => random.random.pick(uids),
        requirement: 'list-tools.name-byte-order',
        countRequirement: 'list-tools.rsm-paging',
      });
    },
  },
];
