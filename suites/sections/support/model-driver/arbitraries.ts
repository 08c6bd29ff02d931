/**
 * fast-check arbitraries of model steps over a given world: random principals, and arguments drawn
 * from what the world holds plus what it does not — hidden and nonexistent endpoint JIDs, tool
 * names and versions no manifest has, nodes of other versions, stale hashes, UIDs outside the
 * visible set for RSM. The world is an input, so a generated world plugs in unchanged.
 */
import fc from 'fast-check';
import { FEATURE, NODE_DIRECTORY } from '../../../../protocol/namespaces.ts';
import { encodeCollectionNode, encodeToolNode } from '../../../../protocol/tool-node.ts';
import { parseBareJid } from '../../../../protocol/jid/index.ts';
import type { RsmRequest } from '../../../../protocol/stanza/index.ts';
import { searchFields, type ModelWorld } from '../../../model/index.ts';
import type { ModelOperation, ModelStep } from './operations.ts';
import type { DrivenRole } from './run-world.ts';

/** A well-formed sha-256 Base64 value no manifest of any world has (32 zero bytes). */
export const FOREIGN_HASH = Buffer.alloc(32).toString('base64');

/** What the world names, and names it does not have, for the operations to draw from. */
export interface WorldVocabulary {
  readonly roles: readonly DrivenRole[];
  readonly jids: readonly string[];
  readonly absentJids: readonly string[];
  readonly versions: readonly string[];
  readonly tools: readonly string[];
  readonly hashes: readonly string[];
  readonly nicks: readonly string[];
}

export function vocabularyOf(world: ModelWorld, roles: readonly DrivenRole[]): WorldVocabulary {
  const { gateway } = world.domains;
  const versions = world.endpoints.flatMap((endpoint) => endpoint.versions);
  const jids = world.endpoints.map((endpoint) => endpoint.jid);
  const fields = world.endpoints.flatMap((endpoint) => searchFields(endpoint));
  const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];
  return {
    roles,
    jids,
    // One before every endpoint in octet order, one after, one in the middle of the alphabet.
    absentJids: ['0-absent', 'model-absent', 'zz-absent'].map((local) => `${local}@${gateway}`),
    versions: unique([...versions.map((version) => version.version), '0.0.0-absent']),
    tools: unique([...versions.flatMap((version) => version.tools.map((tool) => tool.name)), 'absent.tool']),
    hashes: unique([...versions.map((version) => version.hash), FOREIGN_HASH]),
    nicks: unique([
      ...fields,
      ...fields.map((field) => field.toUpperCase()),
      ...fields.filter((field) => field.length > 2).map((field) => field.slice(1, -1)),
      ...jids.map((jid) => parseBareJid(jid).localpart ?? ''),
      'absent-nick',
    ]).filter((nick) => nick !== ''),
  };
}

function rsmArbitrary(uids: readonly string[]): fc.Arbitrary<RsmRequest> {
  const max = fc.integer({ min: 0, max: 4 });
  const uid = fc.constantFrom(...uids);
  return fc.oneof(
    max.map((size) => ({ max: size })),
    fc.record({ max, after: uid }),
    fc.record({ max, before: fc.oneof(fc.constant(''), uid) }),
    fc.record({ max, index: fc.integer({ min: 0, max: 12 }) }),
  );
}

export type OperationFamily =
  'directory' | 'search' | 'endpoint-info' | 'tool-discovery' | 'metadata' | 'invocation';

/** The operations of one family over the vocabulary. */
export function operationArbitrary(
  vocabulary: WorldVocabulary,
  family: OperationFamily,
): fc.Arbitrary<ModelOperation> {
  const jid = fc.constantFrom(...vocabulary.jids, ...vocabulary.absentJids);
  const version = fc.constantFrom(...vocabulary.versions);
  const tool = fc.constantFrom(...vocabulary.tools);
  const hash = fc.constantFrom(...vocabulary.hashes);
  switch (family) {
    case 'directory':
      return fc
        .record(
          {
            node: fc.constant(NODE_DIRECTORY),
            rsm: rsmArbitrary([...vocabulary.jids, ...vocabulary.absentJids]),
          },
          { requiredKeys: [] },
        )
        .map((parts) => ({ kind: 'directory' as const, ...parts }));
    case 'search':
      return fc
        .record(
          {
            nick: fc.oneof(
              { weight: 9, arbitrary: fc.constantFrom(...vocabulary.nicks) },
              { weight: 1, arbitrary: fc.constant('') },
            ),
            rsm: rsmArbitrary([...vocabulary.jids, ...vocabulary.absentJids]),
          },
          { requiredKeys: ['nick'] },
        )
        .map((parts) => ({ kind: 'search' as const, ...parts }));
    case 'endpoint-info':
      return fc.oneof(
        fc.record({ jid }).map((parts) => ({ kind: 'endpoint-info' as const, ...parts })),
        // The endpoint feature var is not a node (endpoint-info.feature-var-not-node).
        fc
          .record({ jid, node: fc.constant(FEATURE.endpoint) })
          .map((parts) => ({ kind: 'endpoint-info' as const, ...parts })),
        fc.record({ jid }).map((parts) => ({ kind: 'endpoint-items' as const, ...parts })),
      );
    case 'tool-discovery': {
      const collection = version.map(encodeCollectionNode);
      const toolNode = fc.tuple(version, tool).map(([pinned, name]) => encodeToolNode(pinned, name));
      return fc.oneof(
        fc
          .record({ jid, node: fc.oneof(collection, toolNode) })
          .map((parts) => ({ kind: 'endpoint-info' as const, ...parts })),
        fc
          .record(
            { jid, node: collection, rsm: fc.record({ max: fc.integer({ min: 0, max: 4 }) }) },
            { requiredKeys: ['jid', 'node'] },
          )
          .map((parts) => ({ kind: 'collection-items' as const, ...parts })),
      );
    }
    case 'metadata':
      return fc.oneof(
        fc
          .record({ jid, version }, { requiredKeys: ['jid'] })
          .map((parts) => ({ kind: 'manifest' as const, ...parts })),
        fc
          .record({
            jid,
            tool,
            version,
            direction: fc.constantFrom('input' as const, 'output' as const),
            manifestHash: hash,
          })
          .map((parts) => ({ kind: 'schema' as const, ...parts })),
      );
    case 'invocation':
      return fc
        .record({ jid, tool, version, manifestHash: hash })
        .map((parts) => ({ kind: 'invoke' as const, ...parts }));
  }
}

/** Steps: a random principal of the run and an operation of the family. */
export function stepArbitrary(vocabulary: WorldVocabulary, family: OperationFamily): fc.Arbitrary<ModelStep> {
  return fc.record({
    role: fc.constantFrom(...vocabulary.roles),
    operation: operationArbitrary(vocabulary, family),
  });
}
