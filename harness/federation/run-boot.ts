/**
 * The steps every provider that owns its servers shares once its resources exist: the fault
 * links over the run's proxies, and the boot itself (accounts, servers, timings, registration
 * as a live federation for the exit cleanup).
 */
import { FaultProxy, type Endpoint } from '../faults/fault-proxy.ts';
import type { LinkName } from './federation-topology.ts';
import { addLiveFederation } from './live-federations.ts';
import type { NativeFederation } from './native-federation.ts';
import {
  FederationStartError,
  FIXED_COMPONENT_HOST,
  type AccountRequest,
  type FederationLinks,
  type FederationOptions,
} from './server-provider.ts';

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
    ...(proxies.has('pairComponent') ? { pairComponent: proxyOf(proxies, 'pairComponent') } : {}),
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
  whileBooting?: (federation: F) => void,
): Promise<F> {
  await Promise.all(accounts.map((request) => federation.createAccount(request)));
  const preparedAt = performance.now();
  const started = Promise.all(servers.map((server) => server.start()));
  if (whileBooting !== undefined) {
    federation.links.component.holdUntil(started);
    federation.links.pairComponent?.holdUntil(started);
    whileBooting(federation);
  }
  await started;
  federation.timings = { bootMs: performance.now() - startedAt, prepareMs: preparedAt - startedAt };
  addLiveFederation(federation);
  return federation;
}

/**
 * Starts a link's fault proxy. The component link listens at the fixed port the options ask for
 * (on FIXED_COMPONENT_HOST), and a fixed port that cannot be had is said so in words.
 */
export async function startLinkProxy(
  link: { readonly name: LinkName; readonly listen: Endpoint; readonly target: Endpoint },
  options: FederationOptions,
): Promise<FaultProxy> {
  const port = link.name === 'component' ? options.component?.port : undefined;
  // The component links are plaintext XMPP (XEP-0114): cases can act on the gateways' stanzas.
  const inspectStanzas = link.name === 'component' || link.name === 'pairComponent';
  if (port === undefined) return FaultProxy.start({ ...link, inspectStanzas });
  const listen = { host: FIXED_COMPONENT_HOST, port };
  try {
    return await FaultProxy.start({ ...link, listen, inspectStanzas });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new FederationStartError(
      `the component port ${listen.host}:${String(port)} that the SUT config fixes cannot be listened on (${code}` +
        `${code === 'EADDRINUSE' ? ': another run or another server has it' : ''})`,
      { cause: error },
    );
  }
}
