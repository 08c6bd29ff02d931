// Who serves which domain, at which address, and how each server reaches the others. Pure data:
// the provider turns it into processes, proxies and files.
import type { Endpoint } from '../faults/fault-proxy.ts';
import { FEDERATION_DOMAINS, PAIR_COMPONENT_DOMAIN as pairComponent } from './domains.ts';
import type { ProsodyPorts } from './prosody-config.ts';
import type { ServerImplementation, ServerRole } from './server-provider.ts';

/** Well-known ports: every server and proxy has an address of its own, so they never collide. */
export const FEDERATION_PORTS: ProsodyPorts = { c2s: 5222, c2sDirectTls: 5223, s2s: 5269, component: 5347 };

/** ejabberd's HTTP API (account creation), when ejabberd is server A. */
export const EJABBERD_API_PORT = 5280;

/** Every port a server address must have free. */
export const SERVER_ADDRESS_PORTS: readonly number[] = [
  FEDERATION_PORTS.c2s,
  FEDERATION_PORTS.c2sDirectTls,
  FEDERATION_PORTS.s2s,
  FEDERATION_PORTS.component,
  EJABBERD_API_PORT,
];

export type LinkName = 's2sAToB' | 's2sBToA' | 'component' | 'pairComponent';

export interface PlannedServer {
  readonly role: ServerRole;
  readonly address: string;
  readonly virtualHosts: readonly string[];
  readonly componentDomains: readonly string[];
  /** Every federation domain → the address this server connects to for it (peer or proxy). */
  readonly routes: ReadonlyMap<string, string>;
}

export interface PlannedLink {
  readonly name: LinkName;
  readonly listen: Endpoint;
  readonly target: Endpoint;
}

export interface FederationTopology {
  readonly servers: readonly PlannedServer[];
  readonly links: readonly PlannedLink[];
}

/** How many fresh addresses `planTopology` needs (a pair adds the second gateway's component proxy). */
export function addressesNeeded(withHostile: boolean, withPair = false): number {
  return 5 + (withHostile ? 1 : 0) + (withPair ? 1 : 0);
}

const { remote, local, component, hostile, target: fakeTarget } = FEDERATION_DOMAINS;

export interface ServedDomains {
  readonly virtualHosts: readonly string[];
  readonly componentDomains: readonly string[];
}

/**
 * Domains whose messages a server does not filter by its users' XEP-0191 blocklists
 * (prosody-config.ts `blockingUnenforcedFor`). Server A plays the recipient server that
 * #implementation-status describes, one that does not apply blocks to a component's virtual
 * senders, so a gateway assuming that routing enforces blocking delivers there and is caught;
 * server B, which hosts the component, applies them as Prosody does.
 */
export function blockingUnenforcedFor(role: ServerRole): readonly string[] {
  return role === 'a' ? [component] : [];
}

/**
 * Whether the harness's server in `role` is the recipient server the blocking cases need: it
 * answers the block-state query (mod_agentconf_block_state) and leaves XEP-0191 on the
 * component's messages to the sender. Only its Prosody loads those modules; ejabberd has neither
 * and filters the component's messages by its users' blocklists itself.
 */
export function leavesBlockingToSender(role: ServerRole, implementation: ServerImplementation): boolean {
  return implementation === 'prosody' && blockingUnenforcedFor(role).length > 0;
}

export const SERVED_DOMAINS: Readonly<Record<ServerRole, ServedDomains>> = {
  a: { virtualHosts: [remote], componentDomains: [] },
  b: { virtualHosts: [local], componentDomains: [component, fakeTarget] },
  hostile: { virtualHosts: [hostile], componentDomains: [] },
};

export interface ComponentSpec {
  readonly domain: string;
  readonly secret: string;
  /** Listed among the server's disco#items (#find-gateway); the fake target is not a gateway. */
  readonly listed: boolean;
}

/**
 * The XEP-0114 components a server accepts, all with the run's one component secret except the
 * pair's second gateway, which has a secret of its own (`pairSecret`): two gateways under test
 * are two deployments, and neither learns the other's credentials.
 */
export function componentSpecs(
  componentDomains: readonly string[],
  secret: string,
  pairSecret?: string,
): ComponentSpec[] {
  return componentDomains.map((domain) => {
    const own = domain === pairComponent ? pairSecret : secret;
    if (own === undefined) throw new Error(`no component secret was given for ${domain}`);
    return { domain, secret: own, listed: domain !== fakeTarget };
  });
}

/**
 * What a server serves in a topology: in a pair topology server A carries the second gateway's
 * component too, so that each gateway's peer is across s2s from it.
 */
export function servedDomains(role: ServerRole, withPair = false): ServedDomains {
  const served = SERVED_DOMAINS[role];
  if (!withPair || role !== 'a') return served;
  return { ...served, componentDomains: [...served.componentDomains, pairComponent] };
}

/** Every domain a server answers for (what its certificate must name). */
export function domainsServedBy(role: ServerRole, withPair = false): string[] {
  const served = servedDomains(role, withPair);
  return [...served.virtualHosts, ...served.componentDomains];
}

export function serverRoles(withHostile: boolean): ServerRole[] {
  return withHostile ? ['a', 'b', 'hostile'] : ['a', 'b'];
}

/**
 * Server A resolves B's domains to the s2sAToB proxy, B resolves A's to the s2sBToA proxy; the
 * gateway reaches B's component port through the component proxy. The hostile server, when there
 * is one, is reached directly: its faults are not what is under test.
 */
export function planTopology(
  addresses: readonly string[],
  withHostile: boolean,
  withPair = false,
): FederationTopology {
  const needed = addressesNeeded(withHostile, withPair);
  if (addresses.length !== needed) {
    throw new Error(`the topology needs ${needed} addresses, got ${addresses.length}`);
  }
  const [a = '', b = '', proxyToB = '', proxyToA = '', proxyForGateway = ''] = addresses;
  const hostileAddress = withHostile ? addresses[5] : undefined;
  const proxyForPairGateway = addresses[withHostile ? 6 : 5] ?? '';
  const ports = FEDERATION_PORTS;

  const addressOf: Record<ServerRole, string | undefined> = { a, b, hostile: hostileAddress };
  const roles = serverRoles(withHostile);

  const routesFrom = (from: ServerRole): Map<string, string> => {
    const routes = new Map<string, string>();
    for (const to of roles) {
      let address = addressOf[to] ?? '';
      if (from === 'a' && to === 'b') address = proxyToB;
      if (from === 'b' && to === 'a') address = proxyToA;
      for (const domain of domainsServedBy(to, withPair)) routes.set(domain, address);
    }
    return routes;
  };

  return {
    servers: roles.map((role) => ({
      role,
      address: addressOf[role] ?? '',
      ...servedDomains(role, withPair),
      routes: routesFrom(role),
    })),
    links: [
      { name: 's2sAToB', listen: { host: proxyToB, port: ports.s2s }, target: { host: b, port: ports.s2s } },
      { name: 's2sBToA', listen: { host: proxyToA, port: ports.s2s }, target: { host: a, port: ports.s2s } },
      {
        name: 'component',
        listen: { host: proxyForGateway, port: ports.component },
        target: { host: b, port: ports.component },
      },
      ...(withPair
        ? [
            {
              name: 'pairComponent' as const,
              listen: { host: proxyForPairGateway, port: ports.component },
              target: { host: a, port: ports.component },
            },
          ]
        : []),
    ],
  };
}
