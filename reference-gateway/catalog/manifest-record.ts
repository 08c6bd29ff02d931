/**
 * The read model of one registered version (#manifest-retrieval, #list-tools, #tool-info,
 * #schemas), built once from a validated manifest and then shared by every responder.
 *
 * - `document` is the RFC 8785 bytes of the whole manifest and their sha-256: exactly what
 *   <json/> carries and what every hash pins (interp-01: served hash = hash of served
 *   bytes).
 * - Tools are ordered by the UTF-8 octets of their names (#list-tools), not by JavaScript's
 *   UTF-16 order, which differs for names above U+FFFF versus U+E000–U+FFFF.
 * - Each tool's input and output schema is its own canonical document, hashed on its own.
 */
import { compareUtf8 } from '../../protocol/jid/index.ts';
import { canonicalDocument, type CanonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { Manifest, ManifestTool } from '../../protocol/manifest/index.ts';
import type { ManifestRecord, ToolRecord } from './catalog.ts';

function toolRecord(tool: ManifestTool): ToolRecord {
  return {
    name: tool.name,
    definition: tool,
    inputSchema: canonicalDocument(tool.inputSchema),
    outputSchema: tool.outputSchema === undefined ? undefined : canonicalDocument(tool.outputSchema),
  };
}

/**
 * `endpointJid` is the normalized `agent.jid`; `document`, when given, is the stored canonical
 * form (saves recomputing it) and must be the manifest's own.
 */
export function buildManifestRecord(
  endpointJid: string,
  manifest: Manifest,
  document: CanonicalDocument = canonicalDocument(manifest as unknown as JsonValue),
): ManifestRecord {
  const tools = manifest.tools.map(toolRecord).sort((a, b) => compareUtf8(a.name, b.name));
  return Object.freeze({
    jid: endpointJid,
    version: manifest.agent.version,
    manifest,
    document,
    tools: Object.freeze(tools),
  });
}
