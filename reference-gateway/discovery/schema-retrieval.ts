/**
 * <schema-request/> at an endpoint (#schemas): the canonical input or output schema of one
 * tool in one exact version, guarded by the manifest hash the client pinned.
 *
 * Order of checks, each after the previous passed:
 * 1. the version must be visible (hidden and unknown alike: item-not-found, #errors);
 * 2. the supplied hash must select that version's registered manifest, else conflict
 *    (#schemas). Version 0 requires sha-256; a hash in another algorithm cannot select the
 *    object either, so it is a conflict too (interp-27 accepts conflict);
 * 3. the tool must exist in that manifest, and for direction='output' declare an
 *    outputSchema, else item-not-found (#errors: a nonexistent schema).
 * The hash is checked before the tool because a tool name means nothing in a manifest the
 * client has not identified.
 */
import { buildSchema, isSha256, sameHash } from '../../protocol/stanza/index.ts';
import type { SchemaRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, Requester } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';

export function schemaRetrieval(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  request: SchemaRequest,
): Outcome {
  const record = catalog.visibleVersion(requester, jid, request.version);
  if (record === undefined) return refuse(FAULT.itemNotFound);
  // schemas.stale-hash-conflict
  if (!isSha256(request.manifestHash) || !sameHash(request.manifestHash, record.document.hash)) {
    return refuse(FAULT.conflict);
  }
  const tool = record.tools.find((candidate) => candidate.name === request.tool);
  const schema = request.direction === 'input' ? tool?.inputSchema : tool?.outputSchema;
  if (tool === undefined || schema === undefined) return refuse(FAULT.itemNotFound);
  return answer(
    // schemas.canonical-bytes: the canonical bytes whose hash the tool form reports.
    buildSchema({
      tool: tool.name,
      version: record.version,
      direction: request.direction,
      manifestHash: record.document.hash,
      schemaHash: schema.hash,
      json: schema.bytes.toString('utf8'),
    }),
  );
}
