import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import { ConfigError } from '../../protocol/json/config-file.ts';
import {
  loadGatewayConfig,
  parseGatewayConfig,
  type ConfigEnvironment,
  type GatewayConfig,
} from './gateway-config.ts';
import { DEFAULT_TASK_LIMITS } from '../tasks/task-limits.ts';
import { DEFAULT_LIMITS, RATE_LIMITED_OPERATIONS } from './limits.ts';
import { taskEngineSettingsOf } from './task-settings.ts';
import { docsExample, DOCS_DIR } from './test-support/docs-examples.ts';

const ENVIRONMENT: ConfigEnvironment = {
  env: { AGENTCONF_COMPONENT_SECRET: 's3cret-from-env' },
  readTextFile: (path) => {
    if (path === '/etc/agentconf/secret') return 's3cret-from-file\n';
    throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  },
};

function minimal(extra: JsonObject = {}): JsonObject {
  return {
    component: { domain: 'agents.example', host: '127.0.0.1', port: 5347, secret: 'inline-secret' },
    database: 'gateway.sqlite',
    ...extra,
  };
}

function parse(value: JsonValue): GatewayConfig {
  return parseGatewayConfig(value, { source: 'test.json', baseDir: '/srv/gw', environment: ENVIRONMENT });
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

describe('a minimal config', () => {
  it('gets the documented defaults and absolute paths', () => {
    const config = parse(minimal());
    expect(config).toMatchObject({
      name: 'agentconf reference gateway',
      component: { domain: 'agents.example', host: '127.0.0.1', port: 5347 },
      database: '/srv/gw/gateway.sqlite',
      world: undefined,
      localDomains: [],
      admins: [],
      selfRegistration: true,
      policy: { local: { see: false, invoke: false }, grants: [], endpoints: [] },
      limits: DEFAULT_LIMITS,
      health: undefined,
      keepalive: { idleMs: 60_000, timeoutMs: 10_000, pingTo: 'agents.example' },
      reconnect: { initialMs: 500, maxMs: 30_000, attemptTimeoutMs: 10_000 },
      endpointInfo: { requestReplaySeconds: 86400, coldStartSupported: false },
      tasks: {
        retentionSeconds: DEFAULT_TASK_LIMITS.retentionSeconds,
        maxTaskDurationSeconds: DEFAULT_TASK_LIMITS.maxTaskDurationSeconds,
        purgeIntervalMs: 300_000,
        maxActiveTasksPerCaller: DEFAULT_TASK_LIMITS.maxActiveTasksPerCaller,
        maxActiveTasksOf: {},
      },
    });
    expect(config.component.secret.reveal()).toBe('inline-secret');
  });

  it('never prints the secret', () => {
    const config = parse(minimal());
    expect(JSON.stringify(config)).not.toContain('inline-secret');
    expect(inspect(config, { depth: 10 })).not.toContain('inline-secret');
    expect(String(config.component.secret)).toBe('[redacted]');
  });

  it('accepts the port as a string of digits, as launch templates produce', () => {
    const config = parse(
      minimal({ component: { domain: 'agents.example', host: 'h', port: '5347', secret: 'x' } }),
    );
    expect(config.component.port).toBe(5347);
    expect(
      problems(minimal({ component: { domain: 'agents.example', host: 'h', port: '99999', secret: 'x' } })),
    ).toEqual(['/component/port: must be a port number from 1 to 65535']);
  });
});

describe('the component secret', () => {
  const component = { domain: 'agents.example', host: 'h', port: 1 };

  it('comes from a file (without its trailing line break) or an environment variable', () => {
    expect(
      parse(
        minimal({ component: { ...component, secretFile: '/etc/agentconf/secret' } }),
      ).component.secret.reveal(),
    ).toBe('s3cret-from-file');
    expect(
      parse(
        minimal({ component: { ...component, secretEnv: 'AGENTCONF_COMPONENT_SECRET' } }),
      ).component.secret.reveal(),
    ).toBe('s3cret-from-env');
  });

  it('must be given exactly once, and must resolve', () => {
    expect(problems(minimal({ component }))).toEqual([
      '/component: give exactly one of "secret", "secretFile" or "secretEnv"',
    ]);
    expect(problems(minimal({ component: { ...component, secret: 'a', secretEnv: 'B' } }))).toEqual([
      '/component: give exactly one of "secret", "secretFile" or "secretEnv"',
    ]);
    expect(problems(minimal({ component: { ...component, secretEnv: 'UNSET_VARIABLE' } }))).toEqual([
      '/component/secretEnv: the environment variable UNSET_VARIABLE is not set or empty',
    ]);
    expect(problems(minimal({ component: { ...component, secretFile: 'missing' } }))).toEqual([
      '/component/secretFile: cannot read /srv/gw/missing (ENOENT)',
    ]);
  });
});

describe('readable problems', () => {
  it('lists every problem at once, each at its pointer', () => {
    expect(
      problems({
        component: { domain: 'agents.example', host: 'h', port: 0, secret: 'x', sekret: 'y' },
        localDomains: ['server.example', 'server.example'],
        limits: { rsmPageMax: 0, toolsPerManifest: 5000 },
      }),
    ).toEqual([
      '/database: "database" is required',
      '/component/sekret: unknown member "sekret" (did you mean "secret"?); allowed here: domain, host, port, secret, secretFile, secretEnv',
      '/component/port: must be at least 1',
      '/localDomains/1: repeats item 0',
      '/limits/toolsPerManifest: must be at most 4096',
      '/limits/rsmPageMax: must be at least 1',
    ]);
  });

  it('checks JIDs and domains beyond the schema', () => {
    expect(
      problems(
        minimal({
          localDomains: ['server.example', 'agents.example'],
          admins: ['admin@-bad-.example'],
          policy: { grants: [{ principal: 'alice@example.com', see: ['weather@agents..example'] }] },
        }),
      ),
    ).toEqual([
      '/localDomains/1: the component domain hosts virtual endpoints, not C2S accounts; it cannot be a local domain',
      '/admins/0: not a bare JID (domainpart-label)',
      '/policy/grants/0/see/0: not a bare JID (domainpart-label)',
    ]);
  });

  it('explains grants that name no or two subjects, or give nothing', () => {
    expect(
      problems(
        minimal({
          policy: {
            grants: [
              { see: ['*'] },
              { domain: 'example.com', principal: 'alice@example.com', see: ['*'] },
              { domain: 'example.com' },
              { domain: 'example.com', invoke: [{ endpoint: 'weather@agents.example' }] },
            ],
          },
        }),
      ),
    ).toEqual([
      '/policy/grants/0: a grant names exactly one of "domain" or "principal"',
      '/policy/grants/1: a grant names exactly one of "domain" or "principal"',
      '/policy/grants/2: a grant gives "see", "invoke" or both',
      '/policy/grants/3/invoke/0/tools: "tools" is required',
    ]);
  });
});

describe('policy and limits', () => {
  it('meters every operation the schema lets a config name, with a default bucket for each', () => {
    const schema = JSON.parse(
      readFileSync(resolve(REPO_ROOT, 'fixtures/schemas/gateway-config.schema.json'), 'utf8'),
    ) as {
      $defs: {
        limits: {
          properties: {
            rateLimits: { properties: object };
            principalRateLimits: { additionalProperties: { properties: object } };
          };
        };
      };
    };
    const { rateLimits, principalRateLimits } = schema.$defs.limits.properties;
    const operations = [...RATE_LIMITED_OPERATIONS].sort();
    expect(Object.keys(rateLimits.properties).sort()).toEqual(operations);
    expect(Object.keys(principalRateLimits.additionalProperties.properties).sort()).toEqual(operations);
    expect(Object.keys(DEFAULT_LIMITS.rateLimits).sort()).toEqual(operations);
  });

  it('normalizes grants into records: "*" is every endpoint, tool grants are per tool', () => {
    const config = parse(
      minimal({
        localDomains: ['Server.Example'],
        admins: ['Admin@Server.Example'],
        policy: {
          local: { see: true },
          grants: [
            { domain: 'Example.COM', see: ['*'], invoke: ['Weather@Agents.Example'] },
            {
              principal: 'alice@example.com',
              invoke: [{ endpoint: 'calendar@agents.example', tools: ['events.list', 'event.create'] }],
            },
          ],
          endpoints: [{ jid: 'Vault@agents.example', hidden: true }],
        },
      }),
    );
    expect(config.localDomains).toEqual(['server.example']);
    expect(config.admins).toEqual(['admin@server.example']);
    expect(config.policy).toEqual({
      local: { see: true, invoke: false },
      grants: [
        { subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: null, tool: null },
        {
          subjectKind: 'domain',
          subject: 'example.com',
          action: 'invoke',
          endpoint: 'weather@agents.example',
          tool: null,
        },
        {
          subjectKind: 'principal',
          subject: 'alice@example.com',
          action: 'invoke',
          endpoint: 'calendar@agents.example',
          tool: 'events.list',
        },
        {
          subjectKind: 'principal',
          subject: 'alice@example.com',
          action: 'invoke',
          endpoint: 'calendar@agents.example',
          tool: 'event.create',
        },
      ],
      endpoints: [{ endpoint: 'vault@agents.example', hidden: true, restrictedInvocation: false }],
    });
  });

  it('merges limit overrides, rate limits per operation, onto the defaults', () => {
    const config = parse(
      minimal({ limits: { rsmPageMax: 20, rateLimits: { search: { burst: 5, perSecond: 0.5 } } } }),
    );
    expect(config.limits).toEqual({
      ...DEFAULT_LIMITS,
      rsmPageMax: 20,
      rateLimits: { ...DEFAULT_LIMITS.rateLimits, search: { burst: 5, perSecond: 0.5 } },
    });
  });
});

describe('health, keepalive and reconnect', () => {
  it('accepts health port 0 (any free port); the component port stays 1 to 65535', () => {
    expect(parse(minimal({ health: { port: 0 } })).health).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parse(minimal({ health: { host: '::1', port: '8080' } })).health).toEqual({
      host: '::1',
      port: 8080,
    });
    expect(problems(minimal({ health: { port: 65_536 } }))).toEqual(['/health/port: must be at most 65535']);
    expect(problems(minimal({ health: { port: '99999' } }))).toEqual([
      '/health/port: must be a port number from 0 to 65535',
    ]);
  });

  it('pings the first local domain by default, or the pingTo given, in milliseconds', () => {
    const local = parse(minimal({ localDomains: ['Server.Example', 'other.example'] }));
    expect(local.keepalive.pingTo).toBe('server.example');
    const tuned = parse(
      minimal({ keepalive: { idleSeconds: 0.25, timeoutSeconds: 2, pingTo: 'Hub.Example' } }),
    );
    expect(tuned.keepalive).toEqual({ idleMs: 250, timeoutMs: 2000, pingTo: 'hub.example' });
    expect(problems(minimal({ keepalive: { idleSeconds: 0, pingTo: 'a@b' } }))).toEqual([
      '/keepalive/idleSeconds: must be greater than 0',
      '/keepalive/pingTo: must match ^[^@/\\s]+$',
    ]);
  });

  it('takes reconnect delays in seconds and refuses a ceiling below the first delay', () => {
    expect(
      parse(
        minimal({ reconnect: { initialDelaySeconds: 0.05, maxDelaySeconds: 2, attemptTimeoutSeconds: 1.5 } }),
      ).reconnect,
    ).toEqual({ initialMs: 50, maxMs: 2000, attemptTimeoutMs: 1500 });
    expect(problems(minimal({ reconnect: { initialDelaySeconds: 5, maxDelaySeconds: 1 } }))).toEqual([
      '/reconnect/maxDelaySeconds: must not be smaller than initialDelaySeconds',
    ]);
  });
});

describe('tasks', () => {
  it('takes retention, task duration and the purge period, and hands them to the engine', () => {
    const config = parse(
      minimal({
        tasks: {
          retentionSeconds: 2,
          maxTaskDurationSeconds: 1,
          purgeIntervalSeconds: 0.25,
          maxActiveTasksPerCaller: 40,
          maxActiveTasksOf: { 'prober@server.example': 5 },
        },
        limits: { manifestMaxBytes: 196_608, jsonMaxDepth: 48, jsonMaxArrayItems: 1000 },
      }),
    );
    expect(config.tasks).toEqual({
      retentionSeconds: 2,
      maxTaskDurationSeconds: 1,
      purgeIntervalMs: 250,
      maxActiveTasksPerCaller: 40,
      maxActiveTasksOf: { 'prober@server.example': 5 },
    });
    expect(taskEngineSettingsOf(config.tasks, config.limits)).toEqual({
      limits: {
        // One documented set of JSON limits: what a caller sends meets the manifests' limits.
        json: {
          maxBytes: 196_608,
          maxDepth: 48,
          maxStringLength: 65_536,
          maxObjectMembers: 16_384,
          maxArrayElements: 1000,
          maxValues: 262_144,
        },
        retentionSeconds: 2,
        maxTaskDurationSeconds: 1,
        maxActiveTasksPerCaller: 40,
        maxActiveTasksOf: { 'prober@server.example': 5 },
      },
      purgeIntervalMs: 250,
    });
  });

  it('keeps the engine defaults for what the file leaves out', () => {
    expect(parse(minimal({ tasks: { retentionSeconds: 60 } })).tasks).toEqual({
      retentionSeconds: 60,
      maxTaskDurationSeconds: 3600,
      purgeIntervalMs: 300_000,
      maxActiveTasksPerCaller: 100,
      maxActiveTasksOf: {},
    });
  });

  it('refuses each bad value at its pointer, all at once', () => {
    expect(
      problems(
        minimal({ tasks: { retentionSeconds: 0, maxTaskDurationSeconds: 1.5, purgeIntervalSeconds: -1 } }),
      ),
    ).toEqual([
      '/tasks/retentionSeconds: must be greater than 0',
      '/tasks/maxTaskDurationSeconds: must be an integer',
      '/tasks/purgeIntervalSeconds: must be greater than 0',
    ]);
    expect(
      problems(minimal({ tasks: { retentionSeconds: 315_360_001, purgeIntervalSeconds: 86_401 } })),
    ).toEqual([
      '/tasks/retentionSeconds: must be at most 315360000',
      '/tasks/purgeIntervalSeconds: must be at most 86400',
    ]);
    expect(problems(minimal({ tasks: { retention: 60 } }))).toEqual([
      '/tasks/retention: unknown member "retention"; allowed here: retentionSeconds, maxTaskDurationSeconds, purgeIntervalSeconds, maxActiveTasksPerCaller, maxActiveTasksOf',
    ]);
    expect(problems(minimal({ tasks: { retentionSeconds: '60' } }))).toEqual([
      '/tasks/retentionSeconds: must be a number',
    ]);
  });
});

describe('files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentconf-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads a file and resolves paths against its directory', () => {
    const path = join(dir, 'gateway.json');
    writeFileSync(path, JSON.stringify(minimal({ world: 'world.json' })));
    const config = loadGatewayConfig(path);
    expect(config.source).toBe(path);
    expect(config.database).toBe(join(dir, 'gateway.sqlite'));
    expect(config.world).toBe(join(dir, 'world.json'));
  });

  it('reports duplicate members and syntax errors with line and column', () => {
    const path = join(dir, 'gateway.json');
    writeFileSync(path, '{\n  "database": "a",\n  "database": "b"\n}');
    expect(() => loadGatewayConfig(path)).toThrow(
      /\/ \(line 3, column \d+\): not acceptable JSON \(duplicate-member\)/,
    );
    expect(() => loadGatewayConfig(join(dir, 'missing.json'))).toThrow(/cannot read the file \(ENOENT\)/);
  });

  it('accepts the example of docs/gateway-config.md', () => {
    const config = parseGatewayConfig(docsExample('gateway-config'), {
      source: 'docs example',
      baseDir: DOCS_DIR,
      environment: ENVIRONMENT,
    });
    expect(config.world).toBe(resolve(REPO_ROOT, 'fixtures', 'worlds', 'reference.json'));
    expect(config.health).toEqual({ host: '127.0.0.1', port: 8080 });
  });
});

describe('callOut', () => {
  it('is off unless declared; declared, its endpoint is normalized and its waits are in milliseconds', () => {
    expect(parse(minimal()).callOut).toBeUndefined();
    expect(parse(minimal({ callOut: { endpoint: 'Caller@agents.example' } })).callOut).toEqual({
      endpoint: 'caller@agents.example',
      iqTimeoutMs: 10_000,
      pollMs: 5000,
    });
    expect(
      parse(
        minimal({ callOut: { endpoint: 'caller@agents.example', iqTimeoutSeconds: 3, pollSeconds: 0.5 } }),
      ).callOut,
    ).toEqual({ endpoint: 'caller@agents.example', iqTimeoutMs: 3000, pollMs: 500 });
  });

  it('refuses an endpoint off the component domain and unknown members, at their pointers', () => {
    expect(problems(minimal({ callOut: { endpoint: 'caller@example.com' } }))).toEqual([
      '/callOut/endpoint: an endpoint of this gateway is name@agents.example',
    ]);
    expect(problems(minimal({ callOut: { endpoint: 'caller@agents.example', target: 'x' } }))).toEqual([
      '/callOut/target: unknown member "target"; allowed here: endpoint, iqTimeoutSeconds, pollSeconds',
    ]);
  });
});

describe('runtimes', () => {
  it('maps endpoints provisioned over the protocol to a runtime, JIDs normalized', () => {
    const config = parse(minimal({ runtimes: { 'Weather@agents.example': 'conformance' } }));
    expect([...config.runtimes]).toEqual([['weather@agents.example', 'conformance']]);
    expect(parse(minimal()).runtimes.size).toBe(0);
  });

  it('refuses an endpoint that is not on the component domain, at its pointer', () => {
    expect(
      problems(minimal({ runtimes: { 'weather@example.com': 'conformance', 'a/b@agents.example': 'x' } })),
    ).toEqual([
      '/runtimes/weather@example.com: an endpoint of this gateway is name@agents.example',
      expect.stringMatching(/^\/runtimes\/a~1b@agents\.example: /),
    ]);
  });
});
