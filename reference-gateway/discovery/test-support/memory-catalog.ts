/**
 * An in-memory Catalog for the discovery tests: immutable ManifestRecords built the way the
 * store builds them (validated manifest, RFC 8785 bytes and hashes, tools in UTF-8 name order),
 * an active pointer per endpoint, and a visibility predicate standing in for policy.
 */
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { compareUtf8, normalizeBareJid } from '../../../protocol/jid/index.ts';
import { validateManifest } from '../../../protocol/manifest/index.ts';
import type {
  Catalog,
  ManifestRecord,
  Requester,
  ToolRecord,
  VisibleEndpoint,
} from '../../catalog/catalog.ts';

export async function manifestRecord(value: JsonValue): Promise<ManifestRecord> {
  const validation = await validateManifest(value);
  if (!validation.ok) {
    throw new Error(`fixture manifest is invalid: ${validation.violations.map((v) => v.rule).join(', ')}`);
  }
  const { manifest, endpointJid } = validation;
  const tools: ToolRecord[] = manifest.tools
    .map((tool) => ({
      name: tool.name,
      definition: tool,
      inputSchema: canonicalDocument(tool.inputSchema),
      outputSchema: tool.outputSchema === undefined ? undefined : canonicalDocument(tool.outputSchema),
    }))
    .sort((a, b) => compareUtf8(a.name, b.name));
  return {
    jid: endpointJid,
    version: manifest.agent.version,
    manifest,
    document: canonicalDocument(value),
    tools,
  };
}

export interface ToolSketch {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly outputSchema?: JsonObject;
  readonly annotations?: JsonObject;
  readonly extension?: JsonObject;
}

export interface ManifestSketch {
  readonly jid: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly version?: string;
  readonly tools?: readonly ToolSketch[];
}

const INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/** A manifest JSON value from a sketch; optional members appear only when given. */
export function manifestJson(sketch: ManifestSketch): JsonObject {
  const agent: JsonObject = { jid: sketch.jid, name: sketch.name, version: sketch.version ?? '1.0.0' };
  if (sketch.title !== undefined) agent['title'] = sketch.title;
  if (sketch.description !== undefined) agent['description'] = sketch.description;
  const tools = (sketch.tools ?? []).map((tool) => {
    const json: JsonObject = { name: tool.name, inputSchema: INPUT_SCHEMA };
    if (tool.title !== undefined) json['title'] = tool.title;
    if (tool.description !== undefined) json['description'] = tool.description;
    if (tool.outputSchema !== undefined) json['outputSchema'] = tool.outputSchema;
    if (tool.annotations !== undefined) json['annotations'] = tool.annotations;
    if (tool.extension !== undefined) json['urn:xmpp:agent-api:0'] = tool.extension;
    return json;
  });
  return { manifestSpecVersion: '0', agent, tools };
}

export function requester(fullJid: string): Requester {
  const slash = fullJid.indexOf('/');
  const bareJid = normalizeBareJid(slash === -1 ? fullJid : fullJid.slice(0, slash));
  return { fullJid, bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}

type Visibility = (requester: Requester) => boolean;

interface EndpointState {
  readonly versions: Map<string, ManifestRecord>;
  active: string | undefined;
  visibleTo: Visibility;
}

export const EVERYONE: Visibility = () => true;

/** Visible only to requesters whose bare JID is listed. */
export function onlyTo(...bareJids: string[]): Visibility {
  return (requester) => bareJids.includes(requester.bareJid);
}

export class MemoryCatalog implements Catalog {
  private readonly endpoints = new Map<string, EndpointState>();
  /** Every call the responders made, so tests can see that hidden and missing take one path. */
  readonly calls: string[] = [];

  /** Registers a version; the first registration of an endpoint also activates it. */
  add(record: ManifestRecord, visibleTo: Visibility = EVERYONE): this {
    const state = this.endpoints.get(record.jid);
    if (state === undefined) {
      this.endpoints.set(record.jid, {
        versions: new Map([[record.version, record]]),
        active: record.version,
        visibleTo,
      });
    } else {
      state.versions.set(record.version, record);
    }
    return this;
  }

  activate(jid: string, version: string | undefined): this {
    const state = this.endpoints.get(jid);
    if (state === undefined) throw new Error(`no endpoint ${jid}`);
    state.active = version;
    return this;
  }

  private visibleState(requester: Requester, jid: string): EndpointState | undefined {
    const state = this.endpoints.get(jid);
    return state?.visibleTo(requester) === true ? state : undefined;
  }

  private activeOf(jid: string, state: EndpointState): VisibleEndpoint | undefined {
    const active = state.active === undefined ? undefined : state.versions.get(state.active);
    return active === undefined ? undefined : { jid, active };
  }

  visibleEndpoints(requester: Requester): readonly VisibleEndpoint[] {
    this.calls.push('visibleEndpoints');
    return [...this.endpoints.entries()]
      .flatMap(([jid, state]) => {
        const endpoint = state.visibleTo(requester) ? this.activeOf(jid, state) : undefined;
        return endpoint === undefined ? [] : [endpoint];
      })
      .sort((a, b) => compareUtf8(a.jid, b.jid));
  }

  visibleEndpoint(requester: Requester, jid: string): VisibleEndpoint | undefined {
    this.calls.push(`visibleEndpoint ${jid}`);
    const state = this.visibleState(requester, jid);
    return state === undefined ? undefined : this.activeOf(jid, state);
  }

  visibleVersion(requester: Requester, jid: string, version: string): ManifestRecord | undefined {
    this.calls.push(`visibleVersion ${jid} ${version}`);
    return this.visibleState(requester, jid)?.versions.get(version);
  }
}
