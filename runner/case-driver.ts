/**
 * The driver every case of a session sends through. Built in one place so that no session forgets
 * the send gate: a case given up at its time limit must not go on sending into the next attempt's
 * transcript (suites/framework/evidence.ts, refuseSendsOfAbandonedAttempt).
 */
import { createDriver, type Driver, type DriverOptions } from '../harness/driver/index.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import { refuseSendsOfAbandonedAttempt } from '../suites/framework/evidence.ts';

export function caseDriver(
  federation: Federation,
  config: SutConfig,
  options: Pick<DriverOptions, 'beforeSend'> = {},
): Driver {
  return createDriver(federation, {
    ...options,
    timeoutMs: config.timeouts.replySeconds * 1_000,
    sendGate: refuseSendsOfAbandonedAttempt,
  });
}
