// A Federation that starts nothing: fixed addresses, accounts in memory, no links. For unit tests
// of code that only reads a federation's facts (SUT launch, the `federation up` summary).
import { FEDERATION_DOMAINS } from '../../federation/domains.ts';
import type {
  Account,
  AccountRequest,
  Federation,
  FederationLinks,
  FederationServer,
  ServerRole,
} from '../../federation/server-provider.ts';

function fakeServer(role: ServerRole, address: string, domains: string[]): FederationServer {
  return {
    role,
    implementation: 'prosody',
    leavesBlockingToSender: false,
    domains,
    address,
    c2s: { host: address, port: 5222 },
    c2sDirectTls: { host: address, port: 5223 },
    s2s: { host: address, port: 5269 },
    pid: role === 'a' ? 1001 : 1002,
    configPath: `/run/fake/server-${role}/prosody.cfg.lua`,
    logPath: `/run/fake/server-${role}/prosody.log`,
    readLog: () => Promise.resolve(''),
    kill9: () => Promise.resolve(),
    restart: () => Promise.resolve(),
  };
}

export interface FakeFederation extends Federation {
  /** How many times stop() was called. */
  readonly stops: number;
}

export function fakeFederation(options: { secret?: string } = {}): FakeFederation {
  const servers = {
    a: fakeServer('a', '127.0.0.2', [FEDERATION_DOMAINS.remote]),
    b: fakeServer('b', '127.0.0.3', [FEDERATION_DOMAINS.local, FEDERATION_DOMAINS.component]),
  };
  const accounts = new Map<string, Account>();
  const add = ({ username, domain, password }: AccountRequest): Account => {
    const server = domain === FEDERATION_DOMAINS.remote ? servers.a : servers.b;
    const account: Account = {
      jid: `${username}@${domain}`,
      username,
      domain,
      password: password ?? `pw-${username}`,
      server: server.role,
      c2s: server.c2s,
      c2sDirectTls: server.c2sDirectTls,
    };
    accounts.set(account.jid, account);
    return account;
  };
  add({ username: 'alice', domain: FEDERATION_DOMAINS.remote });
  add({ username: 'bob', domain: FEDERATION_DOMAINS.local });
  let stops = 0;
  return {
    provider: 'fake',
    domains: FEDERATION_DOMAINS,
    servers,
    component: {
      domain: FEDERATION_DOMAINS.component,
      secret: options.secret ?? 'fake-secret',
      host: '127.0.0.4',
      port: 5347,
      direct: { host: '127.0.0.3', port: 5347 },
    },
    get links(): FederationLinks {
      throw new Error('the fake federation has no links');
    },
    caCertPath: '/run/fake/certs/ca.crt',
    runDir: '/run/fake',
    get accounts() {
      return [...accounts.values()];
    },
    timings: { bootMs: 123.4, prepareMs: 50 },
    get stopped() {
      return stops > 0;
    },
    createAccount: (request) => {
      if (request.domain !== FEDERATION_DOMAINS.remote && request.domain !== FEDERATION_DOMAINS.local) {
        return Promise.reject(
          new Error(`no server of this federation hosts user accounts on ${request.domain}`),
        );
      }
      return Promise.resolve(add(request));
    },
    account: (jid) => {
      const account = accounts.get(jid);
      if (account === undefined) throw new Error(`no account ${jid}`);
      return account;
    },
    server: (role) => {
      if (role === 'hostile') throw new Error('no hostile server');
      return servers[role];
    },
    get stops() {
      return stops;
    },
    stop: () => {
      stops += 1;
      return Promise.resolve();
    },
  };
}
