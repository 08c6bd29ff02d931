/**
 * The steps every provider that owns its servers shares once its resources exist: the fault
 * links over the run's proxies, and the boot itself (accounts, servers, timings, registration
 * as a live federation for the exit cleanup).
 */
import type { FaultProxy } from '../faults/fault-proxy.ts';
import type { LinkName } from './federation-topology.ts';
import { addLiveFederation } from './live-federations.ts';
import type { NativeFederation } from './native-federation.ts';
import type { AccountRequest, FederationLinks } from './server-provider.ts';

export function proxyOf(proxies: ReadonlyMap<LinkName, FaultProxy>, name: LinkName): FaultProxy {
  const proxy = proxies.get(name);
  if (proxy === undefined) throw new Error(`link ${name} has no proxy`);
  return proxy;
}

export function faultLinks(proxies: ReadonlyMap<LinkName, FaultProxy>): FederationLinks {
  return {
    s2sAToB: proxyOf(proxies, 's2sAToB'),
    s2sBToA: proxyOf(proxies, 's2sBToA'),
    component: proxyOf(proxies, 'component'),
    restoreAll: () => {
      for (const proxy of proxies.values()) proxy.restore();
    },
  };
}

/** Creates the accounts, starts every server and records the boot; the caller releases on failure. */
export async function bootFederation<F extends NativeFederation>(
  federation: F,
  servers: readonly { start(): Promise<void> }[],
  accounts: readonly AccountRequest[],
  startedAt: number,
): Promise<F> {
  await Promise.all(accounts.map((request) => federation.createAccount(request)));
  const preparedAt = performance.now();
  await Promise.all(servers.map((server) => server.start()));
  federation.timings = { bootMs: performance.now() - startedAt, prepareMs: preparedAt - startedAt };
  addLiveFederation(federation);
  return federation;
}
