/**
 * Manifest retrieval (#manifest-retrieval, #schema-agent-api): <manifest-request version?/> and
 * <manifest version media-type><hash/><json/></manifest>. The <json/> text is returned as
 * carried; comparing its UTF-8 bytes with the canonical bytes behind the hash is the caller's.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { MEDIA_TYPE_JSON, NS, NS_AGENT_API } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  expectEmpty,
  expectMediaType,
  lexAttribute,
  lexOptionalAttribute,
  only,
  readSequence,
} from './element-reader.ts';
import { lexForBuild } from './element-writer.ts';
import { buildHash, parseHash } from './hash.ts';
import type { Hash } from './hash.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexVersion } from './lexical.ts';

export interface ManifestRequest {
  /** Absent: the active version is requested. */
  readonly version?: string;
}

export interface Manifest {
  readonly version: string;
  readonly hash: Hash;
  readonly json: string;
}

export function parseManifestRequest(element: Element): ManifestRequest {
  expectElement(element, 'manifest-request', NS_AGENT_API);
  checkAttributes(element, ['version']);
  expectEmpty(element);
  const version = lexOptionalAttribute(element, 'version', lexVersion);
  return version === undefined ? {} : { version };
}

export function buildManifestRequest(request: ManifestRequest): Element {
  const { version } = request;
  return xml('manifest-request', {
    xmlns: NS_AGENT_API,
    version:
      version === undefined
        ? undefined
        : lexForBuild({ local: 'manifest-request', ns: NS_AGENT_API }, 'version', version, lexVersion),
  });
}

export function parseManifest(element: Element): Manifest {
  expectElement(element, 'manifest', NS_AGENT_API);
  checkAttributes(element, ['version', 'media-type']);
  const version = lexAttribute(element, 'version', lexVersion);
  expectMediaType(element, MEDIA_TYPE_JSON);
  const [hashes, jsons] = readSequence(element, [
    { local: 'hash', ns: NS.hashes },
    { local: 'json', ns: NS_AGENT_API },
  ]);
  const json = only(jsons);
  checkAttributes(json, []);
  return { version, hash: parseHash(only(hashes)), json: readJsonText(json) };
}

export function buildManifest(manifest: Manifest): Element {
  return xml(
    'manifest',
    {
      xmlns: NS_AGENT_API,
      'media-type': MEDIA_TYPE_JSON,
      version: lexForBuild({ local: 'manifest', ns: NS_AGENT_API }, 'version', manifest.version, lexVersion),
    },
    buildHash(manifest.hash),
    buildJsonElement({ local: 'json', ns: NS_AGENT_API }, {}, manifest.json),
  );
}
