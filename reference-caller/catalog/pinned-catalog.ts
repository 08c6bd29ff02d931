/**
 * A caller's catalog: for each endpoint it calls, the gateway verified by its feature
 * (#find-gateway), the manifest retrieved and pinned (#manifest-retrieval), the version-pinned
 * tool collection walked with RSM (#list-tools), each tool's information and schemas retrieved
 * and hash-checked (#tool-info, #schemas). A pin lasts as long as the catalog: later listing,
 * schemas and invocation use that version and hash, whatever becomes active meanwhile.
 *
 * An endpoint that could not be pinned is left out of this listing and tried again at the next
 * one: a failed query says nothing about whether it exists (#use-case-discovery), so nothing is
 * cached about it and nothing is reported as "no such endpoint".
 */
import { decodeToolNode } from '../../protocol/tool-node.ts';
import { bareJidOf, normalizeJid } from '../../protocol/jid/index.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import type { ManifestTool } from '../../protocol/manifest/manifest-types.ts';
import type { Hash } from '../../protocol/stanza/index.ts';
import {
  QueryFailed,
  endpointInfo,
  retrieveManifest,
  retrieveSchema,
  toolCollection,
  toolInfo,
  verifyGateway,
} from './discovery-queries.ts';
import type { Querier } from '../querier.ts';
import { PinRefused, pinManifest, verifiedSchema, type PinnedManifest } from './manifest-pin.ts';

/** An endpoint the catalog pins: a bare JID, and the version to pin (absent: the active one). */
export interface CatalogEndpoint {
  /** Normalized bare JID. */
  readonly jid: string;
  readonly version?: string;
}

/** Which remote tool: the endpoint, the pinned version, the tool name. */
export interface RemoteTool {
  readonly jid: string;
  readonly version: string;
  readonly tool: string;
}

export interface ToolSchemas {
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
}

export interface PinnedTool {
  readonly remote: RemoteTool;
  readonly manifestHash: Hash;
  /** The endpoint's request_replay_seconds when it was pinned. */
  readonly replaySeconds: number;
  /** Task features tool information advertised for this tool. */
  readonly features: readonly string[];
  readonly schemas: ToolSchemas;
  readonly manifestTool: ManifestTool;
}

export interface PinnedEndpoint {
  readonly jid: string;
  readonly version: string;
  readonly tools: readonly PinnedTool[];
}

export type CatalogLog = (line: string) => void;

export class PinnedCatalog {
  readonly #querier: Querier;
  readonly #endpoints: readonly CatalogEndpoint[];
  readonly #log: CatalogLog;
  readonly #pinned = new Map<string, PinnedEndpoint>();
  readonly #verifiedGateways = new Set<string>();

  constructor(querier: Querier, endpoints: readonly CatalogEndpoint[], log: CatalogLog) {
    this.#querier = querier;
    this.#endpoints = endpoints;
    this.#log = log;
  }

  /** Pins every endpoint not pinned yet (one at a time, in the given order) and lists them all. */
  async list(): Promise<readonly PinnedTool[]> {
    for (const endpoint of this.#endpoints) {
      if (this.#pinned.has(endpoint.jid)) continue;
      try {
        this.#pinned.set(endpoint.jid, await this.pin(endpoint));
      } catch (error) {
        if (!(error instanceof QueryFailed || error instanceof PinRefused)) throw error;
        this.#log(
          `endpoint ${endpoint.jid} not listed this time: ${error.message} (this says nothing about whether it exists)`,
        );
      }
    }
    const tools = this.#endpoints.flatMap((endpoint) => this.#pinned.get(endpoint.jid)?.tools ?? []);
    return tools;
  }

  async #verifyGatewayOf(endpoint: string): Promise<void> {
    const gateway = bareJidOf(endpoint).split('@').pop() ?? endpoint;
    if (this.#verifiedGateways.has(gateway)) return;
    await verifyGateway(this.#querier, gateway);
    this.#verifiedGateways.add(gateway);
  }

  /**
   * Pins one endpoint now, whether listed or not; throws QueryFailed or PinRefused, which say
   * what went wrong and nothing about whether the endpoint exists.
   */
  async pin(endpoint: CatalogEndpoint): Promise<PinnedEndpoint> {
    const querier = this.#querier;
    await this.#verifyGatewayOf(endpoint.jid);
    const info = await endpointInfo(querier, endpoint.jid);
    const manifest = pinManifest(
      await retrieveManifest(querier, endpoint.jid, endpoint.version),
      endpoint.jid,
      endpoint.version,
    );
    const items = await toolCollection(querier, endpoint.jid, manifest.version);
    const tools: PinnedTool[] = [];
    for (const item of items) {
      const name = this.#toolNameOf(endpoint.jid, manifest.version, item);
      const manifestTool = name === undefined ? undefined : manifest.tools.get(name);
      if (name === undefined || manifestTool === undefined) continue;
      tools.push(await this.#pinTool(endpoint.jid, manifest, name, manifestTool, info.replaySeconds));
    }
    this.#log(
      `endpoint ${endpoint.jid} pinned at version ${manifest.version} (${String(tools.length)} tools)`,
    );
    return { jid: endpoint.jid, version: manifest.version, tools };
  }

  /** The tool an item names, or undefined (logged) when the item does not belong to this collection. */
  #toolNameOf(endpoint: string, version: string, item: { jid: string; node?: string }): string | undefined {
    try {
      const node = item.node === undefined ? undefined : decodeToolNode(item.node);
      if (normalizeJid(item.jid) === endpoint && node?.version === version) return node.toolName;
    } catch {
      // Reported below like any other foreign item.
    }
    this.#log(`endpoint ${endpoint}: a tool item that is not a tool of version ${version} was skipped`);
    return undefined;
  }

  async #pinTool(
    endpoint: string,
    manifest: PinnedManifest,
    name: string,
    manifestTool: ManifestTool,
    replaySeconds: number,
  ): Promise<PinnedTool> {
    const info = await toolInfo(this.#querier, endpoint, manifest.version, name);
    if (info.name !== name) throw new PinRefused(`tool information of ${name} names ${info.name}`);
    const schema = async (direction: 'input' | 'output', advertised: Hash, inManifest: JsonObject) =>
      verifiedSchema(
        await retrieveSchema(this.#querier, endpoint, {
          tool: name,
          version: manifest.version,
          direction,
          manifestHash: manifest.hash,
        }),
        {
          tool: name,
          version: manifest.version,
          direction,
          manifestHash: manifest.hash,
          advertised,
          inManifest,
        },
      );
    const inputSchema = await schema('input', info.inputSchemaHash, manifestTool.inputSchema);
    const { outputSchema: declaredOutput } = manifestTool;
    if ((info.outputSchemaHash === undefined) !== (declaredOutput === undefined)) {
      throw new PinRefused(`tool information of ${name} and the manifest disagree about an output schema`);
    }
    const outputSchema =
      info.outputSchemaHash === undefined || declaredOutput === undefined
        ? undefined
        : await schema('output', info.outputSchemaHash, declaredOutput);
    return {
      remote: { jid: endpoint, version: manifest.version, tool: name },
      manifestHash: manifest.hash,
      replaySeconds,
      features: info.features,
      schemas: { inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }) },
      manifestTool,
    };
  }
}
