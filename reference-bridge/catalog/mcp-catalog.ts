/**
 * The bridge's tools/list: the caller engine's pinned catalog (reference-caller/) named and shaped
 * for MCP. Names are recomputed at each listing (mcpToolNames), and a tools/call finds its
 * remote tool by the MCP name of the last listing, never by guessing an XMPP name (#mcp-mapping).
 */
import type { JsonObject } from '../../protocol/json/json-value.ts';
import type { PinnedCatalog, PinnedTool } from '../../reference-caller/catalog/pinned-catalog.ts';
import { mcpToolNames, mcpToolOf } from './mcp-tool.ts';

export interface ListedTool {
  readonly name: string;
  readonly tool: PinnedTool;
  /** The MCP Tool object. */
  readonly mcp: JsonObject;
}

export class McpCatalog {
  readonly #pins: PinnedCatalog;
  #listed: readonly ListedTool[] = [];

  constructor(pins: PinnedCatalog) {
    this.#pins = pins;
  }

  /** Pins what is not pinned yet and lists every pinned tool under its MCP name. */
  async list(): Promise<readonly ListedTool[]> {
    const tools = await this.#pins.list();
    const names = mcpToolNames(tools.map((tool) => tool.remote));
    this.#listed = tools.map((tool, index) => {
      const name = names[index] ?? tool.remote.tool;
      return { name, tool, mcp: mcpToolOf(name, tool.remote, tool.manifestTool, tool.schemas) };
    });
    return this.#listed;
  }

  /** The listed tool with this MCP name (as of the last listing; lists first if there was none). */
  async find(name: string): Promise<ListedTool | undefined> {
    if (this.#listed.length === 0) await this.list();
    return this.#listed.find((entry) => entry.name === name);
  }
}
