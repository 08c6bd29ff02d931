/**
 * What a caller case gets (docs/caller.md): a caller under test started on demand against the
 * fake target through the interface its SUT file declares (MCP or a gateway's call-out tool),
 * stopped by the framework whatever the verdict; the case's seeded randomness; the SUT file's
 * timeouts; the transcript (MCP messages or the conformance task's stanzas, notes, and at the end
 * the fake target's stanza log); and `held`, which records a decided check (a pass needs one).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  startCallerSession,
  type CallerSession,
  type CallerSessionOptions,
} from '../../../harness/caller-under-test/index.ts';
import type { Element } from '@xmpp/xml';

import { Transcript } from '../../../harness/driver/index.ts';
import {
  startFakeTarget,
  type FakeTarget,
  type FakeTargetWorld,
} from '../../../harness/fake-target/index.ts';
import type { Federation } from '../../../harness/federation/server-provider.ts';
import type { CallerDeclaration, SutTimeouts } from '../../../harness/sut/sut-config.ts';
import { checkHeld } from '../../framework/evidence.ts';
import { SeededRandom } from '../../framework/seeded-random.ts';
import { NotApplicable } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { CALLER_INTERFACE_TITLES, type CallerInterface, type CallerUnderTest } from './caller-under-test.ts';
import { startGatewayCaller, type GatewayCallerUnderTest } from './gateway-caller-under-test.ts';
import { mcpCallerUnderTest } from './mcp-caller-under-test.ts';
import { MCP_PARTY, tapMcpMessages } from './mcp-tap.ts';

/** No MCP message of the kind a case waited for arrived in time. */
export class McpWaitTimeout extends Error {
  override readonly name = 'McpWaitTimeout';
}

/**
 * Per endpoint pins, the caller config's timeoutSeconds, the fake target's clock and policies,
 * and headers for every HTTP request to a Streamable HTTP caller.
 */
export type StartSessionOptions = Pick<
  CallerSessionOptions,
  'pins' | 'timeoutSeconds' | 'target' | 'httpHeaders'
>;

/**
 * A caller under test and the fake target it calls, started for a case. `mcp` is the MCP session
 * behind an MCP caller (for steps only MCP has); undefined for a gateway's call-out tool.
 */
export interface CallerScene {
  readonly target: FakeTarget;
  readonly caller: CallerUnderTest;
  readonly mcp: CallerSession | undefined;
  /**
   * A gateway's call-out tool: every stanza the gateway sent on its component link since the
   * scene started, as the link's proxy read it (before its server could refuse one), or undefined
   * when that link is not read. Undefined for an MCP caller, whose server stamps its stanzas.
   */
  readonly gatewaySent: readonly Element[] | undefined;
}

export interface CallerCaseContext {
  readonly caseId: string;
  /** The fake target's domain: every endpoint of a world is a JID on it. */
  readonly targetDomain: string;
  /** Printed with every verdict: `--seed` with the run seed replays the case. */
  readonly seed: number;
  readonly random: SeededRandom;
  /** The SUT file's timeouts: replySeconds bounds each wait for the caller's next stanza. */
  readonly timeouts: SutTimeouts;
  readonly transcript: Transcript;
  /** The interface the suite drives the caller under test through, as its SUT file declares it. */
  readonly callerInterface: CallerInterface;
  /** How the suite speaks MCP to the caller under test (none: a gateway's call-out tool). */
  readonly mcpTransport: 'stdio' | 'streamable-http' | 'none';
  /**
   * Starts the caller under test, through its declared interface, against a fake target serving
   * `world`; stopped when the case ends. Pins and timeoutSeconds are the MCP caller's config, and
   * go into each call's input for a gateway's call-out tool.
   */
  startCaller(world: FakeTargetWorld, options?: StartSessionOptions): Promise<CallerScene>;
  /**
   * Starts an MCP caller under test (for cases that need MCP itself); stopped when the case ends.
   * Any other interface makes the case inapplicable.
   */
  startSession(world: FakeTargetWorld, options?: StartSessionOptions): Promise<CallerSession>;
  /**
   * The first MCP message the caller under test sent the suite (so far, or within `timeoutMs`)
   * whose JSON text satisfies `match`; rejects with McpWaitTimeout naming `what`.
   */
  mcpMessage(match: (json: string) => boolean, what: string, timeoutMs: number): Promise<string>;
  /** A remark in the transcript (what the case scripted, what it waits for). */
  note(text: string): void;
  /** A check of `requirement` held against what the caller did: the evidence a pass rests on. */
  held(requirement: RequirementId, what: string): void;
}

/** What the runner hands every caller case. */
export interface CallerEnvironment {
  readonly federation: Federation;
  readonly declaration: CallerDeclaration;
  readonly timeouts: SutTimeouts;
  /** A gateway's call-out tool is invoked as this account (the SUT file's adminJid), when given. */
  readonly gatewayCallerJid?: string;
}

/** One attempt's context and what it started, for the runner to stop and report. */
export class CallerCaseScope {
  readonly transcript: Transcript;
  readonly context: CallerCaseContext;
  readonly #sessions: { readonly session: CallerSession; readonly dataDir: string }[] = [];
  readonly #gateways: {
    readonly caller: GatewayCallerUnderTest;
    readonly target: FakeTarget;
    readonly stopReading: () => void;
  }[] = [];
  readonly #environment: CallerEnvironment;
  readonly #mcpWaiters = new Set<(json: string) => boolean>();

  constructor(environment: CallerEnvironment, caseId: string, seed: number) {
    this.#environment = environment;
    this.transcript = new Transcript(caseId);
    const transcript = this.transcript;
    this.context = {
      caseId,
      targetDomain: environment.federation.domains.target,
      seed,
      random: new SeededRandom(seed),
      timeouts: environment.timeouts,
      transcript,
      callerInterface: environment.declaration.kind,
      mcpTransport:
        environment.declaration.kind !== 'mcp'
          ? 'none'
          : environment.declaration.url === undefined
            ? 'stdio'
            : 'streamable-http',
      startCaller: (world, options) => this.#startCaller(world, options ?? {}),
      startSession: (world, options) => this.#start(world, options ?? {}),
      mcpMessage: (match, what, timeoutMs) => this.#mcpMessage(match, what, timeoutMs),
      note: (text) => {
        transcript.note(text);
      },
      held: (requirement, what) => {
        transcript.note(`held: ${requirement}: ${what}`);
        checkHeld(requirement);
      },
    };
  }

  async #startCaller(world: FakeTargetWorld, options: StartSessionOptions): Promise<CallerScene> {
    const { declaration } = this.#environment;
    if (declaration.kind === 'mcp') {
      const session = await this.#start(world, options);
      const caller = mcpCallerUnderTest(
        session,
        { transcript: this.transcript, mcpMessage: (match, what, ms) => this.#mcpMessage(match, what, ms) },
        options,
      );
      return { target: session.target, caller, mcp: session, gatewaySent: undefined };
    }
    return await this.#startGateway(world, options);
  }

  /** A gateway's call-out tool: the gateway runs already, so only the fake target starts. */
  async #startGateway(world: FakeTargetWorld, options: StartSessionOptions): Promise<CallerScene> {
    const { federation, declaration, timeouts } = this.#environment;
    if (declaration.kind !== 'gateway-tool') throw new Error('not a gateway-tool caller');
    const link = federation.targetComponent;
    if (link === undefined) {
      throw new Error(`the ${federation.provider} federation has no fake target component (docs/caller.md)`);
    }
    const target = await startFakeTarget({ ...options.target, link, world });
    const gatewayLink = federation.links.component;
    const gatewaySent: Element[] | undefined = gatewayLink.inspectingStanzas ? [] : undefined;
    const read = (stanza: Element): void => {
      gatewaySent?.push(stanza);
    };
    gatewayLink.on('stanza', read);
    const stopReading = (): void => {
      gatewayLink.off('stanza', read);
    };
    try {
      const caller = await startGatewayCaller({
        federation,
        declaration,
        transcript: this.transcript,
        random: this.context.random,
        replyMs: timeouts.replySeconds * 1000,
        ...(this.#environment.gatewayCallerJid === undefined
          ? {}
          : { account: this.#environment.gatewayCallerJid }),
        outcomeMs: (timeouts.taskSeconds + 2 * timeouts.replySeconds) * 1000,
        ...(options.pins === undefined ? {} : { pins: options.pins }),
        ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
      });
      this.#gateways.push({ caller, target, stopReading });
      this.transcript.note(
        `fake target serves ${world.endpoints.map((e) => e.jid).join(', ')}; the gateway calls them from its own JID`,
      );
      return { target, caller, mcp: undefined, gatewaySent };
    } catch (error) {
      stopReading();
      await target.stop();
      throw error;
    }
  }

  async #start(world: FakeTargetWorld, options: StartSessionOptions): Promise<CallerSession> {
    const { declaration } = this.#environment;
    if (declaration.kind !== 'mcp') {
      throw new NotApplicable(
        `the case needs an MCP caller; the SUT file declares the ${CALLER_INTERFACE_TITLES[declaration.kind]}`,
      );
    }
    const dataDir = await mkdtemp(join(tmpdir(), 'agentconf-caller-'));
    try {
      const session = await startCallerSession({
        federation: this.#environment.federation,
        declaration,
        world,
        dataDir,
        ...options,
        startupMs: this.#environment.timeouts.startupSeconds * 1000,
      });
      this.#sessions.push({ session, dataDir });
      tapMcpMessages(session.caller.driver, this.transcript, (json) => {
        for (const waiter of [...this.#mcpWaiters]) if (waiter(json)) this.#mcpWaiters.delete(waiter);
      });
      this.transcript.note(
        `caller under test started as ${session.account.jid}; fake target serves ${world.endpoints.map((e) => e.jid).join(', ')}`,
      );
      return session;
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  async #mcpMessage(match: (json: string) => boolean, what: string, timeoutMs: number): Promise<string> {
    const seen = this.transcript.entries.find(
      (entry) =>
        entry.jid === MCP_PARTY &&
        entry.direction === 'received' &&
        entry.xml !== undefined &&
        match(entry.xml),
    );
    if (seen?.xml !== undefined) return seen.xml;
    return await new Promise<string>((resolve, reject) => {
      const waiter = (json: string): boolean => {
        if (!match(json)) return false;
        clearTimeout(timer);
        resolve(json);
        return true;
      };
      const timer = setTimeout(() => {
        this.#mcpWaiters.delete(waiter);
        reject(
          new McpWaitTimeout(
            `the caller under test sent no MCP message with ${what} within ${String(timeoutMs)} ms`,
          ),
        );
      }, timeoutMs);
      this.#mcpWaiters.add(waiter);
    });
  }

  /** Stops every session the case started, then appends what the fake targets saw and sent. */
  async dispose(): Promise<void> {
    for (const { session, dataDir } of this.#sessions.splice(0)) {
      await session.stop().catch((error: unknown) => {
        this.transcript.note(`stopping the caller session failed: ${String(error)}`);
      });
      await rm(dataDir, { recursive: true, force: true });
      this.#recordTarget(session.target);
      const output = session.caller.output().trim();
      if (output !== '') this.transcript.note(`caller under test output:\n${output.slice(-4000)}`);
    }
    for (const { caller, target, stopReading } of this.#gateways.splice(0)) {
      stopReading();
      await caller.close().catch((error: unknown) => {
        this.transcript.note(`closing the suite's account at the gateway failed: ${String(error)}`);
      });
      await target.stop().catch((error: unknown) => {
        this.transcript.note(`stopping the fake target failed: ${String(error)}`);
      });
      this.#recordTarget(target);
    }
  }

  #recordTarget(target: FakeTarget): void {
    this.transcript.note(`fake target received (${String(target.log.length)} stanzas):`);
    for (const stanza of target.log.all()) {
      this.transcript.record({
        kind: 'stanza',
        direction: 'received',
        jid: 'fake target',
        xml: stanza.xml,
        text: `${stanza.kind} at +${stanza.atMs.toFixed(1)} ms`,
      });
    }
    for (const text of target.sent) {
      this.transcript.record({ kind: 'stanza', direction: 'sent', jid: 'fake target', xml: text });
    }
  }
}
