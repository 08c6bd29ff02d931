/**
 * What a running case may use. The runner builds one per case attempt: fresh callers with a
 * transcript of their own, a random source seeded from the run seed and the case ID, and the
 * facts about the SUT that the run established once (claimed profiles, advertised features).
 */
import type { Element } from '@xmpp/xml';
import type { Caller } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import type { SutLimits } from '../../harness/sut/sut-config.ts';
import type { SystemToolId } from '../../harness/system-tools.ts';
import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import type { ReferenceWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import type { Budget } from './budget.ts';
import type { SeededRandom } from './seeded-random.ts';

/**
 * The accounts a case can act as, by the role they play in the fixture world
 * (fixtures/worlds/reference.json). A case shares the run's one connection per account
 * (runner/caller-pool.ts) unless it runs alongside others, when it gets a resource of its own;
 * `sibling` opens another resource of an account.
 */
export interface CallerPool {
  /** On the gateway's own server (server.example), without special rights. */
  local(): Promise<Caller>;
  /** On the federated server (example.com), holding the world's principal grants. */
  remote(): Promise<Caller>;
  /** Another example.com account: only the grants its domain has. */
  remotePeer(): Promise<Caller>;
  /**
   * Another account on the gateway's own server: only the grants its domain has, which in the
   * reference world are the local caller's too. Task operations are authorized by bare JID, not
   * by domain (#task-recovery), so it may not touch the local caller's tasks.
   */
  localPeer(): Promise<Caller>;
  /** On a domain with no grants at all (hostile.example): deny-by-default. */
  denied(): Promise<Caller>;
  /** The SUT's administrator account (SUT config `adminJid`). */
  admin(): Promise<Caller>;
  /**
   * Another account on the gateway's server, there to register its own bare JID as an endpoint:
   * the C2S self-registrant of #registration-flow (registry fixture `c2s-registrant`).
   */
  registrant(): Promise<Caller>;
  /**
   * Another account on the gateway's server that no other case uses, for the cases that exhaust
   * a per-sender bound (task capacity, a rate limit): what they fill or drain slows no other
   * case. Its stanzas skip the run's pacing (runner/request-pacing.ts), so it can send faster
   * than a documented rate. Rejects when the run has no such account.
   */
  prober(): Promise<Caller>;
  /**
   * Another account on the federated server whose own grants are per-tool invoke grants only,
   * several tools of one endpoint (the world's `toolGrantee`); beyond them it has its domain's.
   * Rejects when the run has no such account.
   */
  toolGrantee(): Promise<Caller>;
  /** Another resource of a caller's account, e.g. to prove any resource may recover a task. */
  sibling(of: Caller): Promise<Caller>;
}

export interface SutFacts {
  readonly name: string;
  /** The gateway's JID (the XEP-0114 component domain). */
  readonly gatewayJid: string;
  /** Claimed profiles including the ones they build on. */
  readonly profiles: ReadonlySet<ProfileId>;
  /** The features the gateway advertised in its disco#info at the start of the run. */
  readonly features: ReadonlySet<string>;
  readonly replyTimeoutMs: number;
  readonly taskTimeoutMs: number;
  /**
   * The limits the SUT config documents (#json-encoding), which cases probe just past; a limit
   * it leaves out is one the cases that need it cannot test.
   */
  readonly limits?: SutLimits;
  /**
   * The administrator the SUT config names (`adminJid`), whether or not it claims Administrative
   * Provisioning: a case of another profile may need one to set up its fixture.
   */
  readonly adminJid?: string;
  /**
   * The locale the harness started the gateway under (harness/sut/sut-locale.ts: LC_ALL, else
   * LC_MESSAGES, else LANG of its environment); undefined for a gateway started by someone else
   * or in the C locale. What i18n.locale-independent-matching needs to mean anything.
   */
  readonly locale?: string;
  /**
   * System tools the selected cases declare that this machine lacks (harness/system-tools.ts):
   * the cases needing one cannot tell.
   */
  readonly missingTools?: ReadonlySet<SystemToolId>;
}

export interface SutControl {
  /**
   * Kills the gateway process with SIGKILL — no chance to flush or clean up — starts it again
   * with the same command (same database, same world) and resolves once it answers again.
   */
  crashAndRestart(): Promise<void>;
  /**
   * The gateway's component link as the harness's fault proxy sees it; absent when the
   * federation's links are not the harness's (an external federation).
   */
  readonly link?: ComponentLinkControl;
  /**
   * SIGSTOP to the gateway and everything it started: it keeps its connections but does nothing
   * until `thaw`. Resolves once it is frozen (for a gateway the harness does not start: once the
   * operator's freeze command ran and the gateway kept silent to a ping).
   */
  freeze(): Promise<void>;
  /** SIGCONT after `freeze`; resolves once the gateway answers again. */
  thaw(): Promise<void>;
  /**
   * Both s2s directions between the gateway's server and the federated one, through the
   * harness's fault proxies; absent when the federation's links are not the harness's.
   */
  readonly s2s?: S2sLinkControl;
  /**
   * Storage faults inside the launched gateway (libfiu): absent where fiu-utils is not installed,
   * and for a case that does not declare `needs: ['libfiu']`.
   */
  readonly storage?: StorageFaultControl;
  /**
   * The XMPP server that serves the gateway's component, when the harness runs it: absent for
   * an external federation.
   */
  readonly server?: ServerRestartControl;
}

export interface ServerRestartControl {
  /**
   * Kills the gateway's XMPP server (SIGKILL: no stream is closed politely) and starts it again
   * in place — same ports, same configuration, same data — resolving once it serves every port
   * again. The gateway is left to notice and reconnect by itself.
   */
  restart(): Promise<void>;
}

export interface StorageFaultControl {
  /**
   * Makes the gateway's `fault` storage calls fail ('sync': fsync and fdatasync; 'write': pwrite)
   * while `during` runs — `exited` resolves if the gateway exits meanwhile, which is then no
   * surprise — then turns the fault off and, when the gateway is gone, starts it again and waits
   * until it answers. Resolves with `during`'s value and whether the gateway had exited.
   */
  failWhile<T>(
    fault: 'sync' | 'write',
    during: (exited: Promise<void>) => Promise<T>,
  ): Promise<{ readonly value: T; readonly exited: boolean }>;
}

/** Faults on the s2s links of the federation (both directions at once). */
export interface S2sLinkControl {
  /** TCP RST on every open s2s connection; the servers connect again when they next need to. */
  cut(): void;
  /** Every s2s byte, both ways, `ms` late (order kept). */
  delay(ms: number): void;
  /** No delay, nothing held. */
  restore(): void;
}

/** A kill point armed on the component link (SutControl.link.killBeforeForwarding). */
export interface KillPoint {
  /**
   * The stanza that was held back, once the gateway has been killed and answers again; undefined
   * when the point was disarmed before any stanza matched.
   */
  readonly fired: Promise<Element | undefined>;
  /** Nothing more matches; `fired` resolves (with undefined unless it already fired). */
  disarm(): void;
}

export interface ComponentLinkControl {
  /**
   * Calls `listener` with each stanza the gateway sends on the component link from now on (as
   * it leaves the gateway, before the server sees it); returns what stops it.
   */
  onSent(listener: (stanza: Element) => void): () => void;
  /**
   * The first stanza the gateway sends that satisfies `matches` is held back and the gateway is
   * killed with SIGKILL before the server sees that stanza; it is then started again (same
   * command, same state). One kill point at a time.
   */
  killBeforeForwarding(matches: (stanza: Element) => boolean): KillPoint;
  /**
   * The first stanza the gateway sends that satisfies `matches` is held back, with everything
   * after it on that connection, until the link is cut (`cut`): the gateway wrote it, the server
   * never sees it — a link that died silently. Resolves with the held stanza; `disarm` stops
   * looking (and resolves with undefined unless something was held).
   */
  holdBeforeForwarding(matches: (stanza: Element) => boolean): KillPoint;
  /**
   * Cuts the component link (TCP RST both ways) and resolves once the gateway has connected
   * again and answers. `whileDown` runs while the link is cut and new connections are refused,
   * before the gateway may come back.
   */
  cut(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Writes raw bytes to the gateway on its component stream as though the server had sent them,
   * between two of the server's stanzas: input no server would deliver (restricted XML, CDATA
   * sections). Resolves once the bytes are on their way; rejects when no stream is open.
   */
  inject(raw: string): Promise<void>;
  /**
   * Resolves once the gateway answers again (a disco#info through the server), within its
   * startup time; rejects when it does not, or when its process exits.
   */
  answering(): Promise<void>;
  /** Component connections the gateway has opened so far (a new one means it reconnected). */
  readonly connections: number;
  /** Resolves when the next component connection ends (closed by either side, or cut). */
  closed(): Promise<void>;
}

/**
 * The conformance tools' ledger read out of band (docs/sut.md, `conformanceTools`): how often a
 * key was counted, taken from outside the gateway under test.
 */
export interface OutOfBandLedger {
  /** Where the count comes from, for the case transcript (e.g. the ledger file's path). */
  readonly source: string;
  read(key: string): Promise<number>;
}

export interface CaseAttemptIdentity {
  /** 1 for the first attempt, 2 for the re-run of a failed one. */
  readonly number: number;
  readonly caseSeed: number;
}

/** The federated humans' server (example.com, server A), as the harness runs it. */
export interface RemoteServerFacts {
  readonly implementation: ServerImplementation;
  /**
   * It answers the block-state query and leaves XEP-0191 on the gateway's messages to the
   * sender (the harness's Prosody, docs/federation.md "Blocking and offline storage"): what the
   * blocking cases need to tell a gateway that honours blocks from one that leaves them to routing.
   */
  readonly leavesBlockingToSender: boolean;
  /** Servers the harness does not run: their facts are only what the connection file declares. */
  readonly external: boolean;
}

export interface CaseContext {
  readonly sut: SutFacts;
  readonly callers: CallerPool;
  readonly random: SeededRandom;
  /**
   * Which attempt of the case this is (run-case.ts): `random` is seeded per attempt, `caseSeed`
   * is the first attempt's seed, the same for every attempt. Absent: a first attempt.
   */
  readonly attempt?: CaseAttemptIdentity;
  /**
   * The fixture world the SUT was started with, for a SUT whose config says
   * `"fixtures": "world-file"`; absent otherwise. Cases reach it through `requireWorld`
   * (suites/fixtures/reference-world.ts), which makes them inapplicable without it.
   */
  readonly world?: ReferenceWorld;
  /**
   * Control over a gateway the harness launched itself: absent for one started by someone else,
   * so the cases that need it are inapplicable there.
   */
  readonly sutControl?: SutControl;
  /**
   * The conformance tools' ledger, when the SUT's tools keep it outside the gateway (an MCP
   * server the harness can read, harness/sut/conformance-ledger.ts); absent for native tools,
   * whose ledger the suites read through the gateway's `counter` tool.
   */
  readonly ledger?: OutOfBandLedger;
  /**
   * The federated humans' server when the harness runs it; absent for an external federation,
   * whose servers' modules the harness does not know.
   */
  readonly remoteServer?: RemoteServerFacts;
  /** How many iterations the adversarial cases may spend (larger under `agentconf run --deep`). */
  readonly budget: Budget;
  /**
   * Records a SHOULD-level finding on a case that otherwise passes (a warning mark in reports;
   * a failure only under --strict).
   */
  warn(requirement: RequirementId, message: string): void;
}
