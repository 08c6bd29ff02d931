// The handle a test holds on a running native federation.
import { assertUsername, generatePassword } from './account-credentials.ts';
import { FEDERATION_DOMAINS, type FederationDomains } from './domains.ts';
import type { NativeServer } from './native-server.ts';
import type {
  Account,
  AccountRequest,
  ComponentLink,
  Federation,
  FederationLinks,
  FederationServer,
  FederationTimings,
  ServerRole,
  TargetComponentLink,
} from './server-provider.ts';

export interface NativeServers {
  readonly a: NativeServer;
  readonly b: NativeServer;
  readonly hostile?: NativeServer;
}

export class NativeFederation implements Federation {
  /** Which provider started it (subclasses for other providers say theirs). */
  readonly provider: string = 'native';
  readonly domains: FederationDomains;
  timings: FederationTimings = { bootMs: Number.NaN, prepareMs: Number.NaN };
  readonly #accounts = new Map<string, Account>();
  #stopping: Promise<void> | undefined;

  constructor(
    readonly servers: NativeServers,
    readonly component: ComponentLink,
    readonly links: FederationLinks,
    readonly caCertPath: string,
    readonly runDir: string,
    private readonly release: () => Promise<void>,
    /** The second gateway's link on server A, in a pair topology. */
    readonly pairComponent?: ComponentLink,
  ) {
    this.domains =
      pairComponent === undefined
        ? FEDERATION_DOMAINS
        : { ...FEDERATION_DOMAINS, pairComponent: pairComponent.domain };
  }

  /** Server B accepts the fake target's domain with the run's one component secret. */
  get targetComponent(): TargetComponentLink {
    return { domain: this.domains.target, secret: this.component.secret, ...this.component.direct };
  }

  get accounts(): readonly Account[] {
    return [...this.#accounts.values()];
  }

  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  server(role: ServerRole): FederationServer {
    const server = this.servers[role];
    if (server === undefined)
      throw new Error(`this federation has no ${role} server (start it with hostile: true)`);
    return server;
  }

  #serverFor(domain: string): NativeServer {
    for (const server of [this.servers.a, this.servers.b, this.servers.hostile]) {
      if (server?.virtualHosts.includes(domain)) return server;
    }
    throw new Error(`no server of this federation hosts user accounts on ${domain}`);
  }

  async createAccount(request: AccountRequest): Promise<Account> {
    if (this.stopped) throw new Error('the federation is stopped');
    assertUsername(request.username);
    const server = this.#serverFor(request.domain);
    const password = request.password ?? generatePassword();
    await server.addAccount(request.username, request.domain, password);
    const account: Account = {
      jid: `${request.username}@${request.domain}`,
      username: request.username,
      domain: request.domain,
      password,
      server: server.role,
      c2s: server.c2s,
      c2sDirectTls: server.c2sDirectTls,
    };
    this.#accounts.set(account.jid, account);
    return account;
  }

  account(jid: string): Account {
    const account = this.#accounts.get(jid);
    if (account === undefined) throw new Error(`no account ${jid} in this federation`);
    return account;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.release();
    return this.#stopping;
  }
}
