/**
 * A pinned XMPP tool as an MCP Tool (#mcp-mapping): the manifest's MCP members carried over as
 * they are (title, description, annotations, execution, _meta), the schemas as retrieved and
 * hash-checked, and nothing manufactured: a member the manifest lacks stays absent
 * (#tool-info). The remote identity rides in `_meta` under TARGET_META_KEY, because the MCP name
 * may have to differ from the XMPP tool name (mcpToolNames). Pure.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import type { ManifestTool } from '../../protocol/manifest/manifest-types.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import type { RemoteTool, ToolSchemas } from '../../reference-caller/catalog/pinned-catalog.ts';

/** Where a listed tool names its remote target: `{ jid, version, tool }`. */
export const TARGET_META_KEY = `${NS_AGENT_API}/target`;
/** Where a listed tool carries the manifest's XMPP extension object (declarations, not grants). */
export const DECLARATIONS_META_KEY = NS_AGENT_API;

/** MCP 2025-11-25's tool-name rule: 1 to 128 of A-Z a-z 0-9 _ - . */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function suffixOf(remote: RemoteTool): string {
  return createHash('sha256')
    .update(`${remote.jid}\n${remote.version}\n${remote.tool}`, 'utf8')
    .digest('hex')
    .slice(0, 8);
}

/**
 * The MCP name of each remote tool, in the order given: the XMPP tool name itself when it fits
 * MCP's rule and no other listed tool has the same one; otherwise the name with every other
 * character replaced by "_", cut to 119 characters, plus "-" and 8 hex digits of SHA-256 over
 * "JID\nVERSION\nTOOL", which is stable across restarts and distinct per remote tool.
 */
export function mcpToolNames(remotes: readonly RemoteTool[]): string[] {
  const uses = new Map<string, number>();
  for (const remote of remotes) uses.set(remote.tool, (uses.get(remote.tool) ?? 0) + 1);
  return remotes.map((remote) => {
    if (MCP_TOOL_NAME.test(remote.tool) && uses.get(remote.tool) === 1) return remote.tool;
    const base = Array.from(remote.tool, (char) => (/^[A-Za-z0-9_.-]$/.test(char) ? char : '_'))
      .join('')
      .slice(0, 119);
    return `${base === '' ? 'tool' : base}-${suffixOf(remote)}`;
  });
}

/** The MCP Tool object for a pinned manifest tool and its verified schemas. */
export function mcpToolOf(
  name: string,
  remote: RemoteTool,
  tool: ManifestTool,
  schemas: ToolSchemas,
): JsonObject {
  const declarations = tool[NS_AGENT_API];
  const meta: JsonObject = {
    ...tool._meta,
    ...(declarations === undefined ? {} : { [DECLARATIONS_META_KEY]: declarations as unknown as JsonObject }),
    [TARGET_META_KEY]: { jid: remote.jid, version: remote.version, tool: remote.tool },
  };
  return {
    name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: schemas.inputSchema,
    ...(schemas.outputSchema === undefined ? {} : { outputSchema: schemas.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    ...(tool.execution === undefined ? {} : { execution: tool.execution }),
    _meta: meta,
  };
}
