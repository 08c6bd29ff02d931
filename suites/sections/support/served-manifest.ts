/**
 * Asking for a manifest (#manifest-retrieval) and checking the answer against the fixture it
 * must be: shared by the manifest-retrieval cases and the cases that check a task's pinned
 * version stays retrievable.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { sha256Base64 } from '../../../protocol/json/canonical.ts';
import { NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { buildManifestRequest, parseManifest, type Manifest } from '../../../protocol/stanza/index.ts';
import { expectThat, expectParsedResult } from '../../framework/expect.ts';
import type { FixtureManifest } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/** The manifest of `jid`: the active one, or the exact `version`. */
export function manifestRequest(caller: Caller, jid: string, version?: string): Promise<IqExchange> {
  return caller.exchangeIq(jid, 'get', buildManifestRequest(version === undefined ? {} : { version }));
}

/**
 * The reply must be the manifest result for `expected`: version, hash and exactly its canonical
 * bytes. `requirement` is the one a missing or malformed result violates.
 */
export function expectServedManifest(
  exchange: IqExchange,
  requirement: RequirementId,
  expected: FixtureManifest,
): Manifest {
  const replyXml = exchange.reply.xml;
  // The codec refuses a media type other than application/json and a missing hash or <json/>.
  const served = expectParsedResult(exchange, requirement, NS_AGENT_API, 'manifest', parseManifest);
  expectThat(
    replyXml,
    'manifest-retrieval.result-contents',
    `version='${expected.version}'`,
    served.version === expected.version,
  );
  const bytes = Buffer.from(served.json, 'utf8');
  expectThat(
    replyXml,
    'manifest-retrieval.canonical-bytes',
    `<json/> carrying exactly the RFC 8785 bytes of ${expected.jid} ${expected.version}:\n${expected.document.bytes.toString('utf8')}`,
    bytes.equals(expected.document.bytes),
  );
  expectThat(
    replyXml,
    'manifest-retrieval.canonical-bytes',
    `<hash algo='${expected.document.hash.algo}'>${expected.document.hash.value}</hash>, the sha-256 of those bytes (${sha256Base64(bytes)})`,
    served.hash.algo === expected.document.hash.algo && served.hash.value === expected.document.hash.value,
  );
  return served;
}
