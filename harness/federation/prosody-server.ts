// One Prosody process of a run: its generated files, the process itself, and readiness.
import { mkdir, writeFile } from 'node:fs/promises';

import type { Endpoint } from '../faults/fault-proxy.ts';
import { ManagedProcess } from '../faults/managed-process.ts';
import { readLogFile, waitUntilServing, type NativeServer } from './native-server.ts';
import { writeProsodyAccount } from './prosody-accounts.ts';
import { installProsodyPlugins } from './prosody-plugins.ts';
import {
  prosodyPaths,
  renderHostsFile,
  renderProsodyConfig,
  type ProsodyInstanceSpec,
} from './prosody-config.ts';
import { leavesBlockingToSender } from './federation-topology.ts';
import type { ServerRole } from './server-provider.ts';
import type { StreamProbe } from './xmpp-readiness.ts';

export interface ProsodyServerSpec extends ProsodyInstanceSpec {
  readonly role: ServerRole;
  readonly executable: string;
  /** Where this server finds every domain of the federation (its own, peers, proxies). */
  readonly routes: ReadonlyMap<string, string>;
  readonly readyTimeoutMs: number;
}

export class ProsodyServer implements NativeServer {
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
  readonly configPath: string;
  readonly logPath: string;
  readonly dataPath: string;
  readonly #spec: ProsodyServerSpec;
  #process: ManagedProcess | undefined;

  private constructor(spec: ProsodyServerSpec) {
    this.#spec = spec;
    this.role = spec.role;
    this.address = spec.address;
    this.virtualHosts = spec.virtualHosts;
    this.domains = [...spec.virtualHosts, ...spec.components.map((component) => component.domain)];
    this.c2s = { host: spec.address, port: spec.ports.c2s };
    this.c2sDirectTls = { host: spec.address, port: spec.ports.c2sDirectTls };
    this.s2s = { host: spec.address, port: spec.ports.s2s };
    const paths = prosodyPaths(spec.dir);
    this.configPath = paths.config;
    this.logPath = paths.log;
    this.dataPath = paths.data;
  }

  /** Writes the instance's files; the server is not started yet (accounts can be added first). */
  static async prepare(spec: ProsodyServerSpec): Promise<ProsodyServer> {
    const server = new ProsodyServer(spec);
    await mkdir(server.dataPath, { recursive: true, mode: 0o750 });
    await Promise.all([
      writeFile(spec.hostsFile, renderHostsFile(spec.routes)),
      writeFile(server.configPath, renderProsodyConfig(spec), { mode: 0o640 }),
      installProsodyPlugins(spec.dir),
    ]);
    return server;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** Accounts are files in the data directory, read at every login: no need for the server to run. */
  async addAccount(username: string, domain: string, password: string): Promise<void> {
    await writeProsodyAccount(this.dataPath, domain, username, password, this.#spec.iterationCount);
  }

  async start(): Promise<void> {
    if (this.#process === undefined) {
      this.#process = await ManagedProcess.start({
        name: `prosody (server ${this.role})`,
        command: this.#spec.executable,
        args: ['--config', this.configPath, '-F'],
        cwd: this.#spec.dir,
      });
    } else {
      await this.#process.restart();
    }
    await waitUntilServing(this.#process, this.#probes(), this.#spec.readyTimeoutMs, () => this.readLog());
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
        endpoint: { host: spec.address, port: spec.ports.component },
        domain,
        namespace: 'jabber:component:accept' as const,
        secret,
      })),
    ];
  }

  readLog(): Promise<string> {
    return readLogFile(this.logPath);
  }

  async kill9(): Promise<void> {
    await this.#process?.kill9();
  }

  async restart(): Promise<void> {
    await this.start();
  }
}
