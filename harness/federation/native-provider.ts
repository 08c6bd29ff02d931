// The `native` provider: Debian's Prosody as ordinary processes on fresh loopback addresses, one
// per server, with a fault proxy on each s2s direction and on the component link.
//
//   alice@example.com ── server A ──[proxy s2sAToB]──▶ server B (server.example, agents.example)
//                         ▲                                  │          ▲
//                         └────────[proxy s2sBToA]◀──────────┘   [proxy component] ◀── gateway
//
// A resolves server.example/agents.example to the s2sAToB proxy and B resolves example.com to the
// s2sBToA proxy (each server has its own hosts file), so every s2s byte crosses a proxy.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FaultProxy } from '../faults/fault-proxy.ts';
import { createRunCertificates, type RunCertificates } from './certificates.ts';
import { EJABBERD, ensureProsody, ensureSoftware } from './debian-packages.ts';
import { FEDERATION_DOMAINS, PAIR_COMPONENT_DOMAIN } from './domains.ts';
import { EjabberdServer } from './ejabberd-server.ts';
import { registerExitCleanup } from './exit-cleanup.ts';
import {
  EJABBERD_API_PORT,
  FEDERATION_PORTS,
  SERVER_ADDRESS_PORTS,
  addressesNeeded,
  blockingUnenforcedFor,
  componentSpecs,
  domainsServedBy,
  planTopology,
  serverRoles,
  type LinkName,
  type PlannedServer,
} from './federation-topology.ts';
import { removeLiveFederation } from './live-federations.ts';
import { guardDirectory, releaseDirectory } from './orphan-watchdog.ts';
import { allocateLoopbackAddresses, deadUdpPort, releaseLoopbackAddresses } from './loopback-addresses.ts';
import { NativeFederation } from './native-federation.ts';
import { SCRAM_ITERATION_COUNT } from './prosody-accounts.ts';
import { bootFederation, faultLinks, proxyOf, startLinkProxy } from './run-boot.ts';
import type { NativeServer } from './native-server.ts';
import { ProsodyServer } from './prosody-server.ts';
import type {
  AccountRequest,
  ComponentLink,
  Federation,
  FederationOptions,
  ServerProvider,
} from './server-provider.ts';

const DEFAULT_S2S_TIMEOUT_SECONDS = 10;
const DEFAULT_READY_TIMEOUT_MS = 20_000;

function defaultAccounts(withHostile: boolean): AccountRequest[] {
  const { remote, local, hostile } = FEDERATION_DOMAINS;
  const accounts: AccountRequest[] = [
    { username: 'alice', domain: remote },
    { username: 'bob', domain: local },
  ];
  if (withHostile) accounts.push({ username: 'mallory', domain: hostile });
  return accounts;
}

/** Everything a run holds, released in reverse: proxies, processes, directory, addresses. */
class RunResources {
  readonly proxies = new Map<LinkName, FaultProxy>();
  readonly servers: NativeServer[] = [];
  addresses: readonly string[] = [];
  readonly #forgetDir: () => void;

  constructor(
    readonly dir: string,
    private readonly keepDir: boolean,
  ) {
    this.#forgetDir = registerExitCleanup(() => {
      if (!keepDir) rmSync(dir, { recursive: true, force: true });
    });
    if (!keepDir) guardDirectory(dir);
  }

  proxy(name: LinkName): FaultProxy {
    return proxyOf(this.proxies, name);
  }

  async release(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
    await Promise.all(this.servers.map((server) => server.kill9()));
    if (!this.keepDir) {
      await rm(this.dir, { recursive: true, force: true });
      releaseDirectory(this.dir);
    }
    this.#forgetDir();
    releaseLoopbackAddresses(this.addresses);
  }
}

interface ServerContext {
  readonly prosody: string;
  /** The Erlang runtime, when server A is ejabberd. */
  readonly erl: string | undefined;
  readonly certificates: RunCertificates;
  readonly secret: string;
  /** The second gateway's own component secret, in a pair topology. */
  readonly pairSecret: string | undefined;
  readonly options: FederationOptions;
}

async function prepareServer(
  run: RunResources,
  planned: PlannedServer,
  context: ServerContext,
): Promise<NativeServer> {
  const { options } = context;
  const dir = join(run.dir, `server-${planned.role}`);
  await mkdir(dir, { mode: 0o750 });
  const certificate = context.certificates.leaves.get(`server-${planned.role}`);
  if (certificate === undefined) throw new Error(`no certificate was issued for server ${planned.role}`);
  const common = {
    role: planned.role,
    dir,
    address: planned.address,
    virtualHosts: planned.virtualHosts,
    certificate,
    caCertPath: context.certificates.ca.certPath,
    routes: planned.routes,
    logLevel: options.logLevel ?? 'info',
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
  };
  const components = componentSpecs(planned.componentDomains, context.secret, context.pairSecret);
  if (planned.role === 'a' && context.erl !== undefined) {
    return EjabberdServer.prepare({
      ...common,
      erl: context.erl,
      ports: { ...FEDERATION_PORTS, api: EJABBERD_API_PORT },
      components,
    });
  }
  return ProsodyServer.prepare({
    ...common,
    executable: context.prosody,
    ports: FEDERATION_PORTS,
    components,
    hostsFile: join(dir, 'hosts'),
    deadResolver: { address: planned.address, port: await deadUdpPort(planned.address) },
    runAsRoot: process.getuid?.() === 0,
    s2sTimeoutSeconds: options.s2sTimeoutSeconds ?? DEFAULT_S2S_TIMEOUT_SECONDS,
    iterationCount: options.scramIterations ?? SCRAM_ITERATION_COUNT,
    blockingUnenforcedFor: blockingUnenforcedFor(planned.role),
  });
}

function pairComponentLink(proxy: FaultProxy, secret: string): ComponentLink {
  return {
    domain: PAIR_COMPONENT_DOMAIN,
    secret,
    host: proxy.listen.host,
    port: proxy.listen.port,
    direct: proxy.target,
  };
}

async function startNativeFederation(options: FederationOptions = {}): Promise<Federation> {
  const startedAt = performance.now();
  const withHostile = options.hostile ?? false;
  const withPair = options.pair ?? false;
  // Finding (or installing) the servers and issuing certificates overlap with the rest of the preparation.
  const softwareFound = Promise.all([
    ensureProsody(),
    options.serverA === 'ejabberd' ? ensureSoftware(EJABBERD) : undefined,
  ]);
  softwareFound.catch(() => undefined);
  const run = new RunResources(
    await mkdtemp(join(tmpdir(), 'agentconf-federation-')),
    options.keepRunDir ?? false,
  );
  let federation: NativeFederation | undefined;
  const release = async (): Promise<void> => {
    if (federation !== undefined) removeLiveFederation(federation);
    await run.release();
  };

  try {
    const certsDir = join(run.dir, 'certs');
    await mkdir(certsDir, { mode: 0o700 });
    const certificatesIssued = createRunCertificates(
      certsDir,
      serverRoles(withHostile).map((role) => ({
        name: `server-${role}`,
        domains: domainsServedBy(role, withPair),
      })),
    );
    certificatesIssued.catch(() => undefined);

    run.addresses = await allocateLoopbackAddresses(
      addressesNeeded(withHostile, withPair),
      SERVER_ADDRESS_PORTS,
    );
    const topology = planTopology(run.addresses, withHostile, withPair);
    // Each is registered as soon as it runs, so that a failure of another still releases it.
    await Promise.all(
      topology.links.map(async (link) => {
        run.proxies.set(link.name, await startLinkProxy(link, options));
      }),
    );

    const [certificates, [prosody, erl]] = await Promise.all([certificatesIssued, softwareFound]);
    const secret = options.component?.secret ?? randomBytes(18).toString('base64url');
    const pairSecret = withPair ? randomBytes(18).toString('base64url') : undefined;
    const context = { prosody, erl, certificates, secret, pairSecret, options };
    run.servers.push(
      ...(await Promise.all(topology.servers.map((planned) => prepareServer(run, planned, context)))),
    );
    const [a, b, hostile] = run.servers;
    if (a === undefined || b === undefined) throw new Error('servers A and B were not prepared');

    const componentProxy = run.proxy('component');
    federation = new NativeFederation(
      { a, b, ...(hostile === undefined ? {} : { hostile }) },
      {
        domain: FEDERATION_DOMAINS.component,
        secret: context.secret,
        host: componentProxy.listen.host,
        port: componentProxy.listen.port,
        direct: componentProxy.target,
      },
      faultLinks(run.proxies),
      certificates.ca.certPath,
      run.dir,
      release,
      pairSecret === undefined ? undefined : pairComponentLink(run.proxy('pairComponent'), pairSecret),
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

export const nativeProvider: ServerProvider = { name: 'native', start: startNativeFederation };
