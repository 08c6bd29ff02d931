// What every federation provider (native processes today; containers or external servers later)
// hands to tests: a running two-domain federation, optionally with a hostile third server.
import type { Endpoint, FaultProxy } from '../faults/fault-proxy.ts';
import type { FederationDomains } from './domains.ts';

export type ServerRole = 'a' | 'b' | 'hostile';
export type ServerImplementation = 'prosody' | 'ejabberd';
export const SERVER_IMPLEMENTATIONS: readonly ServerImplementation[] = ['prosody', 'ejabberd'];

/** Which implementation serves which role: what a run asks for, and what it records. */
export interface ServerStack {
  readonly a?: ServerImplementation;
  readonly b?: ServerImplementation;
}

export interface AccountRequest {
  readonly username: string;
  /** A domain served by one of the servers (not the component domain). */
  readonly domain: string;
  /** Generated when absent. */
  readonly password?: string;
}

export interface Account {
  readonly jid: string;
  readonly username: string;
  readonly domain: string;
  readonly password: string;
  readonly server: ServerRole;
  /** Where a client logs in: STARTTLS on `c2s`, TLS from the first byte on `c2sDirectTls`. */
  readonly c2s: Endpoint;
  readonly c2sDirectTls: Endpoint;
}

export interface FederationOptions {
  /** Server A's implementation (default prosody). */
  readonly serverA?: ServerImplementation;
  /** Start the third server hosting `hostile.example` (default false). */
  readonly hostile?: boolean;
  /** Accounts created before the servers start (default: alice@example.com, bob@server.example and, with the hostile server, mallory@hostile.example). */
  readonly accounts?: readonly AccountRequest[];
  /** Server log verbosity (default info). */
  readonly logLevel?: 'debug' | 'info';
  /** Seconds before an s2s connection attempt is abandoned (default 10). */
  readonly s2sTimeoutSeconds?: number;
  /** Boot deadline in milliseconds (default 20 000). */
  readonly readyTimeoutMs?: number;
  /**
   * The component link as a gateway configured before the run expects it: a fixed `port`, listened
   * on at FIXED_COMPONENT_HOST (default: a fresh loopback address per run, port 5347), and a fixed
   * `secret` (default: a fresh one per run). Providers that start no servers ignore it.
   */
  readonly component?: { readonly port?: number; readonly secret?: string };
  /**
   * SCRAM iterations of the accounts (default 4096, SCRAM_ITERATION_COUNT: what standard clients
   * accept). ejabberd's are always 4096.
   */
  readonly scramIterations?: number;
  /** Keep the run directory (configs, logs, data) after stop, for a person to read (default false). */
  readonly keepRunDir?: boolean;
  /**
   * A pair topology for interop runs (default false): server A carries a second gateway
   * component (`pairComponent`, domain `agents.example.com`, a secret of its own), so two
   * gateways under test sit on two servers and reach each other only across s2s.
   */
  readonly pair?: boolean;
  /**
   * Called once the accounts exist and the component link listens, as the servers start: a
   * gateway launched here connects to the link, which holds its connection until the servers
   * are up (a slow server, to the gateway). start() still resolves only once they are.
   * Providers that start no servers never call it.
   */
  readonly whileBooting?: (federation: Federation) => void;
}

/** Where the component link listens when its port is fixed (FederationOptions.component.port). */
export const FIXED_COMPONENT_HOST = '127.0.0.1';

/** A federation that cannot start for a reason the person running it can act on (a port in use, …). */
export class FederationStartError extends Error {
  override readonly name = 'FederationStartError';
}

export interface FederationServer {
  readonly role: ServerRole;
  readonly implementation: ServerImplementation;
  /**
   * It answers agentconf's block-state query and leaves XEP-0191 on the component's messages to
   * the sender (the harness's Prosody as server A; an external server only when its connection
   * file declares it): what the blocking cases need (docs/federation.md, "Server stacks in a run").
   */
  readonly leavesBlockingToSender: boolean;
  /** Domains it serves, component domains included. */
  readonly domains: readonly string[];
  readonly address: string;
  readonly c2s: Endpoint;
  readonly c2sDirectTls: Endpoint;
  readonly s2s: Endpoint;
  readonly pid: number | undefined;
  readonly configPath: string;
  readonly logPath: string;
  readLog(): Promise<string>;
  /** SIGKILL, no goodbye to its peers. */
  kill9(): Promise<void>;
  /** Kills the server if it runs, starts it again and waits until it is ready. */
  restart(): Promise<void>;
}

export interface ComponentLink {
  readonly domain: string;
  readonly secret: string;
  /** Where the gateway connects: the component link's fault proxy in front of server B. */
  readonly host: string;
  readonly port: number;
  /** Server B's component port itself, bypassing the proxy. */
  readonly direct: Endpoint;
}

/**
 * Where the harness's fake target (harness/fake-target/) connects as a XEP-0114 component:
 * server B's component port itself, no fault proxy (the fake target scripts its own faults).
 */
export interface TargetComponentLink {
  readonly domain: string;
  readonly secret: string;
  readonly host: string;
  readonly port: number;
}

/** A fault proxy on each link between the parts of the federation. */
export interface FederationLinks {
  /** s2s from server A to server B (A resolves B's domains to this proxy). */
  readonly s2sAToB: FaultProxy;
  /** s2s from server B to server A. */
  readonly s2sBToA: FaultProxy;
  /** The gateway's component connection to server B. */
  readonly component: FaultProxy;
  /** The second gateway's component connection to server A (a pair topology only). */
  readonly pairComponent?: FaultProxy | undefined;
  /** Every link back to normal. */
  restoreAll(): void;
}

export interface FederationTimings {
  /** From start() to every server answering on every port (and the component port accepting the secret). */
  readonly bootMs: number;
  /** Of which: addresses, certificates, configs, accounts. */
  readonly prepareMs: number;
}

export interface Federation {
  readonly provider: string;
  readonly domains: FederationDomains;
  readonly servers: {
    readonly a: FederationServer;
    readonly b: FederationServer;
    readonly hostile?: FederationServer;
  };
  readonly component: ComponentLink;
  /**
   * The second gateway's component link, on server A (`pair: true`): its own domain, secret and
   * fault proxy. Absent in a federation started without a pair.
   */
  readonly pairComponent?: ComponentLink | undefined;
  /** Absent where the federation has no component for it (an external one that names none). */
  readonly targetComponent?: TargetComponentLink;
  readonly links: FederationLinks;
  /** PEM file of the run's throw-away CA: every server certificate chains to it. */
  readonly caCertPath: string;
  /** Per-run directory holding configs, certificates, data and logs. */
  readonly runDir: string;
  readonly accounts: readonly Account[];
  readonly timings: FederationTimings;
  readonly stopped: boolean;
  /** Creates (or replaces) an account on the server of its domain; usable at once. */
  createAccount(request: AccountRequest): Promise<Account>;
  account(jid: string): Account;
  server(role: ServerRole): FederationServer;
  /** Stops every server and proxy and removes the run directory. Idempotent. */
  stop(): Promise<void>;
}

export interface ServerProvider {
  readonly name: string;
  start(options?: FederationOptions): Promise<Federation>;
}
