/**
 * Every manifest the spec's examples contain, keyed by canonical hash: the standalone
 * "Agent API manifest" example, registered manifests and served manifests. Pinned hashes
 * are resolved against this catalogue.
 */
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import type { JsonSite } from './example-documents.ts';

export interface CataloguedManifest {
  readonly hash: string;
  readonly jid: string | undefined;
  readonly version: string | undefined;
  readonly description: string | undefined;
  readonly tools: ReadonlyMap<string, JsonObject>;
  /** Captions of the examples that contain it. */
  readonly sources: ReadonlySet<string>;
}

interface Entry extends CataloguedManifest {
  readonly sources: Set<string>;
}

const MANIFEST_SITES: ReadonlySet<string> = new Set(['register/manifest', 'manifest/json']);

export function catalogueManifests(sites: readonly JsonSite[]): Map<string, CataloguedManifest> {
  const catalogue = new Map<string, Entry>();
  for (const site of sites) {
    const isManifest =
      MANIFEST_SITES.has(site.site) ||
      (site.site === 'example' &&
        isJsonObject(site.value) &&
        Object.hasOwn(site.value, 'manifestSpecVersion'));
    if (!isManifest || !isJsonObject(site.value)) continue;
    const hash = canonicalDocument(site.value).hash.value;
    const known = catalogue.get(hash);
    if (known !== undefined) {
      known.sources.add(site.example.caption);
      continue;
    }
    const agent = site.value['agent'];
    catalogue.set(hash, {
      hash,
      jid: stringMember(agent, 'jid'),
      version: stringMember(agent, 'version'),
      description: stringMember(agent, 'description'),
      tools: toolsOf(site.value['tools']),
      sources: new Set([site.example.caption]),
    });
  }
  return catalogue;
}

function stringMember(value: JsonValue | undefined, name: string): string | undefined {
  if (value === undefined || !isJsonObject(value)) return undefined;
  const member = value[name];
  return typeof member === 'string' ? member : undefined;
}

function toolsOf(tools: JsonValue | undefined): Map<string, JsonObject> {
  const byName = new Map<string, JsonObject>();
  if (!Array.isArray(tools)) return byName;
  for (const tool of tools) {
    const name = stringMember(tool, 'name');
    if (name !== undefined && isJsonObject(tool)) byName.set(name, tool);
  }
  return byName;
}
