/**
 * One direction of an interop pair as a run session the ordinary runner can judge: the target
 * is one gateway of the pair, its remote callers (the reference world's `remote`, `remotePeer`,
 * `toolGrantee` roles) are accounts on the OTHER gateway's server, so every request they send
 * it crosses s2s. The suites' own cases then judge what the target answers, requirement by
 * requirement, and a failure names the target side.
 */
import { federationForSide, type PairSide } from '../../harness/federation/pair-side.ts';
import type { SutInstance } from '../../harness/sut/launch.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { referenceWorldOf } from '../../suites/fixtures/reference-world.ts';
import { referenceWorldJids } from '../../suites/fixtures/world-accounts.ts';
import { mirrorAddress, pairWorld } from '../../suites/interop/pair-world.ts';
import { RunCallers, type CallerRoles } from '../caller-pool.ts';
import { caseDriver } from '../case-driver.ts';
import { advertisedFeatures, sutFactsOf, type RunSession } from '../run-session.ts';
import { keepLogs } from '../session-logs.ts';
import type { PairGateways } from './pair-gateways.ts';

/** The reference world's role accounts as the world of gateway `side` names them. */
export function pairRoles(side: PairSide, admin: string | undefined): CallerRoles {
  const jids = referenceWorldJids();
  const mapped =
    side === 'b'
      ? jids
      : (Object.fromEntries(
          Object.entries(jids).map(([role, jid]) => [role, mirrorAddress(jid)]),
        ) as typeof jids);
  return { ...mapped, admin };
}

/**
 * The session judging gateway `target` of a running pair. Stopping it closes its callers only:
 * the pair (servers and both gateways) outlives both directions.
 */
export async function targetSession(
  pair: PairGateways,
  target: PairSide,
  config: SutConfig,
  referenceWorld: JsonValue,
  log: (line: string) => void,
): Promise<RunSession> {
  const started = performance.now();
  const federation = federationForSide(pair.federation, target);
  const sut: SutInstance = pair.gateways[target];
  const gatewayJid = sut.facts.componentDomain;
  const driver = caseDriver(federation, config);
  const roles = pairRoles(target, sut.adminAccount?.jid);
  const callers = new RunCallers(driver, roles);
  const local = await callers.callerOf('local');
  const world = referenceWorldOf(pairWorld(referenceWorld, target), roles);
  const features = await advertisedFeatures(local, gatewayJid, log);
  return {
    federation,
    sut,
    driver,
    callers,
    // The side's own config: on side A, the accounts it names (per-principal limits) are mirrored.
    facts: sutFactsOf(
      { ...sut.config, component: { ...sut.config.component, domain: gatewayJid } },
      gatewayJid,
      features,
      new Set(),
    ),
    world,
    setupMs: performance.now() - started,
    // No case of an interop run restarts a gateway: any exit is unexpected.
    gatewayExit: () =>
      sut.process === undefined || sut.process.running
        ? undefined
        : `gateway ${target.toUpperCase()} (${sut.config.name}) exited during the run`,
    keepLogs: (dir) => keepLogs(dir, federation, sut),
    stop: () => driver.closeAll(),
  };
}
