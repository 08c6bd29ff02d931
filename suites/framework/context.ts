/**
 * What a running case may use. The runner builds one per case attempt: fresh callers with a
 * transcript of their own, a random source seeded from the run seed and the case ID, and the
 * facts about the SUT that the run established once (claimed profiles, advertised features).
 */
import type { Caller } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import type { SutLimits } from '../../harness/sut/sut-config.ts';
import type { ReferenceWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import type { Budget } from './budget.ts';
import type { SeededRandom } from './seeded-random.ts';

/**
 * The accounts a case can act as, by the role they play in the fixture world
 * (fixtures/worlds/reference.json); each call connects a new resource of that account.
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
   * The locale the harness started the gateway under (harness/sut/sut-locale.ts: LC_ALL, else
   * LC_MESSAGES, else LANG of its environment); undefined for a gateway started by someone else
   * or in the C locale. What i18n.locale-independent-matching needs to mean anything.
   */
  readonly locale?: string;
}

export interface SutControl {
  /**
   * Kills the gateway process with SIGKILL — no chance to flush or clean up — starts it again
   * with the same command (same database, same world) and resolves once it answers again.
   */
  crashAndRestart(): Promise<void>;
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

export interface CaseContext {
  readonly sut: SutFacts;
  readonly callers: CallerPool;
  readonly random: SeededRandom;
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
  /** How many iterations the adversarial cases may spend (larger under `agentconf run --deep`). */
  readonly budget: Budget;
  /**
   * Records a SHOULD-level finding on a case that otherwise passes (a warning mark in reports;
   * a failure only under --strict).
   */
  warn(requirement: RequirementId, message: string): void;
}
