/**
 * What a caller checks before it trusts retrieved metadata (#manifest-retrieval, #schemas): the
 * exact version asked for, a sha-256 hash over exactly the carried bytes, bytes that are the RFC
 * 8785 canonical form of the document, and a document about this endpoint. A schema must hash to
 * what tool information advertised and be the very schema the pinned manifest holds. Pure.
 */
import { canonicalJson, sha256Base64 } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { normalizeBareJid } from '../../protocol/jid/index.ts';
import type { ManifestTool } from '../../protocol/manifest/manifest-types.ts';
import { HASH_ALGO_SHA256 } from '../../protocol/namespaces.ts';
import { sameHash, type Hash, type Manifest, type ToolSchema } from '../../protocol/stanza/index.ts';

export class PinRefused extends Error {
  override readonly name = 'PinRefused';
}

export interface PinnedManifest {
  readonly endpoint: string;
  readonly version: string;
  readonly hash: Hash;
  readonly tools: ReadonlyMap<string, ManifestTool>;
}

/** The document carried in <json/>, if its bytes are canonical and hash to `hash`. */
function canonicalDocumentOf(json: string, hash: Hash, what: string): JsonValue {
  if (hash.algo !== HASH_ALGO_SHA256)
    throw new PinRefused(`${what}: hash algorithm ${hash.algo} is not sha-256`);
  if (sha256Base64(Buffer.from(json, 'utf8')) !== hash.value) {
    throw new PinRefused(`${what}: the bytes do not hash to the advertised value`);
  }
  let value: JsonValue;
  try {
    value = parseStrictJson(json);
  } catch (error) {
    throw new PinRefused(
      `${what}: not acceptable JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (canonicalJson(value) !== json) throw new PinRefused(`${what}: the bytes are not RFC 8785 canonical`);
  return value;
}

function toolsOf(document: JsonObject): Map<string, ManifestTool> {
  const tools = document['tools'];
  if (!Array.isArray(tools)) throw new PinRefused('manifest: no tools array');
  const byName = new Map<string, ManifestTool>();
  for (const tool of tools) {
    if (!isJsonObject(tool) || typeof tool['name'] !== 'string' || !isJsonObject(tool['inputSchema'])) {
      throw new PinRefused('manifest: a tool without a name or an input schema');
    }
    if (byName.has(tool['name'])) throw new PinRefused(`manifest: tool ${tool['name']} appears twice`);
    byName.set(tool['name'], tool as unknown as ManifestTool);
  }
  return byName;
}

function sameEndpoint(jid: JsonValue | undefined, endpoint: string): boolean {
  try {
    return typeof jid === 'string' && normalizeBareJid(jid) === endpoint;
  } catch {
    return false;
  }
}

/**
 * Pins a retrieved manifest: when `requestedVersion` is absent the returned version becomes the
 * pin (#manifest-retrieval: pin the returned version and hash before anything else).
 */
export function pinManifest(manifest: Manifest, endpoint: string, requestedVersion?: string): PinnedManifest {
  if (requestedVersion !== undefined && manifest.version !== requestedVersion) {
    throw new PinRefused(`manifest: version ${manifest.version} returned for ${requestedVersion}`);
  }
  const document = canonicalDocumentOf(manifest.json, manifest.hash, 'manifest');
  if (!isJsonObject(document) || !isJsonObject(document['agent']))
    throw new PinRefused('manifest: no agent object');
  const agent = document['agent'];
  const jid = agent['jid'];
  if (!sameEndpoint(jid, endpoint)) throw new PinRefused('manifest: agent.jid is not this endpoint');
  if (agent['version'] !== manifest.version)
    throw new PinRefused('manifest: agent.version differs from the pinned version');
  return { endpoint, version: manifest.version, hash: manifest.hash, tools: toolsOf(document) };
}

export interface SchemaExpectation {
  readonly tool: string;
  readonly version: string;
  readonly direction: 'input' | 'output';
  readonly manifestHash: Hash;
  /** The schema hash tool information advertised. */
  readonly advertised: Hash;
  /** The schema as the pinned manifest holds it. */
  readonly inManifest: JsonObject;
}

/** The retrieved schema, once it is proven to be the pinned one. */
export function verifiedSchema(schema: ToolSchema, expected: SchemaExpectation): JsonObject {
  const what = `${expected.direction} schema of ${expected.tool}`;
  if (
    schema.tool !== expected.tool ||
    schema.version !== expected.version ||
    schema.direction !== expected.direction
  ) {
    throw new PinRefused(`${what}: the answer names another tool, version or direction`);
  }
  if (!sameHash(schema.manifestHash, expected.manifestHash))
    throw new PinRefused(`${what}: another manifest hash`);
  if (!sameHash(schema.schemaHash, expected.advertised)) {
    throw new PinRefused(`${what}: the hash differs from the one tool information advertised`);
  }
  const value = canonicalDocumentOf(schema.json, schema.schemaHash, what);
  if (!isJsonObject(value) || canonicalJson(value) !== canonicalJson(expected.inManifest)) {
    throw new PinRefused(`${what}: not the schema of the pinned manifest`);
  }
  return value;
}
