/** The config's mcpEndpoints: the documented example, and the rules the schema cannot express. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../protocol/json/config-file.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { parseGatewayConfig } from './gateway-config.ts';
import { docsExample, DOCS_DIR } from './test-support/docs-examples.ts';

const BASE: JsonObject = {
  component: { domain: 'agents.example', host: '127.0.0.1', port: 5347, secret: 's' },
  database: 'gateway.sqlite',
};

function parse(mcpEndpoints: JsonObject[]): ReturnType<typeof parseGatewayConfig> {
  return parseGatewayConfig(
    { ...BASE, mcpEndpoints },
    { source: '/etc/gw/gateway.json', baseDir: '/etc/gw' },
  );
}

function problems(mcpEndpoints: JsonObject[]): string[] {
  try {
    parse(mcpEndpoints);
  } catch (error) {
    if (error instanceof ConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return [];
}

describe('mcpEndpoints', () => {
  it('the documented example parses: a stdio command and a Streamable HTTP URL', () => {
    const config = parseGatewayConfig(docsExample('mcp-endpoints'), { source: 'docs', baseDir: DOCS_DIR });
    expect(config.mcpEndpoints.map((endpoint) => [endpoint.jid, endpoint.server.kind])).toEqual([
      ['conformance@agents.example', 'stdio'],
      ['weather@agents.example', 'http'],
    ]);
  });

  it('resolves cwd against the config file, keeps argv as written, applies the defaults', () => {
    const [endpoint] = parse([
      {
        jid: 'Tools@Agents.Example',
        server: { command: ['node', 'server.js', '--flag'], cwd: 'mcp', env: { TOKEN: 'x' } },
        agent: { version: '1' },
      },
    ]).mcpEndpoints;
    expect(endpoint).toEqual({
      path: '/mcpEndpoints/0',
      jid: 'tools@agents.example',
      server: {
        kind: 'stdio',
        command: 'node',
        args: ['server.js', '--flag'],
        cwd: '/etc/gw/mcp',
        env: { TOKEN: 'x' },
      },
      agent: { version: '1' },
      implementation: undefined,
      tools: {},
      active: true,
      startupMs: 30_000,
    });
  });

  it('refuses an endpoint off the component domain, the same endpoint twice, and a bad schema', () => {
    expect(
      problems([
        {
          jid: 'tools@elsewhere.example',
          server: { url: 'http://127.0.0.1:1/mcp' },
          agent: { version: '1' },
        },
        { jid: 'a@agents.example', server: { url: 'http://127.0.0.1:1/mcp' }, agent: { version: '1' } },
        { jid: 'A@agents.example', server: { url: 'http://127.0.0.1:1/mcp' }, agent: { version: '1' } },
      ]),
    ).toEqual([
      '/mcpEndpoints/0/jid: an endpoint of this gateway is name@agents.example',
      '/mcpEndpoints/2/jid: the same endpoint as /mcpEndpoints/1',
    ]);
    expect(
      problems([{ jid: 'a@agents.example', server: { command: [] }, agent: {} }]).length,
    ).toBeGreaterThan(0);
  });
});
