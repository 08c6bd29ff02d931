// ejabberd as a server of a run: a plain Erlang node (no epmd, no distribution) in a private mount
// namespace whose /etc/hosts is the run's, with accounts created over its HTTP API.
import { mkdir, readFile, writeFile } from 'node:fs/promises';

import type { Endpoint } from '../faults/fault-proxy.ts';
import { ManagedProcess } from '../faults/managed-process.ts';
import { findOnPath } from './debian-packages.ts';
import {
  ejabberdPaths,
  renderEjabberdConfig,
  renderErlangInetrc,
  renderMountedHostsFile,
  type EjabberdInstanceSpec,
} from './ejabberd-config.ts';
import { readLogFile, waitUntilServing, type NativeServer } from './native-server.ts';
import type { ServerRole } from './server-provider.ts';
import type { StreamProbe } from './xmpp-readiness.ts';

export interface EjabberdServerSpec extends EjabberdInstanceSpec {
  readonly role: ServerRole;
  /** The `erl` executable. */
  readonly erl: string;
  readonly routes: ReadonlyMap<string, string>;
  readonly readyTimeoutMs: number;
}

/** Where Debian's ejabberd keeps its Erlang applications: ejabberdctl knows. */
async function erlangLibraries(): Promise<string> {
  const ctl = await readFile('/usr/sbin/ejabberdctl', 'utf8').catch(() => '');
  return /^ERL_LIBS='([^']+)'/m.exec(ctl)?.[1] ?? '/usr/lib/x86_64-linux-gnu';
}

export class EjabberdServer implements NativeServer {
  readonly implementation = 'ejabberd';
  /** ejabberd filters the component's messages by its users' blocklists and has no block-state query. */
  readonly leavesBlockingToSender = false;
  readonly role: ServerRole;
  readonly address: string;
  readonly domains: readonly string[];
  readonly virtualHosts: readonly string[];
  readonly c2s: Endpoint;
  readonly c2sDirectTls: Endpoint;
  readonly s2s: Endpoint;
  readonly configPath: string;
  readonly logPath: string;
  readonly #spec: EjabberdServerSpec;
  readonly #api: string;
  /** Every account ever added: Mnesia may not keep them across a restart, so they are re-registered. */
  readonly #accounts = new Map<string, { username: string; domain: string; password: string }>();
  #process: ManagedProcess | undefined;
  #serving = false;

  private constructor(spec: EjabberdServerSpec) {
    this.#spec = spec;
    this.role = spec.role;
    this.address = spec.address;
    this.domains = [...spec.virtualHosts, ...(spec.components ?? []).map((component) => component.domain)];
    this.virtualHosts = spec.virtualHosts;
    this.c2s = { host: spec.address, port: spec.ports.c2s };
    this.c2sDirectTls = { host: spec.address, port: spec.ports.c2sDirectTls };
    this.s2s = { host: spec.address, port: spec.ports.s2s };
    const paths = ejabberdPaths(spec.dir);
    this.configPath = paths.config;
    this.logPath = paths.log;
    this.#api = `http://${spec.address}:${spec.ports.api}/api`;
  }

  static async prepare(spec: EjabberdServerSpec): Promise<EjabberdServer> {
    if (/["\\\s]/.test(spec.dir))
      throw new Error(`ejabberd cannot use the directory ${JSON.stringify(spec.dir)}`);
    const server = new EjabberdServer(spec);
    const paths = ejabberdPaths(spec.dir);
    await mkdir(paths.db, { recursive: true, mode: 0o750 });
    const machineHosts = await readFile('/etc/hosts', 'utf8').catch(() => '127.0.0.1 localhost\n');
    await Promise.all([
      writeFile(paths.config, renderEjabberdConfig(spec), { mode: 0o640 }),
      writeFile(paths.inetrc, renderErlangInetrc()),
      writeFile(paths.hosts, renderMountedHostsFile(machineHosts, spec.routes)),
    ]);
    return server;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  async addAccount(username: string, domain: string, password: string): Promise<void> {
    this.#accounts.set(`${username}@${domain}`, { username, domain, password });
    if (this.#serving) await this.#register(username, domain, password);
  }

  async #command(name: string, body: Record<string, string>): Promise<{ ok: boolean; text: string }> {
    const response = await fetch(`${this.#api}/${name}`, { method: 'POST', body: JSON.stringify(body) });
    return { ok: response.ok, text: await response.text() };
  }

  async #register(user: string, host: string, password: string): Promise<void> {
    const registered = await this.#command('register', { user, host, password });
    if (registered.ok) return;
    // An account that exists gets the new password: adding an account means replacing it.
    const changed = await this.#command('change_password', { user, host, newpass: password });
    if (!changed.ok) {
      throw new Error(`ejabberd refused the account ${user}@${host}: ${registered.text} / ${changed.text}`);
    }
  }

  async start(): Promise<void> {
    this.#serving = false;
    if (this.#process === undefined) this.#process = await this.#spawn();
    else await this.#process.restart();
    await waitUntilServing(this.#process, this.#probes(), this.#spec.readyTimeoutMs, () => this.readLog());
    this.#serving = true;
    await Promise.all(
      [...this.#accounts.values()].map(({ username, domain, password }) =>
        this.#register(username, domain, password),
      ),
    );
  }

  async #spawn(): Promise<ManagedProcess> {
    const spec = this.#spec;
    const paths = ejabberdPaths(spec.dir);
    const unshare = await findOnPath('unshare');
    if (unshare === undefined) throw new Error('ejabberd as server A needs unshare (util-linux)');
    // Without root, a user namespace grants the right to mount inside the new mount namespace.
    const namespaces = process.getuid?.() === 0 ? ['--mount'] : ['--user', '--map-root-user', '--mount'];
    return ManagedProcess.start({
      name: `ejabberd (server ${this.role})`,
      command: unshare,
      args: [
        ...namespaces,
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        'mount --bind "$0" /etc/hosts && exec "$@"',
        paths.hosts,
        spec.erl,
        '-noinput',
        '-mnesia',
        'dir',
        `"${paths.db}"`,
        '-s',
        'ejabberd',
      ],
      cwd: spec.dir,
      env: {
        EJABBERD_CONFIG_PATH: paths.config,
        EJABBERD_LOG_PATH: paths.log,
        ERL_LIBS: await erlangLibraries(),
        ERL_INETRC: paths.inetrc,
        ERL_CRASH_DUMP_BYTES: '0',
        HOME: spec.dir,
      },
    });
  }

  /**
   * Every virtual host on c2s and s2s, and the component port accepting each component's secret.
   * A component domain is not probed on s2s: ejabberd routes it only while the component is
   * connected, which the gateway does after the start.
   */
  #probes(): StreamProbe[] {
    const spec = this.#spec;
    return [
      ...this.virtualHosts.flatMap((domain) => [
        { endpoint: this.c2s, domain, namespace: 'jabber:client' as const },
        { endpoint: this.s2s, domain, namespace: 'jabber:server' as const },
      ]),
      ...(spec.components ?? []).map(({ domain, secret }) => ({
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
    this.#serving = false;
    await this.#process?.kill9();
  }

  async restart(): Promise<void> {
    await this.start();
  }
}
