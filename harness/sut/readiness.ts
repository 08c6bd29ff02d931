/**
 * When is the gateway under test ready? When it answers: a disco#info to its component domain,
 * sent by a local caller, comes back as a result (#discovery: every gateway answers it). While the
 * component is not connected, the server answers at once with an error of its own
 * (remote-server-timeout from Prosody), so asking again with a short back-off is cheap. Probing,
 * never a fixed sleep; a gateway process that exits ends the wait at once, with its output.
 */
import { xml } from '@xmpp/xml';

import { ProcessExitedError } from '../faults/managed-process.ts';
import type { Federation } from '../federation/server-provider.ts';
import { createDriver, StanzaErrorReply } from '../driver/index.ts';
import type { SutInstance } from './launch.ts';
import { outputTail } from './process-output.ts';

const DISCO_INFO = 'http://jabber.org/protocol/disco#info';

/** Errors a server returns on behalf of a component that is not (yet) connected. */
const NOT_CONNECTED = new Set([
  'remote-server-timeout',
  'remote-server-not-found',
  'service-unavailable',
  'recipient-unavailable',
]);

export type ProbeAnswer = { readonly ready: true } | { readonly ready: false; readonly detail: string };

export interface SutProbe {
  probe(): Promise<ProbeAnswer>;
  close(): Promise<void>;
}

/** A probe that logs in as a local account of the federation and asks `domain` for disco#info. */
export async function discoInfoProbe(federation: Federation, domain: string): Promise<SutProbe> {
  const local =
    federation.accounts.find((account) => account.domain === federation.domains.local) ??
    (await federation.createAccount({ username: 'sut-probe', domain: federation.domains.local }));
  const driver = createDriver(federation);
  const caller = await driver.connect(local.jid, 'sut-probe');
  return {
    async probe() {
      try {
        await caller.iq(domain, 'get', xml('query', { xmlns: DISCO_INFO }), { timeoutMs: 2_000 });
        return { ready: true };
      } catch (error) {
        if (error instanceof StanzaErrorReply) {
          const { condition } = error.error;
          return NOT_CONNECTED.has(condition)
            ? { ready: false, detail: `disco#info to ${domain} answered ${condition}` }
            : { ready: true };
        }
        const reason = error instanceof Error ? error.message : String(error);
        return { ready: false, detail: `disco#info to ${domain}: ${reason}` };
      }
    },
    close: () => driver.closeAll(),
  };
}

export class SutNotReadyError extends Error {
  override readonly name = 'SutNotReadyError';
  constructor(
    message: string,
    /** The harness started the gateway (false: one it does not start never connected). */
    readonly launched = true,
  ) {
    super(message);
  }
}

/**
 * Waits `ms`, or less when the launched process prints something first: a gateway that says it
 * is online (the reference gateway does) is asked again at once rather than at the end of a
 * back-off of up to 200 ms. Only a hint when to ask: readiness is still the probe's answer.
 */
function pauseUnlessOutput(managed: SutInstance['process'], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      managed?.off('output', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    managed?.once('output', done);
  });
}

/**
 * Resolves once `probe` says ready. Rejects at the deadline with the last answer, or as soon as the
 * launched gateway process exits (with its output).
 */
export async function waitForSutReady(
  instance: Pick<SutInstance, 'config' | 'process'>,
  probe: SutProbe['probe'],
  timeoutMs = instance.config.timeouts.startupSeconds * 1_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const managed = instance.process;
  let settled = false;
  const exited = new Promise<never>((_resolve, reject) => {
    if (managed === undefined) return;
    void managed.waitForExit().then((status) => {
      if (!settled) reject(new ProcessExitedError(managed.name, status, managed.runOutput));
    });
  });
  exited.catch(() => undefined);
  const attempt = async (): Promise<void> => {
    let last = 'no answer yet';
    for (let pause = 5; !settled; pause = Math.min(pause * 2, 200)) {
      const answer = await probe();
      if (answer.ready) return;
      last = answer.detail;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await pauseUnlessOutput(managed, Math.min(pause, remaining));
    }
    throw new SutNotReadyError(
      `${instance.config.name} did not answer within ${timeoutMs} ms (last: ${last})` +
        (managed === undefined ? '' : `; its last output:\n${outputTail(managed.runOutput)}`),
      managed !== undefined,
    );
  };
  const attempting = attempt();
  // Once the process has exited, the probe still in flight ends as the caller is closed: that
  // end is of no interest (and must not surface as an unhandled rejection).
  attempting.catch(() => undefined);
  try {
    await Promise.race([attempting, exited]);
  } finally {
    settled = true;
  }
}
