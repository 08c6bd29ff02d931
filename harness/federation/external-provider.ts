// The `external` provider: servers that are already running, described by a config object
// (addresses, domains, accounts, component secret). It wraps those facts into the Federation shape
// and nothing more: it starts nothing, stops nothing (stop() only marks the handle stopped), creates
// no accounts, and has no fault links (the links are not ours to put a proxy on): `links` throws,
// as do `kill9()` and `restart()` of its servers. Nothing is probed: start() resolves at once.
import type { Endpoint } from '../faults/fault-proxy.ts';
import { FEDERATION_DOMAINS, type FederationDomains } from './domains.ts';
import { FEDERATION_PORTS } from './federation-topology.ts';
import type {
  Account,
  ComponentLink,
  Federation,
  FederationLinks,
  FederationOptions,
  FederationServer,
  FederationTimings,
  ServerImplementation,
  ServerProvider,
  ServerRole,
} from './server-provider.ts';

export interface ExternalServerConfig {
  /** Where clients and probes reach the server (name or address). */
  readonly host: string;
  /** Domains with user accounts (its virtual hosts). Default: the role's domain from `domains`. */
  readonly domains?: readonly string[];
  readonly c2sPort?: number;
  readonly c2sDirectTlsPort?: number;
  readonly s2sPort?: number;
  readonly implementation?: ServerImplementation;
  /**
   * Server A answers agentconf's block-state query and leaves XEP-0191 on the component's
   * messages to the sender. Never assumed: without it the blocking cases cannot tell.
   */
  readonly leavesBlockingToSender?: boolean;
}

export interface ExternalAccountConfig {
  readonly jid: string;
  readonly password: string;
}

export interface ExternalFederationConfig {
  /** The four domain roles (default: example.com, server.example, agents.example, hostile.example). */
  readonly domains?: Partial<FederationDomains>;
  readonly servers: {
    readonly a: ExternalServerConfig;
    readonly b: ExternalServerConfig;
    readonly hostile?: ExternalServerConfig;
  };
  /** Where the gateway connects as a XEP-0114 component (on server B), and its secret. */
  readonly component: { readonly host: string; readonly port?: number; readonly secret: string };
  readonly accounts: readonly ExternalAccountConfig[];
  /** PEM file of the CA the servers' certificates chain to (clients must trust it). */
  readonly caCertPath: string;
}

export class ExternalConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid external federation config:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ExternalConfigError';
  }
}

function notOurs(what: string): Error {
  return new Error(`the external provider does not control its servers: ${what} is not available`);
}

class ExternalServer implements FederationServer {
  readonly pid = undefined;
  readonly configPath = '';
  readonly logPath = '';
  readonly address: string;
  readonly c2s: Endpoint;
  readonly c2sDirectTls: Endpoint;
  readonly s2s: Endpoint;
  readonly implementation: ServerImplementation;
  readonly leavesBlockingToSender: boolean;

  constructor(
    readonly role: ServerRole,
    config: ExternalServerConfig,
    /** Domains with accounts. */
    readonly virtualHosts: readonly string[],
    readonly domains: readonly string[],
  ) {
    this.address = config.host;
    this.implementation = config.implementation ?? 'prosody';
    this.leavesBlockingToSender = config.leavesBlockingToSender === true;
    this.c2s = { host: config.host, port: config.c2sPort ?? FEDERATION_PORTS.c2s };
    this.c2sDirectTls = { host: config.host, port: config.c2sDirectTlsPort ?? FEDERATION_PORTS.c2sDirectTls };
    this.s2s = { host: config.host, port: config.s2sPort ?? FEDERATION_PORTS.s2s };
  }

  readLog(): Promise<string> {
    return Promise.resolve('');
  }

  kill9(): Promise<void> {
    return Promise.reject(notOurs('kill9()'));
  }

  restart(): Promise<void> {
    return Promise.reject(notOurs('restart()'));
  }
}

function isPort(value: number | undefined): boolean {
  return value === undefined || (Number.isInteger(value) && value > 0 && value < 65_536);
}

class ExternalFederation implements Federation {
  readonly provider = 'external';
  readonly runDir = '';
  readonly timings: FederationTimings = { bootMs: 0, prepareMs: 0 };
  readonly domains: FederationDomains;
  readonly servers: {
    readonly a: ExternalServer;
    readonly b: ExternalServer;
    readonly hostile?: ExternalServer;
  };
  readonly component: ComponentLink;
  readonly caCertPath: string;
  readonly accounts: readonly Account[];
  #stopped = false;

  constructor(config: ExternalFederationConfig) {
    const domains: FederationDomains = { ...FEDERATION_DOMAINS, ...config.domains };
    this.domains = domains;
    const problems: string[] = [];
    const roleDomain: Record<ServerRole, string> = {
      a: domains.remote,
      b: domains.local,
      hostile: domains.hostile,
    };
    const build = (role: ServerRole, server: ExternalServerConfig): ExternalServer => {
      if (server.host === '') problems.push(`servers.${role}.host is empty`);
      for (const key of ['c2sPort', 'c2sDirectTlsPort', 's2sPort'] as const) {
        if (!isPort(server[key])) problems.push(`servers.${role}.${key} is not a port number`);
      }
      const virtualHosts = server.domains ?? [roleDomain[role]];
      const all = role === 'b' ? [...virtualHosts, domains.component] : [...virtualHosts];
      return new ExternalServer(role, server, virtualHosts, all);
    };
    const a = build('a', config.servers.a);
    const b = build('b', config.servers.b);
    const hostile =
      config.servers.hostile === undefined ? undefined : build('hostile', config.servers.hostile);
    this.servers = { a, b, ...(hostile === undefined ? {} : { hostile }) };

    if (config.component.secret === '') problems.push('component.secret is empty');
    if (!isPort(config.component.port)) problems.push('component.port is not a port number');
    const componentEndpoint = {
      host: config.component.host,
      port: config.component.port ?? FEDERATION_PORTS.component,
    };
    this.component = {
      domain: domains.component,
      secret: config.component.secret,
      ...componentEndpoint,
      direct: componentEndpoint,
    };
    if (config.caCertPath === '') problems.push('caCertPath is empty');
    this.caCertPath = config.caCertPath;

    const servers = [a, b, hostile].filter((server) => server !== undefined);
    this.accounts = config.accounts.flatMap((entry, index): Account[] => {
      const match = /^([^@/\s]+)@([^@/\s]+)$/.exec(entry.jid);
      const [, username, domain] = match ?? [];
      if (username === undefined || domain === undefined) {
        problems.push(`accounts[${index}].jid ${JSON.stringify(entry.jid)} is not a bare JID`);
        return [];
      }
      const server = servers.find((candidate) => candidate.virtualHosts.includes(domain));
      if (server === undefined) {
        problems.push(`accounts[${index}] (${entry.jid}): no configured server hosts ${domain}`);
        return [];
      }
      return [
        {
          jid: entry.jid,
          username,
          domain,
          password: entry.password,
          server: server.role,
          c2s: server.c2s,
          c2sDirectTls: server.c2sDirectTls,
        },
      ];
    });
    if (problems.length > 0) throw new ExternalConfigError(problems);
  }

  get links(): FederationLinks {
    throw notOurs('fault links (links)');
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  server(role: ServerRole): FederationServer {
    const server = this.servers[role];
    if (server === undefined) throw new Error(`this external federation has no ${role} server`);
    return server;
  }

  account(jid: string): Account {
    const account = this.accounts.find((candidate) => candidate.jid === jid);
    if (account === undefined) throw new Error(`no account ${jid} in the external federation's config`);
    return account;
  }

  createAccount(): Promise<Account> {
    return Promise.reject(notOurs('createAccount() (list the accounts in the config)'));
  }

  stop(): Promise<void> {
    this.#stopped = true;
    return Promise.resolve();
  }
}

/** A provider for servers that already run; validates the config when a federation is started. */
export function externalProvider(config: ExternalFederationConfig): ServerProvider {
  return {
    name: 'external',
    start(options: FederationOptions = {}): Promise<Federation> {
      try {
        const federation = new ExternalFederation(config);
        if (options.hostile === true && federation.servers.hostile === undefined) {
          throw new ExternalConfigError([
            'a hostile server was asked for, but servers.hostile is not configured',
          ]);
        }
        return Promise.resolve(federation);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
}
