/**
 * The expected side of the integration tests, computed from the fixture files themselves (never
 * from what the gateway says): canonical manifest documents, tool schema hashes, and the
 * reference world's visibility table.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compareUtf8 } from '../../protocol/jid/index.ts';
import { canonicalDocument, type CanonicalDocument } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { DataForm } from '../../protocol/stanza/index.ts';
import { MANIFESTS_DIR } from '../../reference-gateway/registration/test-support/manifests.ts';

/** A fixture manifest as parsed from its file, and its RFC 8785 document (#manifest-retrieval). */
export interface FixtureManifest {
  readonly value: JsonObject;
  readonly document: CanonicalDocument;
  readonly tools: readonly JsonObject[];
}

export function fixtureManifest(file: string): FixtureManifest {
  const value = parseStrictJson(readFileSync(resolve(MANIFESTS_DIR, file)));
  if (!isJsonObject(value)) throw new Error(`${file} is not a JSON object`);
  const tools = value['tools'];
  return {
    value,
    document: canonicalDocument(value),
    tools: Array.isArray(tools) ? tools.filter(isJsonObject) : [],
  };
}

/** The canonical document of one tool's input or output schema (#tool-info, #schemas). */
export function toolSchemaDocument(
  manifest: FixtureManifest,
  toolName: string,
  direction: 'input' | 'output',
): CanonicalDocument {
  const tool = manifest.tools.find((candidate) => candidate['name'] === toolName);
  const schema: JsonValue | undefined = tool?.[direction === 'input' ? 'inputSchema' : 'outputSchema'];
  if (schema === undefined) throw new Error(`no ${direction} schema for ${toolName}`);
  return canonicalDocument(schema);
}

export function toolNames(manifest: FixtureManifest): string[] {
  return manifest.tools.map((tool) => {
    const name = tool['name'];
    if (typeof name !== 'string') throw new Error('a tool without a name');
    return name;
  });
}

/** Names in the order #list-tools requires: ascending UTF-8 octets. */
export function inOctetOrder(names: readonly string[]): string[] {
  return names.toSorted(compareUtf8);
}

export const MANIFEST = {
  weather: fixtureManifest('weather-full.json'),
  weatherNext: fixtureManifest('weather-2.0.0.json'),
  calendar: fixtureManifest('calendar.json'),
  translator: fixtureManifest('translator.json'),
  vault: fixtureManifest('vault.json'),
  toolbox: fixtureManifest('toolbox.json'),
  archive: fixtureManifest('archive.json'),
} as const;

/** Endpoint JIDs of the reference world. */
export const JID = {
  weather: 'weather@agents.example',
  calendar: 'calendar@agents.example',
  translator: 'translator@agents.example',
  vault: 'vault@agents.example',
  toolbox: 'toolbox@agents.example',
  archive: 'archive@agents.example',
  /** Registered nowhere; sorts between translator and vault. */
  nobody: 'unknown@agents.example',
} as const;

/** The reference world's endpoints these tests are written against (one per policy case). */
export const POLICY_FIXTURE_JIDS: readonly string[] = [
  JID.weather,
  JID.calendar,
  JID.translator,
  JID.vault,
  JID.toolbox,
  JID.archive,
];

/**
 * What each caller's directory lists in the reference world (fixtures/worlds/reference.json),
 * in octet order: active endpoints only, hidden ones only for a grant that names them.
 */
export const VISIBLE = {
  /** server.example sees everything that is not hidden. */
  local: [JID.calendar, JID.toolbox, JID.translator, JID.weather],
  /** alice's principal grant names vault (hidden) and not translator. */
  alice: [JID.calendar, JID.toolbox, JID.vault, JID.weather],
  /** The rest of example.com: the domain grant names weather only. */
  remote: [JID.weather],
} as const;

/** A form's fields by var: type and values, for whole-form comparisons. */
export function fieldsOf(
  form: DataForm | undefined,
): Record<string, { type: string | undefined; values: string[] }> {
  if (form === undefined) throw new Error('no form');
  return Object.fromEntries(
    form.fields.map((field) => [field.var ?? '', { type: field.type, values: [...field.values] }]),
  );
}
