/**
 * Starts an interop pair: the pair topology (harness/federation, `pair: true`) and a gateway under
 * test on each server, each from its own SUT file, each loading its side's fixture world
 * (suites/interop/pair-world.ts), each answering before the pair counts as up. Gateway A is
 * `agents.example.com` on server A, gateway B `agents.example` on server B: the pair assigns the
 * component domains, whatever the SUT files name, since the same SUT file may be on either side.
 */
import { nativeProvider } from '../../harness/federation/native-provider.ts';
import { federationForSide, pairComponentOf, type PairSide } from '../../harness/federation/pair-side.ts';
import type {
  Federation,
  ServerImplementation,
  ServerProvider,
} from '../../harness/federation/server-provider.ts';
import { launchSut, SutMismatchError, type SutInstance } from '../../harness/sut/launch.ts';
import { discoInfoProbe, waitForSutReady } from '../../harness/sut/readiness.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { mirrorAddresses, pairAccounts, pairWorld } from '../../suites/interop/pair-world.ts';

export const PAIR_SIDES: readonly PairSide[] = ['a', 'b'];

export interface PairGateways {
  readonly federation: Federation;
  readonly gateways: Readonly<Record<PairSide, SutInstance>>;
  /** Stops both gateways, then the federation. Idempotent. */
  stop(): Promise<void>;
}

export interface StartPairOptions {
  readonly suts: Readonly<Record<PairSide, SutConfig>>;
  /** The reference fixture world, manifests inlined; each side loads its own image of it. */
  readonly referenceWorld: JsonValue;
  readonly serverA?: ServerImplementation;
  /** Default: the native provider (the only one that builds a pair topology). */
  readonly provider?: ServerProvider;
  readonly log?: (line: string) => void;
}

/** The SUT config as the gateway on `side` runs it: on the component domain the pair gives it. */
export function sutConfigForSide(config: SutConfig, federation: Federation, side: PairSide): SutConfig {
  if (config.fixtures !== 'world-file') {
    throw new SutMismatchError(
      `${config.name} takes its fixtures by ${config.fixtures}; an interop pair loads each gateway's fixture world from a file (fixtures "world-file")`,
    );
  }
  const { domain } = pairComponentOf(federation, side);
  const place = (sideConfig: SutConfig): SutConfig => ({
    ...sideConfig,
    component: { ...sideConfig.component, domain },
  });
  if (side === 'b') return place(config);
  // Gateway A loads the mirrored world, so every address its SUT file names for the reference
  // world's accounts and domains (the admin, the caller account, per-principal limits, launch
  // files, and whatever member names one next) is mirrored with it: the whole file, but where
  // it was read from. Strings that are no such address come back unchanged.
  const { source, ...named } = config;
  return place({ ...(mirrorAddresses(named as unknown as JsonValue) as unknown as typeof named), source });
}

async function startGateway(
  federation: Federation,
  config: SutConfig,
  side: PairSide,
  referenceWorld: JsonValue,
): Promise<SutInstance> {
  const view = federationForSide(federation, side);
  const sideConfig = sutConfigForSide(config, federation, side);
  const probe = await discoInfoProbe(view, view.component.domain);
  try {
    const sut = await launchSut({
      config: sideConfig,
      federation: view,
      world: pairWorld(referenceWorld, side),
    });
    try {
      await waitForSutReady(sut, () => probe.probe());
    } catch (error) {
      await sut.stop(0).catch(() => undefined);
      throw error;
    }
    return sut;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

export async function startPairGateways(options: StartPairOptions): Promise<PairGateways> {
  const log = options.log ?? (() => undefined);
  const federation = await (options.provider ?? nativeProvider).start({
    pair: true,
    hostile: true,
    ...(options.serverA === undefined ? {} : { serverA: options.serverA }),
    accounts: pairAccounts(),
  });
  log(
    `interop: servers up (A ${federation.servers.a.implementation}, B ${federation.servers.b.implementation}) in ${Math.round(federation.timings.bootMs)} ms`,
  );
  const started: Partial<Record<PairSide, SutInstance>> = {};
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.all(Object.values(started).map((sut) => sut.stop().catch(() => undefined)));
      await federation.stop();
    })();
    return stopping;
  };
  try {
    // One after the other: both may create the same admin account.
    for (const side of PAIR_SIDES) {
      started[side] = await startGateway(federation, options.suts[side], side, options.referenceWorld);
      log(
        `interop: gateway ${side.toUpperCase()} (${options.suts[side].name}) answers on ${pairComponentOf(federation, side).domain}`,
      );
    }
    const { a, b } = started;
    if (a === undefined || b === undefined) throw new Error('a gateway of the pair did not start');
    return { federation, gateways: { a, b }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
