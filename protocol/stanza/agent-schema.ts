/**
 * Tool schema retrieval (#schemas, #schema-agent-api): <schema-request tool version direction>
 * with the expected manifest hash, and <schema> with manifest and schema hashes and the
 * canonical schema JSON (media type application/schema+json).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { MEDIA_TYPE_SCHEMA_JSON, NS, NS_AGENT_API } from '../namespaces.ts';
import {
  checkAttributes,
  enumAttribute,
  expectElement,
  expectMediaType,
  lexAttribute,
  only,
  readSequence,
} from './element-reader.ts';
import { lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildHash, buildHashContainer, parseHash, parseHashContainer } from './hash.ts';
import type { Hash } from './hash.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexEnum, lexToolName, lexVersion } from './lexical.ts';

export const SCHEMA_DIRECTIONS = ['input', 'output'] as const;
export type SchemaDirection = (typeof SCHEMA_DIRECTIONS)[number];

export interface SchemaRequest {
  readonly tool: string;
  readonly version: string;
  readonly direction: SchemaDirection;
  readonly manifestHash: Hash;
}

export interface ToolSchema {
  readonly tool: string;
  readonly version: string;
  readonly direction: SchemaDirection;
  readonly manifestHash: Hash;
  readonly schemaHash: Hash;
  readonly json: string;
}

interface ToolVersionDirection {
  readonly tool: string;
  readonly version: string;
  readonly direction: SchemaDirection;
}

function readToolVersionDirection(element: Element): ToolVersionDirection {
  return {
    tool: lexAttribute(element, 'tool', lexToolName),
    version: lexAttribute(element, 'version', lexVersion),
    direction: enumAttribute(element, 'direction', SCHEMA_DIRECTIONS),
  };
}

function toolVersionDirectionAttributes(
  target: BuildTarget,
  value: ToolVersionDirection,
): Record<string, string> {
  return {
    tool: lexForBuild(target, 'tool', value.tool, lexToolName),
    version: lexForBuild(target, 'version', value.version, lexVersion),
    direction: lexForBuild(target, 'direction', value.direction, lexEnum(SCHEMA_DIRECTIONS)),
  };
}

export function parseSchemaRequest(element: Element): SchemaRequest {
  expectElement(element, 'schema-request', NS_AGENT_API);
  checkAttributes(element, ['tool', 'version', 'direction']);
  const fields = readToolVersionDirection(element);
  const [hashes] = readSequence(element, [{ local: 'hash', ns: NS.hashes }]);
  return { ...fields, manifestHash: parseHash(only(hashes)) };
}

export function buildSchemaRequest(request: SchemaRequest): Element {
  const target: BuildTarget = { local: 'schema-request', ns: NS_AGENT_API };
  return xml(
    'schema-request',
    { xmlns: NS_AGENT_API, ...toolVersionDirectionAttributes(target, request) },
    buildHash(request.manifestHash),
  );
}

export function parseSchema(element: Element): ToolSchema {
  expectElement(element, 'schema', NS_AGENT_API);
  checkAttributes(element, ['tool', 'version', 'direction', 'media-type']);
  const fields = readToolVersionDirection(element);
  expectMediaType(element, MEDIA_TYPE_SCHEMA_JSON);
  const [manifestHashes, schemaHashes, jsons] = readSequence(element, [
    { local: 'manifest-hash', ns: NS_AGENT_API },
    { local: 'schema-hash', ns: NS_AGENT_API },
    { local: 'json', ns: NS_AGENT_API },
  ]);
  const json = only(jsons);
  checkAttributes(json, []);
  return {
    ...fields,
    manifestHash: parseHashContainer(only(manifestHashes), 'manifest-hash', NS_AGENT_API),
    schemaHash: parseHashContainer(only(schemaHashes), 'schema-hash', NS_AGENT_API),
    json: readJsonText(json),
  };
}

export function buildSchema(schema: ToolSchema): Element {
  const target: BuildTarget = { local: 'schema', ns: NS_AGENT_API };
  return xml(
    'schema',
    {
      xmlns: NS_AGENT_API,
      ...toolVersionDirectionAttributes(target, schema),
      'media-type': MEDIA_TYPE_SCHEMA_JSON,
    },
    buildHashContainer('manifest-hash', schema.manifestHash),
    buildHashContainer('schema-hash', schema.schemaHash),
    buildJsonElement({ local: 'json', ns: NS_AGENT_API }, {}, schema.json),
  );
}
