/**
 * Everything the gateway starts with, before any XMPP: the database opened, the config's
 * policy and the fixture world loaded into it, the access policy compiled, and the services
 * the responders and the registration handlers use. The XMPP wiring takes it from here.
 *
 * Start order: open the store (migrations) → replace the config's grants → load the world
 * (idempotent; any problem aborts the start with every problem listed) → compile the policy
 * from the store's grants and the config's local defaults → resolve which tool runtime executes
 * each world endpoint (#model-boundary: the gateway, not the runtime, knows that map; a runtime
 * name this gateway lacks aborts the start as a world problem).
 */
import { StoreCatalog } from '../catalog/store-catalog.ts';
import { compileAccessPolicy, type AccessPolicy } from '../policy/access-policy.ts';
import { RateLimiter } from '../policy/rate-limiter.ts';
import { Provisioning } from '../registration/provisioning.ts';
import type { IntakeCache } from '../registration/intake-cache.ts';
import { intakeManifest } from '../registration/manifest-intake.ts';
import { Registry } from '../registration/registry.ts';
import { provisionWorld, type Intake, type WorldReport } from '../registration/world-provisioning.ts';
import { GatewayStore } from '../store/gateway-store.ts';
import { ConformanceRuntime } from '../runtime/conformance/index.ts';
import {
  hostMcpEndpoints,
  withHostedEndpoints,
  type HostedMcpEndpoint,
  type TransportFactory,
} from '../runtime/mcp/index.ts';
import type { ToolRuntime } from '../runtime/tool-runtime.ts';
import { CallOutRuntime, withCallOutEndpoint } from '../runtime/call-out/index.ts';
import { loadFixtureWorld, resolveEndpointRuntimes, type FixtureWorld } from './fixture-world.ts';
import { ConfigError, type ConfigViolation } from '../../protocol/json/config-file.ts';
import type { GatewayConfig } from './gateway-config.ts';
import type { RateLimitedOperation } from './limits.ts';

export interface GatewayState {
  readonly config: GatewayConfig;
  readonly store: GatewayStore;
  readonly catalog: StoreCatalog;
  readonly registry: Registry;
  readonly provisioning: Provisioning;
  readonly rateLimiter: RateLimiter<RateLimitedOperation>;
  /** What loading the world did; undefined without a world. */
  readonly world: WorldReport | undefined;
  /** The access policy in force. */
  readonly policy: AccessPolicy;
  /**
   * Normalized endpoint bare JID → the runtime that executes its tools, for the world's
   * endpoints that name one (empty without a world). The task engine dispatches with it.
   */
  readonly runtimes: ReadonlyMap<string, ToolRuntime>;
  /**
   * The call-out runtime when the config declares a call-out endpoint (off by default): the
   * component attaches its IQ sender and hands it the messages addressed to its identity.
   */
  readonly callOut: CallOutRuntime | undefined;
  /** Recompiles the policy from the store (after grants change). */
  reloadPolicy(): void;
  /** Stops what the runtimes run outside the process (MCP servers); before close(). */
  stopRuntimes(): Promise<void>;
  close(): void;
}

export interface GatewayStateOptions {
  /** Log lines (MCP semantic loss at start, MCP call faults). */
  readonly log?: (line: string) => void;
  /** How MCP-hosted endpoints reach their servers (tests connect in memory). */
  readonly mcpTransport?: TransportFactory;
  /** Verdicts of earlier starts for the world's manifests (intake-cache.ts); none: every manifest is validated. */
  readonly intakeCache?: IntakeCache;
  /**
   * The database already opened (and migrated) at config.database by the caller, handed over:
   * the state closes it. Default: opened here.
   */
  readonly store?: GatewayStore;
}

/** The identity the gateway gives MCP servers (initialize's clientInfo). */
function intakeOf(cache: IntakeCache | undefined): Intake {
  return cache === undefined ? intakeManifest : (text, limits) => cache.intake(text, limits);
}

const MCP_CLIENT_INFO = { name: 'agentconf-reference-gateway', version: '0.1.0' };

function compilePolicy(config: GatewayConfig, store: GatewayStore): AccessPolicy {
  const stored = store.policy.load();
  return compileAccessPolicy({
    localDomains: config.localDomains,
    localDefaults: config.policy.local,
    grants: stored.grants,
    endpointPolicies: stored.endpointPolicies,
  });
}

/**
 * The tool runtimes this gateway has, by the name a world uses: `conformance` runs the scripted
 * tools of docs/conformance-tools.md on real time, counting executions in the store's ledger.
 */
export function toolRuntimes(store: GatewayStore, callOut?: CallOutRuntime): readonly ToolRuntime[] {
  return [new ConformanceRuntime({ ledger: store.ledger }), ...(callOut === undefined ? [] : [callOut])];
}

function runtimesOf(
  config: GatewayConfig,
  world: FixtureWorld | undefined,
  store: GatewayStore,
  hosted: readonly HostedMcpEndpoint[],
  callOut: CallOutRuntime | undefined,
): ReadonlyMap<string, ToolRuntime> {
  const available = toolRuntimes(store, callOut);
  const runtimes = new Map(world === undefined ? [] : resolveEndpointRuntimes(world, available));
  const byName = new Map(available.map((runtime) => [runtime.name, runtime]));
  const violations: ConfigViolation[] = [];
  for (const [jid, name] of config.runtimes) {
    const runtime = byName.get(name);
    if (runtime === undefined) {
      const known = [...byName.keys()].map((known) => JSON.stringify(known)).join(', ');
      violations.push({
        path: `/runtimes/${jid.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        message: `no tool runtime named ${JSON.stringify(name)} (this gateway has: ${known})`,
      });
    } else if (!runtimes.has(jid)) {
      runtimes.set(jid, runtime);
    }
  }
  if (violations.length > 0) throw new ConfigError(config.source, violations);
  for (const endpoint of hosted) runtimes.set(endpoint.config.jid, endpoint.runtime);
  return runtimes;
}

/**
 * `now` (milliseconds since the epoch) is the clock of the store and the rate limiter. The
 * config's MCP-hosted endpoints are started here and join the world (runtime/mcp/mcp-hosting.ts).
 */
export async function openGatewayState(
  config: GatewayConfig,
  now: () => number,
  options: GatewayStateOptions = {},
): Promise<GatewayState> {
  const store = options.store ?? GatewayStore.open(config.database, { now });
  let hosted: HostedMcpEndpoint[] = [];
  const stopRuntimes = async (): Promise<void> => {
    const stopping = hosted;
    hosted = [];
    await Promise.all(stopping.map((endpoint) => endpoint.runtime.close()));
  };
  try {
    store.policy.replaceSource('config', {
      grants: config.policy.grants,
      endpointPolicies: config.policy.endpoints,
    });
    const loadedWorld = config.world === undefined ? undefined : loadFixtureWorld(config.world);
    hosted = await hostMcpEndpoints(config.mcpEndpoints, {
      source: config.source,
      clientInfo: MCP_CLIENT_INFO,
      ...(options.log === undefined ? {} : { log: options.log }),
      ...(options.mcpTransport === undefined ? {} : { transport: options.mcpTransport }),
    });
    const withHosted =
      hosted.length === 0 ? loadedWorld : withHostedEndpoints(loadedWorld, hosted, config.source);
    const callOut =
      config.callOut === undefined
        ? undefined
        : new CallOutRuntime({
            identity: config.callOut.endpoint,
            iqTimeoutMs: config.callOut.iqTimeoutMs,
            pollMs: config.callOut.pollMs,
            wallClock: now,
            ...(options.log === undefined ? {} : { log: options.log }),
          });
    const fixtureWorld =
      config.callOut === undefined
        ? withHosted
        : withCallOutEndpoint(withHosted, config.callOut, config.source);
    const runtimes = runtimesOf(config, fixtureWorld, store, hosted, callOut);
    const world =
      fixtureWorld === undefined
        ? undefined
        : await provisionWorld(store, fixtureWorld, config.limits, intakeOf(options.intakeCache));
    let policy = compilePolicy(config, store);
    const registry = new Registry(store);
    const rateLimiter = new RateLimiter(
      config.limits.rateLimits,
      now,
      undefined,
      new Map(Object.entries(config.limits.principalRateLimits)),
    );
    const provisioning = new Provisioning(
      registry,
      {
        admins: config.admins,
        localDomains: config.localDomains,
        selfRegistration: config.selfRegistration,
        hostedDomains: [config.component.domain],
      },
      config.limits,
      rateLimiter,
    );
    return {
      config,
      store,
      catalog: new StoreCatalog(store, () => policy),
      registry,
      provisioning,
      rateLimiter,
      world,
      runtimes,
      callOut,
      get policy() {
        return policy;
      },
      reloadPolicy() {
        policy = compilePolicy(config, store);
      },
      stopRuntimes,
      close() {
        store.close();
      },
    };
  } catch (error) {
    await stopRuntimes();
    store.close();
    throw error;
  }
}
