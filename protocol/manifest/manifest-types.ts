/**
 * A typed view of a manifest that passed validation (#manifest). It is the validated JSON
 * object itself, not a copy: the registered bytes and hash are computed from that object, so
 * nothing here may be mutated. Extension members of a tool other than the spec's own
 * `urn:xmpp:agent-api:0` stay on the object; read them with `toolExtensionMembers`.
 */
import { NS_AGENT_API } from '../namespaces.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';

export interface ManifestAgent {
  readonly jid: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly version: string;
  readonly vendor?: string;
  readonly homepage?: string;
  readonly avatarUrl?: string;
}

export interface ManifestImplementation {
  readonly name: string;
  readonly version: string;
}

/** The XMPP extension object of a tool: declarations, not grants (#manifest). */
export interface AgentApiToolExtension {
  readonly supportsProgress?: boolean;
  readonly supportsCancellation?: boolean;
  readonly supportsInput?: boolean;
  readonly defaultTimeoutSeconds?: number;
  readonly maximumTimeoutSeconds?: number;
  readonly requiredPermissions?: readonly string[];
  readonly approvalRequired?: boolean;
  readonly tags?: readonly string[];
}

export interface ManifestTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  /** MCP-owned members keep their MCP semantics and are untrusted metadata (#rules). */
  readonly annotations?: JsonObject;
  readonly execution?: JsonObject;
  readonly _meta?: JsonObject;
  readonly [NS_AGENT_API]?: AgentApiToolExtension;
}

export interface Manifest {
  readonly manifestSpecVersion: '0';
  readonly agent: ManifestAgent;
  readonly implementation?: ManifestImplementation;
  readonly mcpProtocolVersion?: string;
  readonly tools: readonly ManifestTool[];
}

/** The schema's pattern for extension member names inside a tool. */
export const EXTENSION_MEMBER_PATTERN = /^[a-z][a-z0-9+.-]*:/;

/** A tool's URI-named extension members other than the spec's own extension object. */
export function toolExtensionMembers(tool: ManifestTool): [name: string, value: JsonValue][] {
  return Object.entries(tool as unknown as JsonObject).filter(
    ([name]) => name !== NS_AGENT_API && EXTENSION_MEMBER_PATTERN.test(name),
  );
}
