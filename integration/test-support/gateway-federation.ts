/**
 * One native federation and one in-process reference gateway per integration test file, as
 * reference-gateway/component/gateway-component.test.ts starts them: Prosody serving
 * server.example (local callers) with the gateway as the XEP-0114 component agents.example,
 * and example.com (remote callers) federated over s2s. The gateway config is written to a
 * temporary directory from the defaults below and the members a file passes.
 *
 * With `runtime`, the gateway starts as `agentconf gateway` starts it (startGatewayRuntime), for
 * the tests of that deployment path (health listener, keepalive and reconnect from the config).
 *
 * `useGatewayFederation(options)` registers the hooks a test file needs: start in beforeAll,
 * a transcript per test (printed when the test fails), the schema audit of every reply payload
 * (payload-conformance.ts: collected after each test, validated in one batch in afterAll, where
 * a failure names the test that received the payload), and teardown in afterAll.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createDriver, type Caller, type Driver } from '../../harness/driver/index.ts';
import { transcriptPerTest } from '../../harness/driver/test-support/vitest-transcripts.ts';
import { nativeProvider } from '../../harness/federation/native-provider.ts';
import type { AccountRequest, Federation } from '../../harness/federation/server-provider.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { GatewayComponent } from '../../reference-gateway/component/gateway-component.ts';
import {
  startGatewayRuntime,
  type GatewayRuntime,
} from '../../reference-gateway/component/gateway-runtime.ts';
import { loadGatewayConfig, type GatewayConfig } from '../../reference-gateway/config/gateway-config.ts';
import { openGatewayState, type GatewayState } from '../../reference-gateway/config/gateway-state.ts';
import { REFERENCE_WORLD } from '../../reference-gateway/registration/test-support/manifests.ts';
import { POLICY_FIXTURE_JIDS } from './fixtures.ts';
import { PayloadConformance } from './payload-conformance.ts';

export const GATEWAY = 'agents.example';
/** The administrator of the default config: a local account. */
export const BOB = 'bob@server.example';
/** A remote caller with principal grants in the reference world. */
export const ALICE = 'alice@example.com';
/** A remote caller without principal grants (the reference world's example.com domain grant still applies). */
export const CAROL = 'carol@example.com';

/** Timers of the real clock, without reconnect jitter: tests restart the gateway on purpose. */
const INSTANT = {
  setTimeout,
  clearTimeout: (handle: unknown) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
  random: () => 0,
};

export interface GatewayFederationOptions {
  /**
   * Gateway config members over the defaults (the reference world as below, localDomains server.example,
   * admin bob@server.example); component and database are always the harness's.
   */
  readonly config?: JsonObject;
  /** Bare JIDs of accounts to create besides alice@example.com and bob@server.example. */
  readonly accounts?: readonly string[];
  /** Bare JIDs connected (resource "test") before the first test; others connect on first use. */
  readonly connect?: readonly string[];
  /**
   * A variant of the world: receives the reference world as these tests load it (below) and
   * returns the world to load instead.
   */
  readonly world?: (reference: JsonObject) => JsonObject;
  /**
   * Start the gateway through startGatewayRuntime, with the config's health, keepalive and
   * reconnect members in force, instead of the bare component on the harness's fast reconnect
   * timing (the default, which tests that restart the gateway on purpose want).
   */
  readonly runtime?: boolean;
}

/**
 * fixtures/worlds/reference.json restricted to its policy fixtures (POLICY_FIXTURE_JIDS), with
 * each manifest path made absolute so the copy can live in the run's directory. The tests write
 * their expectations out per endpoint; endpoints the world gains for other suites (a runtime
 * fixture, say) would change every directory page and count here without being about
 * discovery, so they are left out. Grants are kept whole: a grant naming an endpoint that is
 * not registered grants nothing.
 */
function referenceWorldDocument(): JsonObject {
  const world = parseStrictJson(readFileSync(REFERENCE_WORLD));
  if (!isJsonObject(world) || !Array.isArray(world['endpoints']))
    throw new Error('unexpected reference world');
  const endpoints = world['endpoints']
    .filter(isJsonObject)
    .filter((endpoint) => POLICY_FIXTURE_JIDS.some((jid) => jid === endpoint['jid']))
    .map((endpoint) => {
      const versions = Array.isArray(endpoint['versions']) ? endpoint['versions'].filter(isJsonObject) : [];
      return {
        ...endpoint,
        versions: versions.map((version) => {
          const file = version['file'];
          return typeof file === 'string' ? { file: resolve(dirname(REFERENCE_WORLD), file) } : version;
        }),
      };
    });
  if (endpoints.length !== POLICY_FIXTURE_JIDS.length) {
    throw new Error(
      `the reference world no longer holds every policy fixture (${POLICY_FIXTURE_JIDS.join(', ')})`,
    );
  }
  const { $schema: _schema, ...rest } = world;
  return { ...rest, endpoints };
}

function accountRequest(bareJid: string): AccountRequest {
  const at = bareJid.indexOf('@');
  return { username: bareJid.slice(0, at), domain: bareJid.slice(at + 1) };
}

export class GatewayFederation {
  readonly federation: Federation;
  readonly driver: Driver;
  /** The temporary directory holding the config and the database. */
  readonly dir: string;
  readonly conformance = new PayloadConformance();
  /** What the gateway logged, for a failing test to show. */
  readonly log: string[] = [];
  readonly #callers = new Map<string, Caller>();
  #state: GatewayState | undefined;
  #gateway: GatewayComponent | undefined;
  #runtime: GatewayRuntime | undefined;
  readonly #asRuntime: boolean;

  /** The config file as written, so a restart can change members of it. */
  readonly #configPath: string;
  #configDocument: JsonObject;
  #config: GatewayConfig;

  private constructor(
    federation: Federation,
    configPath: string,
    configDocument: JsonObject,
    dir: string,
    asRuntime: boolean,
  ) {
    this.federation = federation;
    this.#asRuntime = asRuntime;
    this.#configPath = configPath;
    this.#configDocument = configDocument;
    this.#config = loadGatewayConfig(configPath);
    this.dir = dir;
    this.driver = createDriver(federation, { timeoutMs: 5000 });
  }

  static async start(options: GatewayFederationOptions = {}): Promise<GatewayFederation> {
    const accounts = [BOB, ALICE, ...(options.accounts ?? [])];
    const federation = await nativeProvider.start({ accounts: accounts.map(accountRequest) });
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-integration-'));
    try {
      const { host, port, domain, secret } = federation.component;
      const path = join(dir, 'gateway.json');
      const world = join(dir, 'world.json');
      const reference = referenceWorldDocument();
      writeFileSync(
        world,
        JSON.stringify(options.world === undefined ? reference : options.world(reference)),
      );
      const config: JsonObject = {
        world,
        localDomains: ['server.example'],
        admins: [BOB],
        ...options.config,
        component: { domain, host, port, secret },
        database: 'gateway.sqlite',
      };
      writeFileSync(path, JSON.stringify(config));
      const running = new GatewayFederation(federation, path, config, dir, options.runtime ?? false);
      await running.startGateway();
      for (const jid of options.connect ?? []) await running.caller(jid);
      return running;
    } catch (error) {
      await federation.stop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The config in force (as loaded from the file). */
  get config(): GatewayConfig {
    return this.#config;
  }

  get gateway(): GatewayComponent {
    if (this.#gateway === undefined) throw new Error('the gateway is not running');
    return this.#gateway;
  }

  get state(): GatewayState {
    if (this.#state === undefined) throw new Error('the gateway state is closed');
    return this.#state;
  }

  /** The running gateway as startGatewayRuntime returned it; only with the `runtime` option. */
  get runtime(): GatewayRuntime {
    if (this.#runtime === undefined) throw new Error('the gateway is not running as a runtime');
    return this.#runtime;
  }

  /** The connected caller for `bareJid` and `resource`, logged in on first use. */
  async caller(bareJid: string, resource = 'test'): Promise<Caller> {
    const key = `${bareJid}/${resource}`;
    const existing = this.#callers.get(key);
    if (existing?.status === 'online') return existing;
    const caller = await this.driver.connect(bareJid, resource);
    this.#callers.set(key, caller);
    return caller;
  }

  /** Opens the state from the config's database (migrations, world) and connects the component. */
  async startGateway(): Promise<void> {
    if (this.#asRuntime) {
      this.#runtime = await startGatewayRuntime(this.config, { log: (line) => this.log.push(line) });
      this.#state = this.#runtime.state;
      this.#gateway = this.#runtime.gateway;
      return;
    }
    this.#state = await openGatewayState(this.config, Date.now);
    this.#gateway = await GatewayComponent.start(this.#state, {
      backoff: { initialMs: 20, maxMs: 200 },
      timing: INSTANT,
      log: (line) => this.log.push(line),
    });
  }

  /** Closes the component stream and the database. */
  async stopGateway(): Promise<void> {
    if (this.#runtime !== undefined) {
      // Idempotent, so a test may have stopped it already (the runtime closes the state itself).
      await this.#runtime.stop();
      this.#runtime = undefined;
      this.#gateway = undefined;
      this.#state = undefined;
      return;
    }
    await this.#gateway?.stop();
    this.#gateway = undefined;
    this.#state?.close();
    this.#state = undefined;
  }

  /**
   * A new process's view: everything the gateway knows comes back from the database file. With
   * `members`, the config file is rewritten with them first (the database stays the same).
   */
  async restartGateway(members?: JsonObject): Promise<void> {
    await this.stopGateway();
    if (members !== undefined) {
      this.#configDocument = { ...this.#configDocument, ...members };
      writeFileSync(this.#configPath, JSON.stringify(this.#configDocument));
      this.#config = loadGatewayConfig(this.#configPath);
    }
    await this.startGateway();
  }

  async stop(): Promise<void> {
    try {
      await this.driver.closeAll();
      await this.stopGateway();
    } finally {
      await this.federation.stop();
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * Registers one federation and gateway for the enclosing test file (or describe block) and
 * returns its accessor, valid from the first test on.
 */
export function useGatewayFederation(options: GatewayFederationOptions = {}): () => GatewayFederation {
  let running: GatewayFederation | undefined;
  const current = (): GatewayFederation => {
    if (running === undefined) throw new Error('the gateway federation did not start');
    return running;
  };
  beforeAll(async () => {
    running = await GatewayFederation.start(options);
  }, 120_000);
  afterAll(async () => {
    try {
      await running?.conformance.verify();
    } finally {
      await running?.stop();
    }
  });
  transcriptPerTest(() => current().driver);
  afterEach((context) => {
    running?.conformance.collect(running.driver.callers, GATEWAY, context.task.name);
  });
  return current;
}
