// The `container` provider: the native topology, each Prosody server in a container of its own on
// a user-defined Docker network (aliases = the domains each serves), started with testcontainers.
//
//   alice@example.com ─▶ [A container] ──SRV──▶ host: proxy s2sAToB ──▶ [B container]  ◀── proxy component ◀── gateway
//                            ▲                                               │             (host loopback)     (host)
//                            └──── host: proxy s2sBToA ◀──────SRV────────────┘
//
// The fault proxies run on the host (the same FaultProxy class, the same `links` API). The s2s
// proxies listen on the network's gateway address, which every container reaches; a DNS stub per
// server (on the same address) answers the s2s SRV names with the proxy's port, so each server's
// outgoing s2s connections cross the proxy without any port being fixed. Containers' ports are
// published on fresh host loopback addresses with the well-known port numbers, as in the native
// provider: clients, probes, the component proxy and the s2s proxies' upstream use those.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Endpoint, FaultProxy } from '../faults/fault-proxy.ts';
import { DockerResourceGuard } from '../containers/container-cleanup.ts';
import { ensureDockerEngine, type DockerConnection, type DockerEngine } from '../containers/docker-engine.ts';
import { DnsStub, s2sRecords, type DnsRecords } from '../containers/dns-stub.ts';
import { dockerClient, loadTestcontainers } from '../containers/testcontainers-loader.ts';
import {
  buildLocalProsodyImage,
  missingImageMessage,
  PROSODY_IMAGE_ENV,
  resolveProsodyImage,
  LOCAL_PROSODY_IMAGE,
} from '../containers/prosody-image.ts';
import { createRunCertificates } from './certificates.ts';
import { ContainerServer } from './container-server.ts';
import { FEDERATION_DOMAINS } from './domains.ts';
import { registerExitCleanup } from './exit-cleanup.ts';
import {
  FEDERATION_PORTS,
  SERVER_ADDRESS_PORTS,
  SERVED_DOMAINS,
  blockingUnenforcedFor,
  componentSpecs,
  domainsServedBy,
  serverRoles,
  type LinkName,
} from './federation-topology.ts';
import { removeLiveFederation } from './live-federations.ts';
import { allocateLoopbackAddresses, releaseLoopbackAddresses } from './loopback-addresses.ts';
import { NativeFederation } from './native-federation.ts';
import { SCRAM_ITERATION_COUNT } from './prosody-accounts.ts';
import { bootFederation, faultLinks, proxyOf, startLinkProxy } from './run-boot.ts';
import { guardDirectory, releaseDirectory } from './orphan-watchdog.ts';
import type { AccountRequest, FederationOptions, ServerProvider, ServerRole } from './server-provider.ts';

/** Label on every container and network of a run; its value is the run id. */
export const FEDERATION_LABEL = 'org.agentconf.federation';
const DEFAULT_S2S_TIMEOUT_SECONDS = 10;
/** Longer than native: a container start costs more than a process start, and images may be pulled. */
const DEFAULT_READY_TIMEOUT_MS = 60_000;

export interface ContainerFederationOptions extends FederationOptions {
  /** Prosody image (default: AGENTCONF_PROSODY_IMAGE, else see prosody-image.ts). */
  readonly image?: string;
  /** When no engine answers, start dockerd (as root; installs docker.io when missing). Default false. */
  readonly startEngine?: boolean;
  /**
   * When the engine has no Prosody image and none is named, build LOCAL_PROSODY_IMAGE first
   * (harness/containers/build-image; what `auto` asks for when it can build). Default false.
   */
  readonly buildImage?: boolean;
}

export interface ContainerServers {
  readonly a: ContainerServer;
  readonly b: ContainerServer;
  readonly hostile?: ContainerServer;
}

/** The handle of a container federation: the native one's, plus what the engine holds. */
export class ContainerFederation extends NativeFederation {
  override readonly provider: string = 'container';
  declare readonly servers: ContainerServers;

  constructor(
    servers: ContainerServers,
    component: NativeFederation['component'],
    links: NativeFederation['links'],
    caCertPath: string,
    runDir: string,
    release: () => Promise<void>,
    /** The Prosody image every server runs. */
    readonly image: string,
    /** The run's Docker network (the containers' aliases are their domains on it). */
    readonly networkName: string,
    /** The engine the containers run on (testcontainers' client reaches it). */
    readonly engine: DockerEngine,
    /** Every container and the network carry the label org.agentconf.federation=<runId>. */
    readonly runId: string,
  ) {
    super(servers, component, links, caCertPath, runDir, release);
  }
}

function defaultAccounts(withHostile: boolean): AccountRequest[] {
  const { remote, local, hostile } = FEDERATION_DOMAINS;
  const accounts: AccountRequest[] = [
    { username: 'alice', domain: remote },
    { username: 'bob', domain: local },
  ];
  if (withHostile) accounts.push({ username: 'mallory', domain: hostile });
  return accounts;
}

/** Everything a run holds, released in reverse: proxies and stubs, containers, network, directory, addresses. */
class ContainerRun {
  readonly proxies = new Map<LinkName, FaultProxy>();
  readonly stubs = new Map<ServerRole, DnsStub>();
  readonly servers: ContainerServer[] = [];
  readonly guard: DockerResourceGuard;
  networkId: string | undefined;
  addresses: readonly string[] = [];
  readonly #forgetDir: () => void;

  constructor(
    readonly dir: string,
    private readonly keepDir: boolean,
    engine: DockerConnection,
  ) {
    this.guard = new DockerResourceGuard(engine);
    this.#forgetDir = registerExitCleanup(() => {
      if (!keepDir) rmSync(dir, { recursive: true, force: true });
    });
    if (!keepDir) guardDirectory(dir);
  }

  proxy(name: LinkName): FaultProxy {
    return proxyOf(this.proxies, name);
  }

  async release(): Promise<void> {
    await Promise.all([
      ...[...this.proxies.values()].map((proxy) => proxy.close()),
      ...[...this.stubs.values()].map((stub) => stub.close()),
    ]);
    // With keepRunDir, the logs are kept next to the configs.
    if (this.keepDir) await Promise.all(this.servers.map((server) => server.readLog()));
    await this.#removeFromEngine();
    this.guard.release();
    if (!this.keepDir) {
      await rm(this.dir, { recursive: true, force: true });
      releaseDirectory(this.dir);
    }
    this.#forgetDir();
    releaseLoopbackAddresses(this.addresses);
  }

  /** Containers (forced, with their anonymous volumes), then the network; best effort, like the rest of a release. */
  async #removeFromEngine(): Promise<void> {
    const containerIds = this.servers.flatMap((server) =>
      server.containerId === undefined ? [] : [server.containerId],
    );
    if (containerIds.length === 0 && this.networkId === undefined) return;
    const client = await dockerClient();
    await Promise.allSettled(
      containerIds.map((id) => client.container.getById(id).remove({ force: true, v: true })),
    );
    if (this.networkId !== undefined) {
      await client.network
        .getById(this.networkId)
        .remove()
        .catch(() => undefined);
    }
  }
}

interface NetworkFacts {
  readonly id: string;
  readonly name: string;
  readonly gateway: string;
}

async function createNetwork(
  run: ContainerRun,
  name: string,
  labels: Record<string, string>,
): Promise<NetworkFacts> {
  const client = await dockerClient();
  const network = await client.network.create({
    Name: name,
    CheckDuplicate: true,
    Driver: 'bridge',
    Labels: labels,
  });
  run.networkId = network.id;
  run.guard.addNetwork(network.id);
  const info = await network.inspect();
  const gateway = info.IPAM?.Config?.find((config) => config.Gateway !== undefined)?.Gateway;
  if (gateway === undefined) throw new Error(`network ${name} has no IPv4 gateway`);
  return { id: network.id, name, gateway };
}

/** Fails with an explanation when the network's gateway is not an address of this machine. */
async function startOnGateway<T>(gateway: string, what: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') {
      throw new Error(
        `The container provider runs its ${what} on the Docker network's gateway (${gateway}), which is not an ` +
          'address of this machine: the engine runs elsewhere (a VM, Docker Desktop, a remote DOCKER_HOST). ' +
          'Use the native provider there.',
        { cause: error },
      );
    }
    throw error;
  }
}

async function ensureImage(image: string, present: boolean): Promise<void> {
  if (present) return;
  if (image === LOCAL_PROSODY_IMAGE) throw new Error(missingImageMessage(image, 'it has not been built'));
  try {
    const [{ ImageName }, client] = await Promise.all([loadTestcontainers(), dockerClient()]);
    await client.image.pull(ImageName.fromString(image));
  } catch (error) {
    throw new Error(
      missingImageMessage(
        image,
        `pulling it failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
      {
        cause: error,
      },
    );
  }
}

async function startContainerFederation(
  options: ContainerFederationOptions = {},
): Promise<ContainerFederation> {
  const startedAt = performance.now();
  if (options.serverA === 'ejabberd') {
    throw new Error(
      'The container provider runs Prosody only; ejabberd as server A needs the native provider.',
    );
  }
  if (options.pair === true) {
    throw new Error('The pair topology (a gateway on each server) runs on the native provider only.');
  }
  const withHostile = options.hostile ?? false;
  const roles = serverRoles(withHostile);
  const engine = await ensureDockerEngine({ start: options.startEngine ?? false });
  const resolved = await resolveProsodyImage(options.image);
  const build =
    options.buildImage === true &&
    !resolved.present &&
    resolved.reason !== 'option' &&
    resolved.reason !== PROSODY_IMAGE_ENV;
  const imageChoice = build ? { image: LOCAL_PROSODY_IMAGE, present: false } : resolved;
  const imageReady = build
    ? buildLocalProsodyImage().catch((error: unknown) => {
        throw new Error(
          missingImageMessage(
            LOCAL_PROSODY_IMAGE,
            `building it failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
          { cause: error },
        );
      })
    : ensureImage(imageChoice.image, imageChoice.present);
  imageReady.catch(() => undefined);

  const runId = randomBytes(4).toString('hex');
  const run = new ContainerRun(
    await mkdtemp(join(tmpdir(), 'agentconf-containers-')),
    options.keepRunDir ?? false,
    engine.connection,
  );
  let federation: ContainerFederation | undefined;
  const release = async (): Promise<void> => {
    if (federation !== undefined) removeLiveFederation(federation);
    await run.release();
  };

  try {
    const certsDir = join(run.dir, 'certs');
    await mkdir(certsDir, { mode: 0o700 });
    const certificatesIssued = createRunCertificates(
      certsDir,
      roles.map((role) => ({ name: `server-${role}`, domains: domainsServedBy(role) })),
    );
    certificatesIssued.catch(() => undefined);

    const labels = {
      [FEDERATION_LABEL]: runId,
      'org.agentconf.owner': `${hostname()}:${process.pid}`,
    };
    // One host address per server (its published ports) and one for the component proxy.
    const [network, addresses] = await Promise.all([
      createNetwork(run, `agentconf-${runId}`, labels),
      allocateLoopbackAddresses(roles.length + 1, SERVER_ADDRESS_PORTS),
    ]);
    run.addresses = addresses;
    const hostAddress = new Map<ServerRole, string>(
      roles.map((role, index) => [role, addresses[index] ?? '']),
    );
    const published = (role: ServerRole, port: number): Endpoint => ({
      host: hostAddress.get(role) ?? '',
      port,
    });

    await startOnGateway(network.gateway, 'DNS stubs and s2s fault proxies', async () => {
      // Each is registered as soon as it runs, so that a failure of another still releases it.
      await Promise.all(
        roles.map(async (role) => {
          run.stubs.set(role, await DnsStub.start(network.gateway));
        }),
      );
      const planned: { name: LinkName; listen: Endpoint; target: Endpoint }[] = [
        {
          name: 's2sAToB',
          listen: { host: network.gateway, port: 0 },
          target: published('b', FEDERATION_PORTS.s2s),
        },
        {
          name: 's2sBToA',
          listen: { host: network.gateway, port: 0 },
          target: published('a', FEDERATION_PORTS.s2s),
        },
        {
          name: 'component',
          listen: { host: addresses[roles.length] ?? '', port: FEDERATION_PORTS.component },
          target: published('b', FEDERATION_PORTS.component),
        },
      ];
      await Promise.all(
        planned.map(async (link) => {
          run.proxies.set(link.name, await startLinkProxy(link, options));
        }),
      );
    });

    // A reaches B's domains through s2sAToB, B reaches A's through s2sBToA; the hostile server's
    // routes (direct, container to container) are set once the containers have addresses.
    const routes = (role: ServerRole, domains: readonly string[], endpoint: Endpoint): void => {
      const table = new Map<string, DnsRecords>();
      for (const domain of domains)
        for (const [name, records] of s2sRecords(domain, endpoint)) table.set(name, records);
      run.stubs.get(role)?.set(table);
    };
    routes('a', domainsServedBy('b'), run.proxy('s2sAToB').listen);
    routes('b', domainsServedBy('a'), run.proxy('s2sBToA').listen);
    const routeHostile = (): void => {
      const addressOf = (role: ServerRole): string | undefined =>
        run.servers.find((server) => server.role === role)?.networkAddress;
      const hostile = addressOf('hostile');
      if (hostile === undefined) return;
      for (const role of ['a', 'b'] as const) {
        routes(role, domainsServedBy('hostile'), { host: hostile, port: FEDERATION_PORTS.s2s });
        const peer = addressOf(role);
        if (peer !== undefined)
          routes('hostile', domainsServedBy(role), { host: peer, port: FEDERATION_PORTS.s2s });
      }
    };

    const [certificates] = await Promise.all([certificatesIssued, imageReady]);
    const secret = options.component?.secret ?? randomBytes(18).toString('base64url');
    const caCertPath = certificates.ca.certPath;
    run.servers.push(
      ...(await Promise.all(
        roles.map(async (role) => {
          const dir = join(run.dir, `server-${role}`);
          await mkdir(dir, { mode: 0o750 });
          const certificate = certificates.leaves.get(`server-${role}`);
          const stub = run.stubs.get(role);
          if (certificate === undefined || stub === undefined)
            throw new Error(`server ${role} was not planned`);
          return ContainerServer.prepare({
            role,
            image: imageChoice.image,
            name: `agentconf-${runId}-${role}`,
            labels,
            networkName: network.name,
            hostDir: dir,
            certificate,
            caCertPath,
            hostAddress: hostAddress.get(role) ?? '',
            ports: FEDERATION_PORTS,
            virtualHosts: SERVED_DOMAINS[role].virtualHosts,
            components: componentSpecs(SERVED_DOMAINS[role].componentDomains, secret),
            resolver: stub.address,
            logLevel: options.logLevel ?? 'info',
            s2sTimeoutSeconds: options.s2sTimeoutSeconds ?? DEFAULT_S2S_TIMEOUT_SECONDS,
            iterationCount: options.scramIterations ?? SCRAM_ITERATION_COUNT,
            blockingUnenforcedFor: blockingUnenforcedFor(role),
            readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
            guard: run.guard,
            onStarted: routeHostile,
          });
        }),
      )),
    );
    const [a, b, hostile] = run.servers;
    if (a === undefined || b === undefined) throw new Error('servers A and B were not prepared');

    const componentProxy = run.proxy('component');
    federation = new ContainerFederation(
      { a, b, ...(hostile === undefined ? {} : { hostile }) },
      {
        domain: FEDERATION_DOMAINS.component,
        secret,
        host: componentProxy.listen.host,
        port: componentProxy.listen.port,
        direct: componentProxy.target,
      },
      faultLinks(run.proxies),
      caCertPath,
      run.dir,
      release,
      imageChoice.image,
      network.name,
      engine,
      runId,
    );
    return await bootFederation(
      federation,
      run.servers,
      options.accounts ?? defaultAccounts(withHostile),
      startedAt,
      options.whileBooting,
    );
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

export interface ContainerProvider extends ServerProvider {
  start(options?: ContainerFederationOptions): Promise<ContainerFederation>;
}

export const containerProvider: ContainerProvider = { name: 'container', start: startContainerFederation };
