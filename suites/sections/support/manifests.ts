/**
 * Manifests the registration cases submit (#manifest, #registration-flow): a valid one built
 * for any JID and version, and the defective ones of fixtures/manifests/bad/ re-targeted at a
 * fresh JID and version.
 *
 * The bad fixtures all claim weather@agents.example 1.4.0, a registered version in the
 * reference world: submitted as they are, a gateway could answer conflict before judging the
 * defect. Their text is re-targeted rather than re-serialized, because several defects
 * (duplicate members, lone surrogates, 1e400) do not survive JSON.parse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../harness/repo-root.ts';
import { NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';

const BAD_DIR = join(REPO_ROOT, 'fixtures', 'manifests', 'bad');

/** The smallest manifest the schema accepts with one tool: no optional member anywhere. */
export function minimalManifest(jid: string, version: string, name = 'agentconf-probe'): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name, version },
    tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  };
}

/** The smallest manifest the schema accepts, with one tool whose input schema is `inputSchema`. */
export function probeManifest(
  jid: string,
  version: string,
  inputSchema: JsonObject,
  extra: JsonObject = {},
): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: 'agentconf-probe', version },
    tools: [{ name: 'probe', inputSchema, ...extra }],
  };
}

/**
 * A manifest carrying every optional member the model defines (#manifest), at the agent and at
 * the tool, with URIs that are valid however strictly RFC 3986 and RFC 9110 are read.
 */
export function fullManifest(jid: string, version: string): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: {
      jid,
      name: 'agentconf-full',
      title: 'Agentconf Full Probe',
      description: 'Carries every optional manifest member.',
      version,
      vendor: 'agentconf',
      homepage: 'https://agentconf.example/about?lang=en',
      avatarUrl: 'https://[2001:db8::7]:8443/avatar%20large.png',
    },
    implementation: { name: 'agentconf-probe', version: '0.1.0' },
    mcpProtocolVersion: '2025-11-25',
    tools: [
      {
        name: 'lookup.get',
        title: 'Look Up',
        description: 'Looks one thing up.',
        inputSchema: {
          type: 'object',
          properties: { key: { type: 'string' } },
          required: ['key'],
          additionalProperties: false,
        },
        outputSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        execution: { taskSupport: 'optional' },
        _meta: { 'agentconf.example/probe': true },
        [NS_AGENT_API]: {
          supportsProgress: false,
          supportsCancellation: false,
          supportsInput: false,
          defaultTimeoutSeconds: 30,
          maximumTimeoutSeconds: 60,
          requiredPermissions: [],
          approvalRequired: false,
          tags: ['lookup'],
        },
        'urn:example:agentconf:hints': { note: 'an extension member with a URI name' },
      },
    ],
  };
}

/**
 * The text of fixtures/manifests/bad/<name>.json claiming `jid` and `version` instead of
 * weather@agents.example 1.4.0. A fixture whose defect is in its JID or version keeps that.
 */
export function badManifest(name: string, jid: string, version: string): string {
  const text = readFileSync(join(BAD_DIR, `${name}.json`), 'utf8');
  return text
    .replace(/"jid":\s*"weather@agents\.example"/, `"jid": ${JSON.stringify(jid)}`)
    .replace(/"version":\s*"1\.4\.0"/, `"version": ${JSON.stringify(version)}`);
}

/** A string that the property's format, length and pattern accept, from a few plain candidates. */
function exampleString(property: JsonObject): string {
  if (property['format'] === 'date-time') return '2030-01-01T00:00:00Z';
  const minLength = typeof property['minLength'] === 'number' ? Math.max(1, property['minLength']) : 1;
  const pattern = typeof property['pattern'] === 'string' ? new RegExp(property['pattern'], 'u') : undefined;
  const candidates = ['x', 'en', 'abc', 'X', '1', 'a1', 'x'.repeat(minLength)];
  return (
    candidates.find(
      (candidate) => candidate.length >= minLength && (pattern === undefined || pattern.test(candidate)),
    ) ?? 'x'.repeat(minLength)
  );
}

/**
 * Arguments a simple input schema accepts: each required property with a value of its type
 * (its enum's first value, a date-time, a string of its minimum length, a number at its
 * minimum). Enough for the positive control of an invocation of a world tool.
 */
export function exampleArguments(schemaBytes: Buffer): JsonObject {
  const schema = JSON.parse(schemaBytes.toString('utf8')) as JsonValue;
  if (!isJsonObject(schema)) return {};
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const valueOf = (property: JsonValue | undefined): JsonValue => {
    if (!isJsonObject(property)) return null;
    if (Array.isArray(property['enum']) && property['enum'].length > 0) return property['enum'][0] ?? null;
    const minimum = typeof property['minimum'] === 'number' ? property['minimum'] : 0;
    switch (property['type']) {
      case 'string':
        return exampleString(property);
      case 'integer':
      case 'number':
        return minimum;
      case 'boolean':
        return true;
      case 'array':
        return [];
      case 'object':
        return {};
      default:
        return null;
    }
  };
  return Object.fromEntries(
    required
      .filter((name): name is string => typeof name === 'string')
      .map((name) => [name, valueOf(properties[name])]),
  );
}
