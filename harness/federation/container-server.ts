// One Prosody server of a container federation: its generated files (staged in the run directory
// and copied into the container), the container itself, and readiness.
//
// Inside the container everything lives under /agentconf: the server's directory (config, data
// with the accounts, an empty unbound hosts file) and the certificates. Its ports are published on
// a fresh loopback address of the host (like the native provider's server addresses, so restarts
// keep them and parallel runs never meet); its resolver is the run's DNS stub for this server.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';

import type { StartedTestContainer, WaitStrategy } from 'testcontainers';

import type { Endpoint } from '../faults/fault-proxy.ts';
import type { DockerResourceGuard } from '../containers/container-cleanup.ts';
import { dockerClient, loadTestcontainers } from '../containers/testcontainers-loader.ts';
import type { KeyPair } from './certificates.ts';
import type { NativeServer } from './native-server.ts';
import { accountFilePath, writeProsodyAccount } from './prosody-accounts.ts';
import { prosodyPaths, renderHostsFile, renderProsodyConfig, type ProsodyPorts } from './prosody-config.ts';
import { installProsodyPlugins } from './prosody-plugins.ts';
import { leavesBlockingToSender } from './federation-topology.ts';
import type { ServerRole } from './server-provider.ts';
import { waitForXmppStreams, type StreamProbe } from './xmpp-readiness.ts';

/** Where the generated files live inside every server container. */
export const CONTAINER_ROOT = '/agentconf';
const SERVER_DIR = `${CONTAINER_ROOT}/server`;
const CERTS_DIR = `${CONTAINER_ROOT}/certs`;

export interface ContainerServerSpec {
  readonly role: ServerRole;
  readonly image: string;
  /** Container name; also what `docker ps` shows a person. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly networkName: string;
  /** Staging directory on the host, copied to /agentconf/server when the container is created. */
  readonly hostDir: string;
  readonly certificate: KeyPair;
  readonly caCertPath: string;
  /** Host loopback address on which the container's ports are published (same port numbers). */
  readonly hostAddress: string;
  readonly ports: ProsodyPorts;
  readonly virtualHosts: readonly string[];
  readonly components: readonly {
    readonly domain: string;
    readonly secret: string;
    readonly listed?: boolean;
  }[];
  /** The run's DNS stub for this server, as the container reaches it. */
  readonly resolver: Endpoint;
  readonly logLevel: 'debug' | 'info';
  readonly s2sTimeoutSeconds: number;
  readonly iterationCount: number;
  /** prosody-config.ts `blockingUnenforcedFor`. */
  readonly blockingUnenforcedFor?: readonly string[];
  readonly readyTimeoutMs: number;
  readonly guard: DockerResourceGuard;
  /** Called after every start, once the container's network address is known. */
  readonly onStarted?: () => void;
}

/** testcontainers' own waiting is replaced by XMPP probes (see ContainerServer#waitUntilReady). */
class NoWait implements WaitStrategy {
  #timeout = 60_000;
  waitUntilReady(): Promise<void> {
    return Promise.resolve();
  }
  withStartupTimeout(startupTimeoutMs: number): WaitStrategy {
    this.#timeout = startupTimeoutMs;
    return this;
  }
  isStartupTimeoutSet(): boolean {
    return true;
  }
  getStartupTimeout(): number {
    return this.#timeout;
  }
}

type PortBindings = Record<string, { HostIp?: string; HostPort?: string }[] | undefined>;

/** A GenericContainer publishing on one host address only (testcontainers binds every interface). */
async function prosodyContainer(image: string, hostAddress: string, created: (id: string) => void) {
  const { GenericContainer } = await loadTestcontainers();
  class ProsodyContainer extends GenericContainer {
    /** Known (and removable) from its creation on, even if starting it fails. */
    protected override containerCreated(containerId: string): Promise<void> {
      created(containerId);
      return Promise.resolve();
    }

    protected override beforeContainerCreated(): Promise<void> {
      const bindings = (this.hostConfig.PortBindings ?? {}) as PortBindings;
      for (const list of Object.values(bindings))
        for (const binding of list ?? []) binding.HostIp = hostAddress;
      return Promise.resolve();
    }
  }
  return new ProsodyContainer(image);
}

/** The engine's handle of a container (dockerode's, as testcontainers' client gives it). */
async function engineContainer(id: string) {
  return (await dockerClient()).container.getById(id);
}

/** Resolves with the exit code once the container is not running (at once if it is not). */
async function waitForExit(id: string, signal?: AbortSignal): Promise<number> {
  const container = await engineContainer(id);
  const condition = 'not-running';
  const result = (await container.wait(
    signal === undefined ? { condition } : { condition, abortSignal: signal },
  )) as { StatusCode?: unknown };
  return typeof result.StatusCode === 'number' ? result.StatusCode : -1;
}

/** Everything the container wrote to stdout and stderr, of every run (it may be stopped). */
export async function containerLog(id: string): Promise<string> {
  const client = await dockerClient();
  const frames = await client.container.getById(id).logs({ stdout: true, stderr: true, follow: false });
  // Without a TTY the engine multiplexes both streams into frames; dockerode splits them.
  const merged = new PassThrough();
  const source = Readable.from([frames]);
  client.container.dockerode.modem.demuxStream(source, merged, merged);
  source.on('end', () => merged.end());
  return text(merged);
}

export class ContainerExitedError extends Error {
  constructor(container: string, code: number, log: string) {
    super(`container ${container} exited (code ${code}) while it was awaited; log:\n${log.slice(-4000)}`);
    this.name = 'ContainerExitedError';
  }
}

export class ContainerServer implements NativeServer {
  readonly implementation = 'prosody';
  readonly role: ServerRole;
  get leavesBlockingToSender(): boolean {
    return leavesBlockingToSender(this.role, this.implementation);
  }
  readonly address: string;
  readonly domains: readonly string[];
  readonly virtualHosts: readonly string[];
  readonly c2s: Endpoint;
  readonly c2sDirectTls: Endpoint;
  readonly s2s: Endpoint;
  /** The generated configuration, on the host (its paths are those inside the container). */
  readonly configPath: string;
  /** Refreshed from the engine's log of the container at every `readLog()`. */
  readonly logPath: string;
  readonly image: string;
  readonly containerName: string;
  readonly #spec: ContainerServerSpec;
  readonly #dataPath: string;
  #container: StartedTestContainer | undefined;
  #containerId: string | undefined;
  #pid: number | undefined;
  #networkAddress: string | undefined;

  private constructor(spec: ContainerServerSpec) {
    this.#spec = spec;
    this.role = spec.role;
    this.address = spec.hostAddress;
    this.image = spec.image;
    this.containerName = spec.name;
    this.virtualHosts = spec.virtualHosts;
    this.domains = [...spec.virtualHosts, ...spec.components.map((component) => component.domain)];
    this.c2s = { host: spec.hostAddress, port: spec.ports.c2s };
    this.c2sDirectTls = { host: spec.hostAddress, port: spec.ports.c2sDirectTls };
    this.s2s = { host: spec.hostAddress, port: spec.ports.s2s };
    const paths = prosodyPaths(spec.hostDir);
    this.configPath = paths.config;
    this.logPath = paths.log;
    this.#dataPath = paths.data;
  }

  /** Writes the server's files into its staging directory; the container is created by `start()`. */
  static async prepare(spec: ContainerServerSpec): Promise<ContainerServer> {
    const server = new ContainerServer(spec);
    await mkdir(server.#dataPath, { recursive: true, mode: 0o750 });
    const config = renderProsodyConfig({
      dir: SERVER_DIR,
      address: '*',
      ports: spec.ports,
      virtualHosts: spec.virtualHosts,
      components: spec.components,
      certificate: { certPath: `${CERTS_DIR}/server.crt`, keyPath: `${CERTS_DIR}/server.key` },
      caCertPath: `${CERTS_DIR}/ca.crt`,
      hostsFile: `${SERVER_DIR}/hosts`,
      // Not a dead resolver here: the stub answers every name, at once.
      deadResolver: { address: spec.resolver.host, port: spec.resolver.port },
      runAsRoot: true,
      logLevel: spec.logLevel,
      logToConsole: true,
      s2sTimeoutSeconds: spec.s2sTimeoutSeconds,
      iterationCount: spec.iterationCount,
      ...(spec.blockingUnenforcedFor === undefined
        ? {}
        : { blockingUnenforcedFor: spec.blockingUnenforcedFor }),
    });
    await Promise.all([
      writeFile(server.configPath, config, { mode: 0o640 }),
      installProsodyPlugins(spec.hostDir),
      // Every name comes from the stub; unbound still wants a hosts file to read.
      writeFile(join(spec.hostDir, 'hosts'), renderHostsFile(new Map())),
    ]);
    return server;
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  /** Engine id of the container (undefined before the first start). */
  get containerId(): string | undefined {
    return this.#containerId;
  }

  /** The container's address on the run's network (changes only if the container is restarted). */
  get networkAddress(): string | undefined {
    return this.#networkAddress;
  }

  /** Creates or replaces an account; copied into the container at once when it exists. */
  async addAccount(username: string, domain: string, password: string): Promise<void> {
    await writeProsodyAccount(this.#dataPath, domain, username, password, this.#spec.iterationCount);
    if (this.#container === undefined) return;
    const hostPath = accountFilePath(this.#dataPath, domain, username);
    const target = accountFilePath(`${SERVER_DIR}/data`, domain, username);
    await this.#container.copyFilesToContainer([{ source: hostPath, target }]);
  }

  async start(): Promise<void> {
    const spec = this.#spec;
    if (this.#container === undefined) {
      // Each published port costs a docker-proxy process: the component port only where there is one.
      const ports = [spec.ports.c2s, spec.ports.c2sDirectTls, spec.ports.s2s];
      if (spec.components.length > 0) ports.push(spec.ports.component);
      const container = (
        await prosodyContainer(spec.image, spec.hostAddress, (id) => {
          this.#containerId = id;
          spec.guard.addContainer(id);
        })
      )
        .withName(spec.name)
        .withLabels(spec.labels)
        .withNetworkMode(spec.networkName)
        .withNetworkAliases(...this.domains)
        .withUser('0')
        .withEntrypoint(['prosody'])
        .withCommand(['--config', `${SERVER_DIR}/prosody.cfg.lua`, '-F'])
        // The console log is line-buffered only with this (as in the official image).
        .withEnvironment({ __FLUSH_LOG: 'yes' })
        .withExposedPorts(...ports.map((port) => ({ container: port, host: port })))
        .withCopyDirectoriesToContainer([{ source: spec.hostDir, target: SERVER_DIR }])
        .withCopyFilesToContainer([
          { source: spec.caCertPath, target: `${CERTS_DIR}/ca.crt` },
          { source: spec.certificate.certPath, target: `${CERTS_DIR}/server.crt` },
          { source: spec.certificate.keyPath, target: `${CERTS_DIR}/server.key`, mode: 0o600 },
        ])
        .withAutoCleanup(false)
        .withWaitStrategy(new NoWait());
      this.#container = await container.start();
    } else {
      await this.kill9();
      await (await engineContainer(this.#container.getId())).start();
    }
    await this.#inspect();
    this.#spec.onStarted?.();
    await this.#waitUntilReady();
  }

  async #inspect(): Promise<void> {
    const id = this.containerId;
    if (id === undefined) return;
    const info = await (await engineContainer(id)).inspect();
    this.#pid = info.State.Pid === 0 ? undefined : info.State.Pid;
    this.#networkAddress = info.NetworkSettings.Networks[this.#spec.networkName]?.IPAddress;
  }

  /** Every domain on every port it must answer on; the component port must accept the secret. */
  #probes(): StreamProbe[] {
    const spec = this.#spec;
    return [
      ...spec.virtualHosts.map((domain) => ({
        endpoint: this.c2s,
        domain,
        namespace: 'jabber:client' as const,
      })),
      ...this.domains.map((domain) => ({ endpoint: this.s2s, domain, namespace: 'jabber:server' as const })),
      ...spec.components.map(({ domain, secret }) => ({
        endpoint: { host: spec.hostAddress, port: spec.ports.component },
        domain,
        namespace: 'jabber:component:accept' as const,
        secret,
      })),
    ];
  }

  /** Probes until ready; fails fast, with the container's log, if the container stops meanwhile. */
  async #waitUntilReady(): Promise<void> {
    const id = this.containerId;
    if (id === undefined) throw new Error('no container to wait for');
    const controller = new AbortController();
    const stopped = waitForExit(id, controller.signal).then(async (code): Promise<never> => {
      throw new ContainerExitedError(this.containerName, code, await this.readLog());
    });
    stopped.catch(() => undefined);
    try {
      await waitForXmppStreams(this.#probes(), {
        deadline: Date.now() + this.#spec.readyTimeoutMs,
        abandon: stopped,
      });
    } catch (error) {
      if (error instanceof ContainerExitedError) throw error;
      const log = (await this.readLog()).slice(-4000);
      throw new Error(`${this.containerName} did not become ready; log:\n${log}`, { cause: error });
    } finally {
      controller.abort();
    }
  }

  async readLog(): Promise<string> {
    const id = this.containerId;
    if (id === undefined) return '';
    try {
      const log = await containerLog(id);
      await writeFile(this.logPath, log);
      return log;
    } catch {
      return '';
    }
  }

  /** SIGKILL to Prosody (the container's first process): the container stops, its files stay. */
  async kill9(): Promise<void> {
    const id = this.containerId;
    if (id === undefined) return;
    try {
      await (await engineContainer(id)).kill({ signal: 'KILL' });
    } catch (error) {
      // 409: not running (killed before, or exited by itself).
      if ((error as { statusCode?: unknown }).statusCode !== 409) {
        throw new Error(
          `killing ${this.containerName}: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        );
      }
    }
    await waitForExit(id);
  }

  async restart(): Promise<void> {
    await this.start();
  }
}
