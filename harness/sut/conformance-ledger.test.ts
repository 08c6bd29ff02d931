/**
 * `conformanceTools` in the SUT file (docs/sut.md): the rules between it and {conformanceLedger},
 * the MCP variant of the reference SUT, and the ledger read out of band from the file the
 * launch handed over.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-root.ts';
import { outOfBandLedger } from './conformance-ledger.ts';
import { expandLaunch } from './expand-launch.ts';
import { CONFORMANCE_LEDGER_FILE, type LaunchFacts } from './placeholders.ts';
import { SutConfigError, loadSutConfig, parseSutConfig } from './sut-config.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sut-ledger-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function config(members: Record<string, unknown>): string {
  return JSON.stringify({
    name: 'gw',
    component: { secret: 'fixed' },
    launch: { command: ['gw', '--ledger', '{conformanceLedger}'] },
    profiles: ['task-execution'],
    fixtures: 'admin-iq',
    adminJid: 'admin@server.example',
    ...members,
  });
}

function problems(text: string): string[] {
  try {
    parseSutConfig(text, join(dir, 'sut.json'));
  } catch (error) {
    if (error instanceof SutConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return [];
}

const FACTS: LaunchFacts = {
  serverHost: '127.0.0.1',
  componentPort: 5347,
  componentDomain: 'agents.example',
  componentSecret: 'fixed',
  worldFile: '/w.json',
  dataDir: '/run/data',
  caFile: '/ca.pem',
};

describe('conformanceTools', () => {
  it('"native" is the default; {"mcp": "stdio"} needs {conformanceLedger}, and only it may use it', () => {
    expect(parseSutConfig(config({ launch: { command: ['gw'] } }), 'sut.json').conformanceTools).toBe(
      'native',
    );
    expect(parseSutConfig(config({ conformanceTools: { mcp: 'stdio' } }), 'sut.json').conformanceTools).toBe(
      'mcp-stdio',
    );
    expect(problems(config({}))).toEqual([
      '/conformanceTools: the launch uses {conformanceLedger}, which only "conformanceTools": {"mcp": "stdio"} gives',
    ]);
    expect(problems(config({ conformanceTools: { mcp: 'stdio' }, launch: { command: ['gw'] } }))).toEqual([
      '/conformanceTools: {"mcp": "stdio"} needs a launch that passes {conformanceLedger} to agentconf conformance-tools (--ledger), where the harness reads the ledger',
    ]);
    expect(problems(config({ conformanceTools: { mcp: 'stdio' }, launch: 'external' }))).toEqual([
      '/conformanceTools: {"mcp": "stdio"} needs a launch command: the harness reads the ledger file it hands over',
    ]);
  });

  it('{"mcp": "http"}: served by the harness at {conformanceToolsUrl}, which a launched gateway must be handed and only this mode gives', () => {
    expect(
      parseSutConfig(config({ conformanceTools: { mcp: 'http' }, launch: 'external' }), 'sut.json')
        .conformanceTools,
    ).toBe('mcp-http');
    expect(
      parseSutConfig(
        config({
          conformanceTools: { mcp: 'http' },
          launch: { command: ['gw', '--tools', '{conformanceToolsUrl}'] },
        }),
        'sut.json',
      ).conformanceTools,
    ).toBe('mcp-http');
    expect(problems(config({ conformanceTools: { mcp: 'http' }, launch: { command: ['gw'] } }))).toEqual([
      '/conformanceTools: {"mcp": "http"} with a launch command needs the launch to pass {conformanceToolsUrl}, where the harness serves the tools',
    ]);
    expect(problems(config({ launch: { command: ['gw', '{conformanceToolsUrl}'] } }))).toEqual([
      '/conformanceTools: the launch uses {conformanceToolsUrl}, which only "conformanceTools": {"mcp": "http"} gives',
    ]);
  });

  it('fixtures/sut/reference-gateway-mcp.json hands the ledger file in {dataDir} to the MCP server', async () => {
    const sut = await loadSutConfig(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway-mcp.json'));
    expect(sut.conformanceTools).toBe('mcp-stdio');
    if (sut.launch === 'external') throw new Error('the reference SUT is launched');
    const gatewayJson = expandLaunch(sut.launch, { ...FACTS, adminJid: 'admin@server.example' }).files.find(
      (file) => file.name === 'gateway.json',
    );
    const written = JSON.parse(gatewayJson?.content ?? '{}') as {
      mcpEndpoints: { server: { command: string[] } }[];
    };
    expect(written.mcpEndpoints[0]?.server.command).toEqual([
      'node',
      'bin/agentconf.js',
      'conformance-tools',
      '--ledger',
      `/run/data/${CONFORMANCE_LEDGER_FILE}`,
    ]);
  });

  it('fixtures/sut/reference-gateway-mcp.json is the reference SUT file plus the MCP-hosted conformance endpoint', () => {
    const read = (name: string): Record<string, unknown> =>
      JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures', 'sut', name), 'utf8')) as Record<string, unknown>;
    const mcp = read('reference-gateway-mcp.json');
    const reference = read('reference-gateway.json');
    const manifest = JSON.parse(
      readFileSync(join(REPO_ROOT, 'fixtures', 'manifests', 'conformance.json'), 'utf8'),
    ) as { agent: Record<string, unknown> };
    const { jid: _jid, ...agent } = manifest.agent;
    const launch = reference['launch'] as { files: { 'gateway.json': Record<string, unknown> } };
    // When this fails, make the same change to the MCP variant.
    expect(mcp).toEqual({
      ...reference,
      name: 'agentconf reference gateway, conformance tools over MCP',
      launch: {
        ...launch,
        files: {
          ...launch.files,
          'gateway.json': {
            ...launch.files['gateway.json'],
            mcpEndpoints: [
              {
                jid: 'conformance@agents.example',
                server: {
                  command: [
                    'node',
                    'bin/agentconf.js',
                    'conformance-tools',
                    '--ledger',
                    '{conformanceLedger}',
                  ],
                },
                agent,
              },
            ],
          },
        },
      },
      conformanceTools: { mcp: 'stdio' },
    });
  });

  it('the ledger is read from that file, never through the gateway; a native SUT has no such reader', () => {
    writeFileSync(
      join(dir, CONFORMANCE_LEDGER_FILE),
      `${JSON.stringify({ key: 'a' })}\n${JSON.stringify({ key: 'a' })}\n${JSON.stringify({ key: 'b' })}\n{"key":`,
    );
    const read = outOfBandLedger({ conformanceTools: 'mcp-stdio' }, { dataDir: dir });
    expect([read?.('a'), read?.('b'), read?.('c')]).toEqual([2, 1, 0]);
    expect(outOfBandLedger({ conformanceTools: 'native' }, { dataDir: dir })).toBeUndefined();
  });
});
