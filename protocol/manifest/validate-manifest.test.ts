import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Base64, canonicalBytes } from '../json/canonical.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { REPO_ROOT } from '../test-support/shared-paths.ts';
import { toolExtensionMembers } from './manifest-types.ts';
import { validateManifest, validateManifestBytes, type ManifestValidation } from './validate-manifest.ts';

const MANIFESTS = resolve(REPO_ROOT, 'fixtures', 'manifests');
const BAD = resolve(MANIFESTS, 'bad');

function readManifest(name: string): JsonObject {
  return parseStrictJson(readFileSync(resolve(MANIFESTS, name))) as JsonObject;
}

function found(result: ManifestValidation): { rule: string; path: string }[] {
  return result.ok ? [] : result.violations.map(({ rule, path }) => ({ rule, path }));
}

/** A copy of the full example manifest, changed by `edit`. */
function fullWith(
  edit: (manifest: JsonObject & { agent: JsonObject; tools: JsonObject[] }) => void,
): JsonValue {
  const manifest = structuredClone(readManifest('weather-full.json')) as JsonObject & {
    agent: JsonObject;
    tools: JsonObject[];
  };
  edit(manifest);
  return manifest;
}

describe('the spec example manifests (#manifest, #registration-flow)', () => {
  it('accepts the full example, with its tool schemas compiled', async () => {
    const result = await validateManifestBytes(readFileSync(resolve(MANIFESTS, 'weather-full.json')));
    if (!result.ok) expect.fail(JSON.stringify(result.violations));
    expect(result.endpointJid).toBe('weather@agents.example');
    expect(result.manifest.tools[0]?.name).toBe('forecast.get');
    const schemas = result.toolSchemas.get('forecast.get');
    expect(schemas?.input.direction).toBe('input');
    expect(schemas?.output?.direction).toBe('output');
    // The input schema hash the spec's examples pin (interp-01).
    expect(schemas?.input.schemaHash.value).toBe('XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=');
  });

  it('accepts the minimal example, whose canonical hash is the one register-1 advertises', async () => {
    const result = await validateManifestBytes(readFileSync(resolve(MANIFESTS, 'weather-minimal.json')));
    if (!result.ok) expect.fail(JSON.stringify(result.violations));
    expect(result.toolSchemas.size).toBe(0);
    expect(sha256Base64(canonicalBytes(result.manifest as unknown as JsonValue))).toBe(
      'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=',
    );
  });

  it('returns the validated object itself as the typed view', async () => {
    const value = readManifest('weather-minimal.json');
    const result = await validateManifest(value);
    expect(result.ok && result.manifest).toBe(value);
  });
});

/** Where each bad fixture must fail; its file name is the rule with `:` written as `.`. */
const BAD_FIXTURES: Readonly<Record<string, string>> = {
  'json:duplicate-member': '',
  'json:lone-surrogate': '',
  'json:number-overflow': '',
  'json:syntax': '',
  'schema:required': '/agent/version',
  'schema:additionalProperties': '/homepage',
  'schema:const': '/manifestSpecVersion',
  'schema:pattern': '/agent/version',
  'schema:type': '/tools',
  'schema:maxLength': '/agent/name',
  'schema:minimum': '/tools/0/urn:xmpp:agent-api:0/defaultTimeoutSeconds',
  'schema:uniqueItems': '/tools/0/urn:xmpp:agent-api:0/tags/2',
  'jid:resource-present': '/agent/jid',
  'jid:localpart-character': '/agent/jid',
  'jid:empty-domainpart': '/agent/jid',
  'jid:domainpart-label': '/agent/jid',
  'uri:empty-host': '/agent/homepage',
  'uri:userinfo': '/agent/avatarUrl',
  'uri:fragment': '/agent/homepage',
  'uri:port-range': '/agent/homepage',
  'uri:bad-port': '/agent/homepage',
  'uri:invalid-character': '/agent/avatarUrl',
  'uri:bad-percent-encoding': '/agent/avatarUrl',
  'uri:bad-ip-literal': '/agent/homepage',
  'tool-name:xml-illegal-character': '/tools/0/name',
  'tool-name:duplicate': '/tools/1/name',
  'extension-name:not-uri': '/tools/0/urn:example:weather hints',
  'extension-name:alias': '/tools/0/urn:XMPP:agent-api:0',
  'timeout:default-exceeds-maximum': '/tools/0/urn:xmpp:agent-api:0/defaultTimeoutSeconds',
  'value:unservable-character': '/agent/description',
  'tool-schema:object-root': '/tools/0/inputSchema/type',
  'tool-schema:external-reference': '/tools/0/inputSchema/properties/city/$ref',
  'tool-schema:invalid-regex': '/tools/0/outputSchema/properties/summary/pattern',
  'tool-schema:unsupported-dialect': '/tools/0/inputSchema/$schema',
};

function fixtureFile(rule: string): string {
  return `${rule.replaceAll(':', '.')}.json`;
}

describe('bad manifest fixtures: each fails with exactly its rule, at its path', () => {
  it('has one fixture per listed rule and no unlisted fixture', () => {
    const files = readdirSync(BAD).filter((file) => file.endsWith('.json'));
    expect(files.sort()).toEqual(Object.keys(BAD_FIXTURES).map(fixtureFile).sort());
  });

  it.each(Object.entries(BAD_FIXTURES))('%s at %j', async (rule, path) => {
    const result = await validateManifestBytes(readFileSync(resolve(BAD, fixtureFile(rule))));
    expect(found(result)).toEqual([{ rule, path }]);
  });

  it('gives a line and column for strict-parse rejections, and no excerpt of the text', async () => {
    const result = await validateManifestBytes(readFileSync(resolve(BAD, 'json.duplicate-member.json')));
    const violation = result.ok ? undefined : result.violations[0];
    expect(violation).toMatchObject({ line: 6, column: expect.any(Number) as number });
    expect(violation?.message).not.toContain('weather2');
  });

  it('passes parse limits through', async () => {
    const bytes = readFileSync(resolve(MANIFESTS, 'weather-full.json'));
    expect(found(await validateManifestBytes(bytes, { maxBytes: 100 }))).toEqual([
      { rule: 'json:limit-bytes', path: '' },
    ]);
  });
});

describe('rules the bytes cannot reach (values built in code)', () => {
  it('rejects a lone surrogate in a tool name once, as a tool-name violation', async () => {
    const value = fullWith((m) => {
      m.tools[0] = { ...m.tools[0], name: 'forecast\ud800' };
    });
    expect(found(await validateManifest(value))).toEqual([
      { rule: 'tool-name:lone-surrogate', path: '/tools/0/name' },
    ]);
  });

  it('rejects lone surrogates and non-finite numbers elsewhere', async () => {
    const value = fullWith((m) => {
      m.agent['vendor'] = 'Ex\udc00ample';
      m.tools[0] = { ...m.tools[0], annotations: { weight: Number.NaN } };
    });
    expect(found(await validateManifest(value))).toEqual([
      { rule: 'value:lone-surrogate', path: '/agent/vendor' },
      { rule: 'value:non-finite-number', path: '/tools/0/annotations/weight' },
    ]);
  });
});

describe('one report per defect, every defect reported', () => {
  it('leaves HTTPS:// and https:/x to the schema pattern, which already refuses them', async () => {
    for (const homepage of ['HTTPS://weather.example/', 'https:/weather.example']) {
      const value = fullWith((m) => {
        m.agent['homepage'] = homepage;
      });
      expect(found(await validateManifest(value))).toEqual([
        { rule: 'schema:pattern', path: '/agent/homepage' },
      ]);
    }
  });

  it('accepts valid https URIs for both members', async () => {
    const value = fullWith((m) => {
      m.agent['homepage'] = 'https://weather.example/about?lang=en';
      m.agent['avatarUrl'] = 'https://[2001:db8::7]:8443/avatar%20large.png';
    });
    expect(found(await validateManifest(value))).toEqual([]);
  });

  it('does not compile a schema the text checks already refused', async () => {
    const value = fullWith((m) => {
      m.tools[0] = { ...m.tools[0], inputSchema: { type: 'object', description: '\uffff', pattern: '(' } };
    });
    expect(found(await validateManifest(value))).toEqual([
      { rule: 'value:unservable-character', path: '/tools/0/inputSchema/description' },
    ]);
  });

  it('collects independent defects from every family in one pass', async () => {
    const value = fullWith((m) => {
      m.agent['jid'] = 'weather@agents.example/r';
      m.agent['homepage'] = 'https://u@weather.example/';
      m.agent['title'] = 't'.repeat(257);
      m.tools.push({ ...m.tools[0], outputSchema: { type: 'object', $ref: 'https://elsewhere.example/s' } });
    });
    expect(found(await validateManifest(value))).toEqual([
      { rule: 'schema:maxLength', path: '/agent/title' },
      { rule: 'jid:resource-present', path: '/agent/jid' },
      { rule: 'uri:userinfo', path: '/agent/homepage' },
      { rule: 'tool-name:duplicate', path: '/tools/1/name' },
      { rule: 'tool-schema:external-reference', path: '/tools/1/outputSchema/$ref' },
    ]);
  });

  it('rejects a value that is not an object without running the other rules', async () => {
    expect(found(await validateManifest([]))).toEqual([{ rule: 'schema:type', path: '' }]);
  });
});

describe('values other rules must not refuse', () => {
  it('accepts MCP execution.taskSupport absent or "forbidden" (interp-40)', async () => {
    const value = fullWith((m) => {
      m.tools[0] = { ...m.tools[0], execution: { taskSupport: 'forbidden' } };
      const { execution: _dropped, ...withoutExecution } = m.tools[0];
      m.tools.push({ ...withoutExecution, name: 'forecast.list' });
    });
    expect(found(await validateManifest(value))).toEqual([]);
  });

  it('accepts numbers that only round to a double, as RFC 8785 does (interp-10)', async () => {
    const text = readFileSync(resolve(MANIFESTS, 'weather-full.json'), 'utf8').replace(
      '"type": "string" }',
      '"type": "string", "maxLength": 9007199254740993 }',
    );
    expect(text).toContain('9007199254740993');
    expect(found(await validateManifestBytes(text))).toEqual([]);
  });
});

describe('the typed view', () => {
  it('keeps third-party extension members on the tool, apart from the spec extension', async () => {
    const value = fullWith((m) => {
      m.tools[0] = { ...m.tools[0], 'https://example.com/ext#v1': { level: 2 } };
    });
    const result = await validateManifest(value);
    if (!result.ok) expect.fail(JSON.stringify(result.violations));
    const [tool] = result.manifest.tools;
    expect(tool === undefined ? [] : toolExtensionMembers(tool)).toEqual([
      ['https://example.com/ext#v1', { level: 2 }],
    ]);
    expect(tool?.['urn:xmpp:agent-api:0']?.maximumTimeoutSeconds).toBe(120);
  });
});

describe('agent.jid (interp-25)', () => {
  it('accepts a mixed-case JID and keys the endpoint by its normalized form', async () => {
    const value = fullWith((m) => {
      m.agent['jid'] = 'Weather@Agents.Example';
    });
    const result = await validateManifest(value);
    expect(result.ok && result.endpointJid).toBe('weather@agents.example');
    expect(result.ok && result.manifest.agent.jid).toBe('Weather@Agents.Example');
  });

  it('reports a JID whose normalized form breaks a limit instead of throwing', async () => {
    // U+0130 lowercases to two code points: 400 of them are 800 octets before, 1200 after.
    const value = fullWith((m) => {
      m.agent['jid'] = `${'\u0130'.repeat(400)}@agents.example`;
    });
    expect(found(await validateManifest(value))).toEqual([
      { rule: 'jid:localpart-too-long', path: '/agent/jid' },
    ]);
  });
});
