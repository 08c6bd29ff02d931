/**
 * The running gateway as `agentconf gateway` starts it: database, fixture world and policy
 * (openGatewayState), the optional health listener, then the component connection. Each stage
 * that can fail because of the deployment (not because of a bug) fails with a GatewayStartError
 * naming the stage in one sentence, and leaves nothing open behind it.
 *
 * Stages, in order:
 * 1. database: opened (and migrated) on its own first, so that an unreadable path, a
 *    directory that does not exist or a file that is not a database is reported as such, not
 *    mixed up with the world loaded in the same call later; then handed to openGatewayState;
 * 2. world: openGatewayState loads the config's policy and the fixture world (every problem
 *    is listed); mcp: it starts the MCP-hosted endpoints' servers and lists their tools;
 * 3. health: the listener binds before the connection, so /health answers and /ready says 503
 *    while the gateway is still connecting;
 * 4. connection: the first component connection (no retry: a wrong port or secret will not fix
 *    itself; once online, a lost stream is retried for ever).
 */
import { sharedBudgetedValidator } from '../../protocol/tool-schema/index.ts';
import { ConfigError } from '../../protocol/json/config-file.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { openGatewayState, type GatewayState } from '../config/gateway-state.ts';
import { startHealthListener, HealthListenError, type HealthListener } from '../health/index.ts';
import type { IntakeCache } from '../registration/intake-cache.ts';
import { WorldProvisioningError } from '../registration/world-provisioning.ts';
import { McpHostingError } from '../runtime/mcp/index.ts';
import { GatewayStore } from '../store/gateway-store.ts';
import { GatewayConnectError } from './connect-failure.ts';
import { GatewayComponent, type GatewayComponentOptions } from './gateway-component.ts';

export type GatewayStartStage = 'database' | 'world' | 'mcp' | 'health' | 'connection';

export class GatewayStartError extends Error {
  override readonly name = 'GatewayStartError';
  constructor(
    readonly stage: GatewayStartStage,
    /** One sentence: what failed and why. */
    message: string,
    /** The individual problems, for a stage that has several (the world's). */
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

export interface GatewayRuntimeOptions extends GatewayComponentOptions {
  /** The clock of the store and the rate limiter (milliseconds since the epoch). */
  readonly now?: () => number;
  /** Passed to openGatewayState: the world's manifests accepted at an earlier start are not validated again. */
  readonly intakeCache?: IntakeCache;
}

export interface GatewayRuntime {
  readonly config: GatewayConfig;
  readonly state: GatewayState;
  readonly gateway: GatewayComponent;
  readonly health: HealthListener | undefined;
  /** Stops the listener, the component and the state, in that order. Idempotent. */
  stop(): Promise<void>;
}

function databaseProblem(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? ` (${error.code})` : '';
  return `${error.message}${code}`;
}

function isSqliteError(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('SQLITE_')
  );
}

/** The database opened on its own, handed to openGatewayState: opening it twice cost a start a WAL checkpoint and its sync. */
function checkDatabase(config: GatewayConfig, now: () => number): GatewayStore {
  try {
    return GatewayStore.open(config.database, { now });
  } catch (error) {
    throw new GatewayStartError(
      'database',
      `cannot open the database ${config.database}: ${databaseProblem(error)}`,
    );
  }
}

async function openState(
  config: GatewayConfig,
  now: () => number,
  log: (line: string) => void,
  intakeCache: IntakeCache | undefined,
  store: GatewayStore,
): Promise<GatewayState> {
  try {
    return await openGatewayState(config, now, {
      log,
      store,
      ...(intakeCache === undefined ? {} : { intakeCache }),
    });
  } catch (error) {
    if (error instanceof McpHostingError) {
      throw new GatewayStartError(
        'mcp',
        `cannot start the MCP-hosted endpoints: ${String(error.violations.length)} problem(s)`,
        error.violations.map((problem) => `${problem.path}: ${problem.message}`),
      );
    }
    if (error instanceof ConfigError) {
      throw new GatewayStartError(
        'world',
        `cannot load the fixture world ${error.source}: ${String(error.violations.length)} problem(s)`,
        error.message
          .split('\n')
          .slice(1)
          .map((line) => line.trim()),
      );
    }
    if (error instanceof WorldProvisioningError) {
      throw new GatewayStartError(
        'world',
        `cannot load the fixture world ${error.source}: ${String(error.problems.length)} problem(s)`,
        error.problems.map((problem) => `${problem.path}: ${problem.message}`),
      );
    }
    if (isSqliteError(error)) {
      throw new GatewayStartError(
        'database',
        `the database ${config.database} failed: ${databaseProblem(error)}`,
      );
    }
    throw error;
  }
}

export async function startGatewayRuntime(
  config: GatewayConfig,
  options: GatewayRuntimeOptions = {},
): Promise<GatewayRuntime> {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  const store = checkDatabase(config, now);
  const state = await openState(config, now, log, options.intakeCache, store);
  let health: HealthListener | undefined;
  let gateway: GatewayComponent | undefined;
  try {
    if (config.health !== undefined) {
      const listening = await startHealthListener(config.health, {
        componentOnline: () => gateway?.online ?? false,
        storeOpen: () => state.store.isOpen,
      }).catch((error: unknown) => {
        if (error instanceof HealthListenError) throw new GatewayStartError('health', error.message);
        throw error;
      });
      health = listening;
      log(`gateway: health listener on ${listening.url}`);
    }
    gateway = await GatewayComponent.start(state, options).catch((error: unknown) => {
      if (error instanceof GatewayConnectError) throw new GatewayStartError('connection', error.message);
      throw error;
    });
  } catch (error) {
    await health?.close();
    await state.stopRuntimes();
    state.close();
    throw error;
  }
  // The schema validation workers start once the component is online, not while the state
  // opens: each costs a few hundred ms of CPU, which on a small machine came out of the start
  // itself (the world's intake and the connection). Still ahead of the first invocation, and of
  // the one after a worker was stopped for its budget, which then find one warm. A gateway
  // stopped while they start exits without waiting for them.
  void sharedBudgetedValidator().warmUp({ holdProcess: false });
  const running = gateway;
  let stopping: Promise<void> | undefined;
  return {
    config,
    state,
    gateway: running,
    health,
    stop() {
      stopping ??= (async () => {
        await health?.close();
        await running.stop();
        await state.stopRuntimes();
        state.close();
      })();
      return stopping;
    },
  };
}
