/**
 * <manifest-request/> at an endpoint (#manifest-retrieval): the active version when no version
 * is given, else that exact registered version. The <json/> text is exactly the canonical
 * bytes that were hashed; the stored source formatting never shows.
 */
import { buildManifest } from '../../protocol/stanza/index.ts';
import type { ManifestRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, ManifestRecord, Requester } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';

/**
 * Without a version only a visible endpoint with an active version answers: a deactivated
 * endpoint has nothing to select (interp-23). An exact version stays addressable
 * after deactivation ("A previously registered version remains addressable by exact value").
 */
function selectRecord(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  request: ManifestRequest,
): ManifestRecord | undefined {
  // manifest-retrieval.same-access-as-discovery, manifest-retrieval.invoke-permission-insufficient:
  // the visibility that discovery applies, nothing else.
  if (request.version === undefined) return catalog.visibleEndpoint(requester, jid)?.active;
  // manifest-retrieval.retain-pinned-manifest: an exact version stays addressable while it is
  // registered (removal waits for retained tasks).
  return catalog.visibleVersion(requester, jid, request.version);
}

export function manifestRetrieval(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  request: ManifestRequest,
): Outcome {
  const record = selectRecord(catalog, requester, jid, request);
  if (record === undefined) return refuse(FAULT.itemNotFound);
  return answer(
    // manifest-retrieval.result-contents, manifest-retrieval.canonical-bytes,
    // manifest-retrieval.formatting-invisible, manifest.all-or-nothing-visibility: the one
    // canonical document that was hashed, the same for every requester.
    buildManifest({
      version: record.version,
      hash: record.document.hash,
      json: record.document.bytes.toString('utf8'),
    }),
  );
}
