/**
 * MCP-hosted endpoints at start: the manifest generated from `agentconf conformance-tools`'s
 * tools/list is fixtures/manifests/conformance.json byte for byte; the generation rules (what is
 * preserved, declarations, dialects, losses); joining the fixture world; failed starts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { TASK_BRIDGE } from '../../../protocol/mcp-task-bridge.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import type { FixtureWorld } from '../../config/fixture-world.ts';
import type { McpEndpointConfig } from '../../config/mcp-endpoints.ts';
import { McpHostingError, hostMcpEndpoints, withHostedEndpoints } from './mcp-hosting.ts';
import { manifestFromTools } from './mcp-manifest.ts';
import { plainServer } from './test-support/plain-server.ts';

const CONFORMANCE = join(REPO_ROOT, 'fixtures', 'manifests', 'conformance.json');
const conformance = parseStrictJson(readFileSync(CONFORMANCE)) as JsonObject;
const { jid: _jid, ...conformanceAgent } = conformance['agent'] as JsonObject;

function endpoint(members: Partial<McpEndpointConfig> = {}): McpEndpointConfig {
  return {
    path: '/mcpEndpoints/0',
    jid: 'conformance@agents.example',
    server: {
      kind: 'stdio',
      command: process.execPath,
      args: [join(REPO_ROOT, 'bin', 'agentconf.js'), 'conformance-tools'],
      cwd: REPO_ROOT,
      env: {},
    },
    agent: conformanceAgent,
    implementation: undefined,
    tools: {},
    active: true,
    startupMs: 20_000,
    ...members,
  };
}

const OPTIONS = { source: '/etc/gateway.json', clientInfo: { name: 'test', version: '1' } };

describe('hostMcpEndpoints', () => {
  it('generates conformance.json, byte for byte, from agentconf conformance-tools', async () => {
    const lines: string[] = [];
    const [hosted] = await hostMcpEndpoints([endpoint()], { ...OPTIONS, log: (line) => lines.push(line) });
    try {
      expect(hosted?.bridge).toBe(true);
      expect(canonicalJson(hosted?.manifest ?? {})).toBe(canonicalJson(conformance));
      expect(lines).toEqual([]);
    } finally {
      await hosted?.runtime.close();
    }
  }, 30_000);

  it('a server that cannot start fails the start with the endpoint named', async () => {
    const failing = endpoint({
      server: {
        kind: 'stdio',
        command: join(REPO_ROOT, 'no-such-program'),
        args: [],
        cwd: undefined,
        env: {},
      },
    });
    const error = await hostMcpEndpoints([failing], OPTIONS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpHostingError);
    expect((error as McpHostingError).violations[0]?.path).toBe('/mcpEndpoints/0/server');
    expect((error as McpHostingError).violations[0]?.message).toMatch(
      /^cannot start or reach the MCP server/,
    );
  });

  it('a plain server: declarations from the config, the semantic loss logged', async () => {
    const server = plainServer({ tools: [{ name: 'echo', inputSchema: { type: 'object' }, icons: [] }] });
    const lines: string[] = [];
    const [hosted] = await hostMcpEndpoints(
      [
        endpoint({
          jid: 'echo@agents.example',
          server: { kind: 'http', url: 'http://in-memory/' },
          agent: { version: '2' },
          tools: { '*': { supportsCancellation: true } },
        }),
      ],
      { ...OPTIONS, transport: server.transport, log: (line) => lines.push(line) },
    );
    try {
      expect(hosted?.manifest).toEqual({
        manifestSpecVersion: '0',
        agent: { jid: 'echo@agents.example', name: 'echo', version: '2' },
        implementation: { name: 'plain', version: '2.0' },
        mcpProtocolVersion: '2025-11-25',
        tools: [
          {
            name: 'echo',
            inputSchema: { type: 'object' },
            'urn:xmpp:agent-api:0': { supportsCancellation: true },
          },
        ],
      });
      expect(lines).toEqual([
        'mcp: echo@agents.example: tool "echo": icons dropped (no manifest member for it)',
        expect.stringMatching(
          /^mcp: echo@agents\.example: the server does not speak the agentconf task-bridge/,
        ),
      ]);
    } finally {
      await hosted?.runtime.close();
    }
  });
});

describe('manifestFromTools', () => {
  const facts = { serverInfo: { name: 'srv', version: '3' }, protocolVersion: '2025-06-18' };

  it('preserves the MCP members, takes the declarations from the config before the server, and refuses other dialects', () => {
    const listed: JsonObject[] = [
      {
        name: 'a',
        title: 'A',
        description: 'first',
        inputSchema: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true, unknownHint: 1 },
        execution: { taskSupport: 'forbidden' },
        _meta: { 'example.org/x': 1, [TASK_BRIDGE]: { declarations: { supportsProgress: true } } },
      },
      {
        name: 'b',
        inputSchema: { type: 'object' },
        _meta: { [TASK_BRIDGE]: { declarations: { tags: ['b'] } } },
      },
    ];
    const generated = manifestFromTools(
      endpoint({
        agent: { version: '1', title: 'T' },
        implementation: { name: 'impl', version: '9' },
        tools: { b: { tags: ['mine'] } },
      }),
      { ...facts, tools: listed },
    );
    expect(generated.problems).toEqual([]);
    // Everything but _meta is copied as it is (annotations with their unknown hint included).
    const { _meta: _dropped, ...shared } = listed[0] ?? {};
    expect(generated.manifest).toEqual({
      manifestSpecVersion: '0',
      agent: { jid: 'conformance@agents.example', name: 'conformance', title: 'T', version: '1' },
      implementation: { name: 'impl', version: '9' },
      mcpProtocolVersion: '2025-06-18',
      tools: [
        { ...shared, _meta: { 'example.org/x': 1 }, 'urn:xmpp:agent-api:0': { supportsProgress: true } },
        { name: 'b', inputSchema: { type: 'object' }, 'urn:xmpp:agent-api:0': { tags: ['mine'] } },
      ],
    });

    const draft7 = manifestFromTools(endpoint({ tools: { missing: {} } }), {
      ...facts,
      tools: [
        { name: 'old', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' } },
      ],
    });
    expect(draft7.manifest).toBeUndefined();
    expect(draft7.problems).toEqual([
      {
        path: '/mcpEndpoints/0/server',
        message: expect.stringContaining(
          'tool "old": inputSchema declares $schema "http://json-schema.org/draft-07/schema#"; this gateway hosts JSON Schema 2020-12 only',
        ) as string,
      },
      { path: '/mcpEndpoints/0/tools/missing', message: 'the MCP server lists no tool of this name' },
    ]);
  });
});

describe('withHostedEndpoints', () => {
  const hosted = {
    config: endpoint(),
    manifest: conformance,
    runtime: undefined as never,
    losses: [],
    bridge: true,
  };
  const world = (text: string): FixtureWorld => ({
    source: '/w.json',
    endpoints: [
      {
        path: '/endpoints/0',
        jid: 'conformance@agents.example',
        versions: [{ path: '/endpoints/0/versions/0', origin: 'inline', text }],
        active: '1.0.0',
        hidden: false,
        restrictedInvocation: false,
        runtime: 'conformance',
      },
    ],
    grants: [],
    endpointRuntimes: new Map([['conformance@agents.example', 'conformance']]),
  });

  it('a world endpoint keeps its versions and active version, and loses its runtime to the MCP server', () => {
    const merged = withHostedEndpoints(
      world(readFileSync(CONFORMANCE, 'utf8')),
      [hosted],
      '/etc/gateway.json',
    );
    expect(merged.endpoints[0]?.runtime).toBeUndefined();
    expect(merged.endpoints[0]?.active).toBe('1.0.0');
    expect(merged.endpointRuntimes.size).toBe(0);
  });

  it('a world whose listed version differs from the generated manifest fails the start', () => {
    const changed = { ...conformance, tools: [] };
    expect(() => withHostedEndpoints(world(JSON.stringify(changed)), [hosted], '/etc/gateway.json')).toThrow(
      /the manifest generated from tools\/list is not version 1\.0\.0/,
    );
  });

  it('without a world, the endpoint is registered from tools/list and activated', () => {
    const merged = withHostedEndpoints(undefined, [hosted], '/etc/gateway.json');
    expect(merged.source).toBe('/etc/gateway.json');
    expect(merged.endpoints).toEqual([
      {
        path: '/mcpEndpoints/0',
        jid: 'conformance@agents.example',
        versions: [
          { path: '/mcpEndpoints/0/server', origin: 'tools/list', text: canonicalJson(conformance) },
        ],
        active: '1.0.0',
        hidden: false,
        restrictedInvocation: false,
        runtime: undefined,
      },
    ]);
  });
});
