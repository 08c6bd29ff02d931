import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { intakeManifest } from '../registration/manifest-intake.ts';
import { REFERENCE_WORLD, manifestObject } from '../registration/test-support/manifests.ts';
import { ConfigError } from '../../protocol/json/config-file.ts';
import type { ToolRuntime } from '../runtime/tool-runtime.ts';
import { inlineWorldFile } from '../../protocol/fixture-world-file.ts';
import {
  loadFixtureWorld,
  parseFixtureWorld,
  resolveEndpointRuntimes,
  type FixtureWorld,
} from './fixture-world.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { docsExample, DOCS_DIR } from './test-support/docs-examples.ts';

function parse(value: JsonValue): FixtureWorld {
  return parseFixtureWorld(value, {
    source: 'world.json',
    baseDir: '/worlds',
    files: {
      readFile: (path) => {
        if (path === '/manifests/weather.json') return Buffer.from(JSON.stringify(manifestObject()));
        throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      },
    },
  });
}

function problems(value: JsonValue): string[] {
  try {
    parse(value);
  } catch (error) {
    if (error instanceof ConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return expect.fail('expected a ConfigError');
}

describe('fixture-world files', () => {
  it('reads manifest files relative to the world file, and inline manifests as canonical text', () => {
    const inline = manifestObject({ jid: 'echo@agents.example' });
    const world = parse({
      endpoints: [
        { jid: 'Weather@Agents.Example', versions: [{ file: '../manifests/weather.json' }], active: '1.0.0' },
        { jid: 'echo@agents.example', versions: [{ manifest: inline }], hidden: true },
      ],
      grants: [{ principal: 'alice@example.com', see: ['echo@agents.example'] }],
    });
    expect(world.endpoints.map(({ path, jid, active, hidden }) => ({ path, jid, active, hidden }))).toEqual([
      { path: '/endpoints/0', jid: 'weather@agents.example', active: '1.0.0', hidden: false },
      { path: '/endpoints/1', jid: 'echo@agents.example', active: null, hidden: true },
    ]);
    expect(world.endpoints[0]?.versions[0]?.origin).toBe('/manifests/weather.json');
    expect(world.endpoints[1]?.versions[0]).toEqual({
      path: '/endpoints/1/versions/0',
      origin: 'inline',
      text: canonicalJson(inline),
    });
    expect(world.grants).toEqual([
      {
        subjectKind: 'principal',
        subject: 'alice@example.com',
        action: 'see',
        endpoint: 'echo@agents.example',
        tool: null,
      },
    ]);
  });

  it('lists every problem: schema, duplicate endpoints, unreadable files, bad JIDs', () => {
    expect(
      problems({
        endpoints: [
          { jid: 'weather@agents.example', versions: [{ file: '../manifests/weather.json' }] },
          { jid: 'WEATHER@agents.example', versions: [{ file: 'missing.json' }] },
          { jid: 'x@agents.example', versions: [{ file: 'a.json', manifest: {} }] },
        ],
      }),
    ).toEqual(['/endpoints/2/versions/0: give exactly one of "file" or "manifest"']);
    expect(
      problems({
        endpoints: [
          { jid: 'weather@agents.example', versions: [{ file: '../manifests/weather.json' }] },
          { jid: 'WEATHER@agents.example', versions: [{ file: 'missing.json' }] },
          { jid: 'bad@-x-.example', versions: [{ manifest: {} }] },
        ],
        grants: [{ domain: 'example.com', see: ['bad@agents..example'] }],
      }),
    ).toEqual([
      '/endpoints/1/jid: the same endpoint as /endpoints/0',
      '/endpoints/1/versions/0/file: cannot read /worlds/missing.json (ENOENT)',
      '/endpoints/2/jid: not a bare JID (domainpart-label)',
      '/grants/0/see/0: not a bare JID (domainpart-label)',
    ]);
  });

  it('loads the reference world', () => {
    const world = loadFixtureWorld(REFERENCE_WORLD);
    expect(world.endpoints.map((e) => e.jid)).toEqual([
      'weather@agents.example',
      'calendar@agents.example',
      'translator@agents.example',
      'vault@agents.example',
      'toolbox@agents.example',
      'archive@agents.example',
      '\ufa0e@agents.example',
      '\u{20000}@agents.example',
      'conformance@agents.example',
    ]);
    expect(world.endpoints.find((e) => e.jid === 'vault@agents.example')?.hidden).toBe(true);
    expect(world.endpoints.find((e) => e.jid === 'archive@agents.example')?.active).toBeNull();
    expect(world.endpointRuntimes).toEqual(new Map(world.endpoints.map((e) => [e.jid, 'conformance'])));
  });

  it('accepts the example of docs/gateway-config.md', () => {
    const world = parseFixtureWorld(docsExample('fixture-world'), {
      source: 'docs example',
      baseDir: DOCS_DIR,
    });
    expect(world.endpoints.map((e) => e.jid)).toEqual(['weather@agents.example', 'echo@agents.example']);
  });
});

describe('tool runtimes', () => {
  const inline = (jid: string): JsonValue => ({ manifest: manifestObject({ jid }) });

  it('maps each endpoint that names a runtime to it, by normalized JID', () => {
    const world = parse({
      endpoints: [
        { jid: 'Echo@Agents.Example', versions: [inline('echo@agents.example')], runtime: 'conformance' },
        { jid: 'weather@agents.example', versions: [{ file: '../manifests/weather.json' }] },
      ],
    });
    expect(world.endpoints.map((e) => e.runtime)).toEqual(['conformance', undefined]);
    expect(world.endpointRuntimes).toEqual(new Map([['echo@agents.example', 'conformance']]));
  });

  it('refuses a runtime name outside the schema pattern', () => {
    for (const runtime of ['', 'Conformance', '1st', 'a b', 'x'.repeat(65)]) {
      expect(
        problems({
          endpoints: [{ jid: 'echo@agents.example', versions: [inline('echo@agents.example')], runtime }],
        }),
      ).toEqual([expect.stringMatching(/^\/endpoints\/0\/runtime: /)]);
    }
  });

  it('resolves names to the runtimes the gateway has, listing every unknown name at its pointer', () => {
    const conformance: ToolRuntime = { name: 'conformance', execute: () => Promise.resolve() };
    const world = parse({
      endpoints: [
        { jid: 'a@agents.example', versions: [inline('a@agents.example')], runtime: 'conformance' },
        { jid: 'b@agents.example', versions: [inline('b@agents.example')] },
      ],
    });
    expect(resolveEndpointRuntimes(world, [conformance])).toEqual(
      new Map([['a@agents.example', conformance]]),
    );
    const unknown = parse({
      endpoints: [
        { jid: 'a@agents.example', versions: [inline('a@agents.example')], runtime: 'llm' },
        { jid: 'b@agents.example', versions: [inline('b@agents.example')], runtime: 'conformance' },
        { jid: 'c@agents.example', versions: [inline('c@agents.example')], runtime: 'mcp-bridge' },
      ],
    });
    try {
      resolveEndpointRuntimes(unknown, [conformance]);
      expect.fail('expected a ConfigError');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      expect(error.violations).toEqual([
        {
          path: '/endpoints/0/runtime',
          message: 'no tool runtime named "llm" (this gateway has: "conformance")',
        },
        {
          path: '/endpoints/2/runtime',
          message: 'no tool runtime named "mcp-bridge" (this gateway has: "conformance")',
        },
      ]);
    }
    expect(() => resolveEndpointRuntimes(world, [])).toThrow('this gateway has: none');
  });

  it('gives the reference world a runtime for every name it uses', () => {
    const conformance: ToolRuntime = { name: 'conformance', execute: () => Promise.resolve() };
    const world = loadFixtureWorld(REFERENCE_WORLD);
    const runtimes = resolveEndpointRuntimes(world, [conformance]);
    expect([...runtimes.keys()]).toEqual(world.endpoints.map((e) => e.jid));
    expect([...runtimes.values()].every((runtime) => runtime === conformance)).toBe(true);
  });
});

describe('inlineWorldFile', () => {
  it('turns file references into inline manifests that register the same content', async () => {
    const inlined = inlineWorldFile(REFERENCE_WORLD);
    expect(JSON.stringify(inlined)).not.toContain('"file"');
    const fromFiles = loadFixtureWorld(REFERENCE_WORLD);
    const fromInline = parseFixtureWorld(inlined, { source: 'inlined', baseDir: '/nowhere' });
    const hashes = async (world: FixtureWorld): Promise<string[]> => {
      const result: string[] = [];
      for (const endpoint of world.endpoints) {
        for (const version of endpoint.versions) {
          const outcome = await intakeManifest(version.text, DEFAULT_LIMITS);
          result.push(outcome.ok ? outcome.value.document.hash.value : outcome.fault.reason);
        }
      }
      return result;
    };
    expect(await hashes(fromInline)).toEqual(await hashes(fromFiles));
    expect(fromInline.grants).toEqual(fromFiles.grants);
    expect(fromInline.endpointRuntimes).toEqual(fromFiles.endpointRuntimes);
    expect(fromInline.endpointRuntimes.size).toBeGreaterThan(0);
  });
});
