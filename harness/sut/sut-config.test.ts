import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { DEFAULT_JSON_LIMITS } from '../../protocol/json/json-limits.ts';
import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import { PROFILE_IDS, withImpliedProfiles } from '../../protocol/profiles.ts';
import { RATE_LIMITED_REQUESTS } from '../../protocol/rate-limits.ts';
import {
  DEFAULT_TIMEOUTS,
  loadSutConfig,
  parseSutConfig,
  parseSutFile,
  SutConfigError,
  type SutConfig,
  type SutFile,
} from './sut-config.ts';

const MINIMAL = {
  name: 'gw',
  component: { secret: 'generate' },
  launch: { command: ['gw', '--secret', '{componentSecret}'] },
  profiles: ['core-directory'],
  fixtures: 'manual',
};

const BRIDGE = {
  name: 'bridge',
  caller: { mcp: { command: ['node', 'bin/agentconf.js', 'mcp-bridge', '--config', '{config}'], cwd: '.' } },
};

function parseFile(value: unknown): SutFile {
  return parseSutFile(JSON.stringify(value), '/configs/bridge.json', { baseDir: REPO_ROOT });
}

function parse(value: unknown): SutConfig {
  return parseSutConfig(JSON.stringify(value), '/configs/gw.json', { baseDir: REPO_ROOT });
}

/** The violations, as "path: message" lines. */
function problems(value: unknown, read: (value: unknown) => unknown = parse): string[] {
  try {
    read(value);
  } catch (error) {
    if (error instanceof SutConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('SUT config', () => {
  it('accepts the committed configs', async () => {
    const reference = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/reference-gateway.json'));
    expect(reference).toMatchObject({
      name: 'agentconf reference gateway',
      component: { domain: 'agents.example', secret: 'generate' },
      adminJid: 'admin@server.example',
      fixtures: 'world-file',
    });
    expect(reference.launch).toMatchObject({
      command: ['node', 'bin/agentconf.js', 'gateway', '--config', '{dataDir}/gateway.json'],
      cwd: REPO_ROOT,
    });
    expect(reference.profiles).toContain('human-messaging');
    const external = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/external-gateway.example.json'));
    expect(external.launch).toBe('external');
    const echo = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/echo-component.json'));
    expect(echo.name).toBe('harness echo component');
  });

  it("documents the reference gateway's JSON limits as protocol/json enforces them, and the manifest size it configures", async () => {
    const reference = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/reference-gateway.json'));
    // The size limit is the one the SUT file configures the gateway with (a smaller one than the
    // default, so that a manifest just past it still fits through the XMPP server).
    const launched = reference.launch === 'external' ? undefined : reference.launch.files['gateway.json'];
    const configured = (launched as { limits?: { manifestMaxBytes?: number } } | undefined)?.limits
      ?.manifestMaxBytes;
    expect(configured).toBeLessThan(DEFAULT_JSON_LIMITS.maxBytes);
    const gateway = launched as {
      tasks?: { maxActiveTasksOf?: Record<string, number> };
      limits?: {
        rateLimits?: Record<string, { burst: number; perSecond: number }>;
        principalRateLimits?: Record<string, Record<string, { burst: number; perSecond: number }>>;
      };
    };
    // The task capacity is the prober account's; the rate limits are the prober's own and, for
    // every other sender, the general ones on the same operations, as configured.
    const prober = 'prober@server.example';
    const proberRates = gateway.limits?.principalRateLimits?.[prober] ?? {};
    expect(reference.limits).toEqual({
      jsonMaxBytes: configured,
      jsonMaxDepth: DEFAULT_JSON_LIMITS.maxDepth,
      jsonMaxStringLength: DEFAULT_JSON_LIMITS.maxStringLength,
      jsonMaxObjectMembers: DEFAULT_JSON_LIMITS.maxObjectMembers,
      jsonMaxArrayItems: DEFAULT_JSON_LIMITS.maxArrayElements,
      activeTasksPerCaller: gateway.tasks?.maxActiveTasksOf?.[prober],
      rateLimits: Object.fromEntries(
        Object.keys(proberRates).map((operation) => [operation, gateway.limits?.rateLimits?.[operation]]),
      ),
      principalRateLimits: { [prober]: proberRates },
    });
    expect(reference.limits.activeTasksPerCaller).toBeGreaterThan(0);
    const mcp = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/reference-gateway-mcp.json'));
    expect(mcp.limits).toEqual(reference.limits);
  });

  it('reads the documented task capacity and per-operation rate limits, and refuses malformed ones', () => {
    const limits = { activeTasksPerCaller: 5, rateLimits: { discovery: { perSecond: 2.5, burst: 10 } } };
    expect(parse({ ...MINIMAL, limits }).limits).toEqual(limits);
    expect(
      problems({
        ...MINIMAL,
        limits: {
          activeTasksPerCaller: 0,
          rateLimits: { discovery: { perSecond: 0, burst: 1.5 }, search: { burst: 3 }, chat: {} },
        },
      }),
    ).toEqual([
      '/limits/activeTasksPerCaller: must be at least 1',
      '/limits/rateLimits/chat: unknown member "chat"; allowed here: registration, discovery, search, metadata, invocation',
      '/limits/rateLimits/discovery/perSecond: must be greater than 0',
      '/limits/rateLimits/discovery/burst: must be an integer',
      '/limits/rateLimits/search/perSecond: "perSecond" is required',
    ]);
  });

  it('fills in defaults and resolves the working directory against the config', () => {
    const config = parse({ ...MINIMAL, launch: { ...MINIMAL.launch, cwd: 'fixtures' } });
    expect(config.component.domain).toBe('agents.example');
    expect(config.timeouts).toEqual(DEFAULT_TIMEOUTS);
    expect(config.limits).toEqual({});
    expect(config.launch).toEqual({
      command: ['gw', '--secret', '{componentSecret}'],
      env: {},
      cwd: resolve(REPO_ROOT, 'fixtures'),
      files: {},
    });
    const partial = parse({ ...MINIMAL, timeouts: { replySeconds: 2.5 } });
    expect(partial.timeouts).toEqual({ ...DEFAULT_TIMEOUTS, replySeconds: 2.5 });
  });

  it('reads the operator checklist items the file confirms (admin-iq), none by default, and refuses other IDs', () => {
    expect(parse(MINIMAL).fixturesConfirmed).toEqual([]);
    const confirmed = ['grants', 'hidden:vault@agents.example', 'runtime:conformance@agents.example'];
    expect(parse({ ...MINIMAL, fixturesConfirmed: confirmed }).fixturesConfirmed).toEqual(confirmed);
    expect(() => parse({ ...MINIMAL, fixturesConfirmed: ['grant'] })).toThrow(
      /\/fixturesConfirmed\/0: must match/,
    );
  });

  it('claims the profiles a claimed profile builds on (#conformance)', () => {
    const config = parse({ ...MINIMAL, profiles: ['interactive-tasks', 'jabber-search'] });
    expect(config.declaredProfiles).toEqual(['interactive-tasks', 'jabber-search']);
    expect(config.profiles).toEqual([
      'core-directory',
      'jabber-search',
      'tool-discovery',
      'task-execution',
      'interactive-tasks',
    ]);
    expect(withImpliedProfiles(['self-registration', 'human-messaging'])).toEqual([
      'self-registration',
      'human-messaging',
    ]);
  });

  it('has the profile list of the schema', () => {
    const schema = JSON.parse(
      readFileSync(resolve(REPO_ROOT, 'fixtures/schemas/sut-config.schema.json'), 'utf8'),
    ) as { $defs: { profile: { enum: string[] } } };
    expect(schema.$defs.profile.enum).toEqual([...PROFILE_IDS]);
  });

  it('names the rate-limited request classes of #security, as protocol/rate-limits.ts spells them', () => {
    const schema = JSON.parse(
      readFileSync(resolve(REPO_ROOT, 'fixtures/schemas/sut-config.schema.json'), 'utf8'),
    ) as { $defs: { rateLimits: { properties: object } } };
    expect(Object.keys(schema.$defs.rateLimits.properties)).toEqual([...RATE_LIMITED_REQUESTS]);
  });

  it('takes rate limits of one sender, keyed by the bare JID of an account', () => {
    const prober = { discovery: { perSecond: 20, burst: 10 } };
    const general = { discovery: { perSecond: 1000, burst: 10000 } };
    const config = parse({
      ...MINIMAL,
      limits: { rateLimits: general, principalRateLimits: { 'prober@server.example': prober } },
    });
    expect(config.limits.principalRateLimits).toEqual({ 'prober@server.example': prober });
    expect(
      problems({
        ...MINIMAL,
        limits: {
          principalRateLimits: {
            'server.example': prober,
            'a@b/c': prober,
            'empty@server.example': {},
            'typo@server.example': { discovry: { perSecond: 1, burst: 1 } },
          },
        },
      }),
    ).toEqual([
      '/limits/principalRateLimits/empty@server.example: must NOT have fewer than 1 properties',
      '/limits/principalRateLimits/typo@server.example/discovry: unknown member "discovry" (did you mean "discovery"?); allowed here: registration, discovery, search, metadata, invocation',
      '/limits/principalRateLimits/server.example: not a valid bare JID of an account (empty-localpart)',
      '/limits/principalRateLimits/a@b~1c: not a valid bare JID of an account (resource-present)',
    ]);
  });

  it('reports every schema violation at once, with its path', () => {
    expect(
      problems({
        name: '',
        homepage: 'ftp://gw.example',
        component: { domian: 'agents.example', secret: '' },
        launch: { command: [], env: { '1BAD': 'x', OK: 3 }, files: { '../escape': 'x' }, cwdd: '.' },
        profiles: ['core-dir', 'core-directory', 'core-directory'],
        fixtures: 'admin-iq',
        limits: { rsmPageMax: 0 },
        timeouts: { startupSeconds: -1 },
        extra: true,
      }),
    ).toEqual([
      '/adminJid: "adminJid" is required: fixtures \'admin-iq\' provisions as adminJid',
      '/extra: unknown member "extra"; allowed here: $schema, name, version, homepage, component, launch, external, profiles, adminJid, fixtures, fixturesConfirmed, conformanceTools, limits, caller, timeouts',
      '/name: must not be empty',
      '/homepage: must match ^https?://[^\\s]+$',
      '/component/domian: unknown member "domian" (did you mean "domain"?); allowed here: domain, port, secret',
      '/component/secret: must not be empty',
      '/launch/cwdd: unknown member "cwdd" (did you mean "cwd"?); allowed here: command, env, cwd, files',
      '/launch/command: must have at least 1 item(s)',
      '/launch/env/1BAD: the name "1BAD" must match ^[A-Za-z_][A-Za-z0-9_]*$',
      '/launch/env/OK: must be a string',
      '/launch/files/..~1escape: the name "../escape" must match ^[A-Za-z0-9_][A-Za-z0-9._-]*$',
      '/profiles/0: "core-dir" is not one of "core-directory", "jabber-search", "tool-discovery", "task-execution", "interactive-tasks", "self-registration", "admin-provisioning", "human-messaging"',
      '/profiles/2: repeats item 1',
      '/limits/rsmPageMax: must be at least 1',
      '/timeouts/startupSeconds: must be greater than 0',
    ]);
  });

  it('reads an MCP bridge file, which needs nothing of a gateway, as a caller only', () => {
    expect(parseFile(BRIDGE)).toEqual({
      kind: 'mcp-caller',
      config: {
        source: '/configs/bridge.json',
        name: 'bridge',
        caller: { kind: 'mcp', command: BRIDGE.caller.mcp.command, cwd: REPO_ROOT, env: {} },
        timeouts: DEFAULT_TIMEOUTS,
      },
    });
    const http = {
      mcp: { command: ['b', '--config', '{config}', '--http', '{port}'], url: 'http://127.0.0.1:{port}/mcp' },
    };
    expect(parseFile({ ...BRIDGE, caller: http })).toMatchObject({
      kind: 'mcp-caller',
      config: { caller: { kind: 'mcp', url: 'http://127.0.0.1:{port}/mcp' } },
    });
    // The gateway suites cannot take it.
    expect(problems(BRIDGE)).toEqual([expect.stringMatching(/^: describes an MCP caller and no gateway/)]);
  });

  it("reads a gateway's call-out tool beside the gateway, which it still needs", () => {
    const gateway = {
      ...MINIMAL,
      caller: { gatewayTool: { endpoint: 'caller@agents.example', tool: 'call.out' } },
    };
    expect(parse(gateway).caller).toEqual({
      kind: 'gateway-tool',
      endpoint: 'caller@agents.example',
      tool: 'call.out',
    });
    // The account the suite invokes it as: a bare JID, kept as written.
    const withAccount = {
      ...MINIMAL,
      caller: { gatewayTool: { ...gateway.caller.gatewayTool, account: 'calldriver@server.example' } },
    };
    expect(parse(withAccount).caller).toMatchObject({ account: 'calldriver@server.example' });
    expect(
      problems({
        ...MINIMAL,
        caller: { gatewayTool: { ...gateway.caller.gatewayTool, account: 'calldriver' } },
      }),
    ).toEqual([expect.stringMatching(/^\/caller\/gatewayTool\/account: /)]);
    expect(problems({ name: 'gw', caller: gateway.caller })).toEqual([
      '/component: "component" is required',
      '/launch: "launch" is required',
      '/profiles: "profiles" is required',
      '/fixtures: "fixtures" is required',
    ]);
  });

  it("checks a caller's command: {config} passed, only known placeholders, {port} only with a url", () => {
    expect(
      problems(
        { name: 'b', caller: { mcp: { command: ['b', '--port', '{port}', '{confg}'], cwd: 'nowhere' } } },
        parseFile,
      ),
    ).toEqual([
      '/caller/mcp/command/2: {port} is picked for Streamable HTTP: it needs "url"',
      '/caller/mcp/command/3: unknown placeholder {confg} (a caller command knows {config} and {port}; write {{confg} for a literal)',
      '/caller/mcp/command: the command must pass {config}, the caller config the suite writes (docs/caller.md)',
      `/caller/mcp/cwd: no such directory: ${resolve(REPO_ROOT, 'nowhere')}`,
    ]);
    expect(
      problems({ name: 'b', caller: { mcp: { command: ['b', '{config}'] }, gatewayTool: {} } }, parseFile),
    ).toEqual([
      '/caller: must hold one of "mcp" or "gatewayTool"',
      '/caller/gatewayTool/endpoint: "endpoint" is required',
      '/caller/gatewayTool/tool: "tool" is required',
    ]);
    expect(problems({ name: 'b', caller: {} }, parseFile)).toEqual([
      '/component: "component" is required',
      '/launch: "launch" is required',
      '/profiles: "profiles" is required',
      '/fixtures: "fixtures" is required',
      '/caller: must hold one of "mcp" or "gatewayTool"',
    ]);
  });

  it('says what launch may be', () => {
    expect(problems({ ...MINIMAL, launch: 'externally' })).toEqual([
      '/launch: must be "external" or an object with "command"',
    ]);
    expect(problems({ ...MINIMAL, launch: 5 })).toEqual([
      '/launch: must be "external" or an object with "command"',
    ]);
    expect(problems({ ...MINIMAL, launch: {} })).toEqual(['/launch/command: "command" is required']);
  });

  it("takes the operator's declarations about a gateway it does not start, and only for one", () => {
    const declared = parse({
      ...MINIMAL,
      launch: 'external',
      external: { locale: 'tr_TR.UTF-8', kill: ['systemctl', 'kill', '-s', 'KILL', 'gw'] },
    });
    expect(declared.external).toEqual({
      locale: 'tr_TR.UTF-8',
      kill: ['systemctl', 'kill', '-s', 'KILL', 'gw'],
    });
    expect(parse(MINIMAL).external).toEqual({});
    expect(problems({ ...MINIMAL, external: { locale: 'tr_TR.UTF-8' } })).toEqual([
      '/external: only a gateway the harness does not start ("launch": "external") is described by "external"',
    ]);
    expect(
      problems({ ...MINIMAL, launch: 'external', external: { freeze: ['kill', '-STOP', '1'], kill: [''] } }),
    ).toEqual([
      '/external/kill/0: must not be empty',
      '/external: must have property thaw when property freeze is present',
    ]);
  });

  it('takes storage-fault commands only as the whole set: on for sync, on for write, off', () => {
    const storageFault = {
      sync: ['fail-storage', 'sync'],
      write: ['fail-storage', 'write'],
      restore: ['fail-storage', 'off'],
    };
    expect(parse({ ...MINIMAL, launch: 'external', external: { storageFault } }).external).toEqual({
      storageFault,
    });
    expect(
      problems({ ...MINIMAL, launch: 'external', external: { storageFault: { sync: ['fail-storage'] } } }),
    ).toEqual([
      '/external/storageFault/write: "write" is required',
      '/external/storageFault/restore: "restore" is required',
    ]);
  });

  it('requires adminJid for the admin-provisioning profile', () => {
    expect(problems({ ...MINIMAL, profiles: ['admin-provisioning'] })).toEqual([
      '/adminJid: "adminJid" is required: the admin-provisioning profile is tested as adminJid',
    ]);
  });

  it('checks placeholders, fixture modes, JIDs and the working directory beyond the schema', () => {
    expect(
      problems({
        ...MINIMAL,
        component: { domain: 'agents..example', secret: 'generate' },
        launch: {
          command: ['', '--host', '{serverhost}', '--admin', '{adminJid}', '{{literal}', '{nonsense}'],
          files: { 'gw.json': { nested: ['{dataDir}', '{worldfile}'] } },
          cwd: 'no-such-directory',
        },
        fixtures: 'world-file',
      }),
    ).toEqual([
      '/launch/command/2: unknown placeholder {serverhost} (did you mean {serverHost}?; write {{serverhost} for a literal {serverhost})',
      '/launch/command/6: unknown placeholder {nonsense} (known: {serverHost}, {componentPort}, {componentDomain}, {componentSecret}, {worldFile}, {dataDir}, {caFile}, {adminJid}, {conformanceLedger}, {conformanceToolsUrl}; write {{nonsense} for a literal {nonsense})',
      '/launch/files/gw.json/nested/1: unknown placeholder {worldfile} (did you mean {worldFile}?; write {{worldfile} for a literal {worldfile})',
      '/launch/command/0: the program must not be empty',
      `/launch/cwd: no such directory: ${resolve(REPO_ROOT, 'no-such-directory')}`,
      '/component/secret: "generate" makes a new secret for every run, so the launch must pass {componentSecret}',
      '/adminJid: the launch uses {adminJid}, so "adminJid" is required',
      '/fixtures: "world-file" needs a launch command that passes {worldFile} to the gateway',
      '/component/domain: not a valid domain (domainpart-label)',
    ]);
    // An external gateway loads the run's world file itself (the connection file names it).
    expect(parse({ ...MINIMAL, launch: 'external', fixtures: 'world-file' }).fixtures).toBe('world-file');
    expect(
      problems({ ...MINIMAL, component: { port: 70000, secret: 's' }, limits: { requestsPerSecond: 0 } }),
    ).toEqual([
      '/component/port: must be at most 65535',
      '/limits/requestsPerSecond: must be greater than 0',
    ]);
    expect(problems({ ...MINIMAL, launch: { command: ['gw', '{componentSecret}', '{worldFile}'] } })).toEqual(
      [
        '/fixtures: the launch uses {worldFile}, which the harness writes only when "fixtures" is "world-file"',
      ],
    );
    expect(problems({ ...MINIMAL, adminJid: 'server.example' })).toEqual([
      '/adminJid: must match ^[^@/\\s]+@[^@/\\s]+$',
    ]);
  });

  it('reports JSON that is not JSON, or not I-JSON, with its line', () => {
    expect(() => parseSutConfig('{"name": "x",\n "name": 2}', 'dup.json')).toThrow(
      /dup\.json: 1 problem\(s\) in the SUT config\n {2}\/ \(line 2, column 2\): not JSON: duplicate member/,
    );
    expect(() => parseSutConfig('{', 'cut.json')).toThrow(/not JSON/);
  });

  it('names a file it cannot read', async () => {
    await expect(loadSutConfig('/nonexistent/sut.json')).rejects.toThrow(
      /\/nonexistent\/sut\.json: 1 problem\(s\) in the SUT config\n {2}\/: cannot read the file \(ENOENT\)/,
    );
  });
});
