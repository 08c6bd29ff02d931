/**
 * The exact manifest a task is pinned to (#rules: invocation, task state and result "remain
 * pinned to its exact manifest"), read from the store by (endpoint, version) whatever the
 * requester may see: invocation permission is independent of visibility (#invocation), so the
 * catalog's visibility-filtered lookups are the wrong door here.
 *
 * Versions are immutable, so parsed manifests and compiled schemas are cached by (endpoint,
 * version, hash); a version removed and re-registered with other bytes is impossible
 * (tombstones). Each lookup still asks the store whether the version exists — only its hash,
 * not its bytes, unless the manifest is not cached yet.
 */
import type { CompiledToolSchema } from '../../protocol/tool-schema/index.ts';
import { compileToolSchema } from '../../protocol/tool-schema/index.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import type { AgentApiToolExtension, Manifest, ManifestTool } from '../../protocol/manifest/index.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import type { VersionPin } from '../store/store-records.ts';
import { STORED_JSON_LIMITS } from './caller-json.ts';

export interface PinnedTool {
  readonly version: VersionPin;
  readonly tool: ManifestTool;
  readonly extension: AgentApiToolExtension;
}

export class PinnedTools {
  readonly #store: GatewayStore;
  readonly #manifests = new Map<string, Manifest>();
  readonly #schemas = new Map<string, Promise<CompiledToolSchema>>();

  constructor(store: GatewayStore) {
    this.#store = store;
  }

  /** The registered version and its tool, or undefined when either does not exist. */
  find(endpointJid: string, version: string, toolName: string): PinnedTool | undefined {
    const pin = this.#store.registrations.versionPin(endpointJid, version);
    if (pin === undefined) return undefined;
    const manifest = this.#manifest(pin);
    if (manifest === undefined) return undefined;
    // Tool names compare code point by code point, never normalized (#namespaces).
    const tool = manifest.tools.find((candidate) => candidate.name === toolName);
    if (tool === undefined) return undefined;
    return { version: pin, tool, extension: tool[NS_AGENT_API] ?? {} };
  }

  /** The compiled inputSchema or outputSchema of a pinned tool (registration compiled it once already). */
  schema(pinned: PinnedTool, direction: 'input' | 'output'): Promise<CompiledToolSchema> | undefined {
    const schema = direction === 'input' ? pinned.tool.inputSchema : pinned.tool.outputSchema;
    if (schema === undefined) return undefined;
    const key = `${pinned.version.jid}\u0000${pinned.version.version}\u0000${pinned.version.hash.value}\u0000${pinned.tool.name}\u0000${direction}`;
    return this.#compile(key, schema, direction);
  }

  /** A schema the runtime supplied (an input request's inputSchema), cached by its canonical text. */
  adHocSchema(canonicalSchemaJson: string): Promise<CompiledToolSchema> {
    const schema = parseStrictJson(canonicalSchemaJson, STORED_JSON_LIMITS);
    // 'output' applies no root-type rule: an input request may ask for any JSON value.
    return this.#compile(`adhoc\u0000${canonicalSchemaJson}`, schema, 'output');
  }

  #compile(key: string, schema: JsonValue, direction: 'input' | 'output'): Promise<CompiledToolSchema> {
    let compiled = this.#schemas.get(key);
    if (compiled === undefined) {
      compiled = compileToolSchema(schema, { direction });
      // A rejected compile is not cached: the next call reports the rejection again.
      compiled.catch(() => this.#schemas.delete(key));
      this.#schemas.set(key, compiled);
    }
    return compiled;
  }

  #manifest(pin: VersionPin): Manifest | undefined {
    const key = `${pin.jid}\u0000${pin.version}\u0000${pin.hash.value}`;
    let manifest = this.#manifests.get(key);
    if (manifest === undefined) {
      const stored = this.#store.registrations.version(pin.jid, pin.version);
      if (stored === undefined) return undefined;
      // Validated before it was stored; the catalog checks bytes against the hash on its side.
      manifest = parseStrictJson(stored.canonicalJson, STORED_JSON_LIMITS) as unknown as Manifest;
      this.#manifests.set(key, manifest);
    }
    return manifest;
  }
}
