/**
 * The callers of a run, one long-lived connection per role, shared by the cases (a login per
 * case would cost more than most cases). Each attempt records into its own transcript: the
 * pool switches the driver to it, and extra resources an attempt opens (`sibling`) are closed
 * when the attempt ends. A caller that lost its connection is replaced on next use.
 *
 * An attempt that runs beside others (runner/case-schedule.ts) cannot share those connections:
 * what arrives on one could be another case's, and switching the driver's transcript would take
 * the others' stanzas. It gets callers of its own instead (`own`): a resource of each account it
 * asks for that no other running attempt holds, pinned to its transcript for as long as it
 * runs. When it ends they go back to a set of idle ones, which the next such attempt takes
 * over: a login per case would cost those short cases more than running beside others saves
 * (as with the shared callers, a request's second reply is laid at the case that sent it).
 */
import type { Caller, CallerSendOptions, Driver, Transcript } from '../harness/driver/index.ts';
import type { CallerPool } from '../suites/framework/context.ts';
import type { AttemptCaller } from './attempt-tasks.ts';

/** Bare JIDs playing each role of the fixture world. */
export interface CallerRoles {
  readonly local: string;
  readonly remote: string;
  readonly remotePeer: string;
  readonly denied: string;
  readonly admin: string | undefined;
  readonly registrant: string;
  /** Another account on the gateway's own server, holding only its domain's grants. */
  readonly localPeer?: string | undefined;
  /**
   * An account on the gateway's own server that only the cases exhausting a per-sender bound use
   * (task capacity, rate limits); its stanzas skip the run's pacing.
   */
  readonly prober?: string | undefined;
  /** A remote account whose own grants are per-tool invoke grants only. */
  readonly toolGrantee?: string | undefined;
}

export class RunCallers {
  readonly #driver: Driver;
  readonly #roles: CallerRoles;
  readonly #connected = new Map<string, Promise<Caller>>();
  #siblings: Caller[] = [];
  /** Callers of their own that attempts running beside others left, by account, for the next ones. */
  readonly #idleOwn: Map<string, Promise<Caller>>[] = [];
  /** Numbers the resources this run opens, so no two open callers share a full JID. */
  #resources = 0;
  /** Each account's first-login preparation this run, by bare JID. */
  readonly #ready = new Map<string, Promise<void>>();
  #firstLogin: ((caller: Caller) => Promise<void>) | undefined;

  constructor(driver: Driver, roles: CallerRoles) {
    this.#driver = driver;
    this.#roles = roles;
  }

  /**
   * The pool one attempt uses; its transcript receives every stanza of every caller. `used` lists
   * each caller it handed out with where its inbound stanzas of this attempt begin (what the
   * attempt's clean-up reads its admitted tasks from).
   */
  forAttempt(
    transcript: Transcript,
    { own = false }: { readonly own?: boolean } = {},
  ): CallerPool & { used(): readonly AttemptCaller[]; release(): Promise<void> } {
    if (!own) this.#driver.useTranscript(transcript);
    const pinned: CallerSendOptions = own ? { transcript } : {};
    const siblings: Caller[] = [];
    const used = new Map<Caller, number>();
    // One connection per account and attempt, as the shared pool gives: a case may ask twice.
    const owned = own
      ? (this.#idleOwn.pop() ?? new Map<string, Promise<Caller>>())
      : new Map<string, Promise<Caller>>();
    const taken = new Set<string>();
    const handOut = async (connecting: Promise<Caller>): Promise<Caller> => {
      const caller = await connecting;
      if (!used.has(caller)) used.set(caller, caller.inbound.length);
      return caller;
    };
    const ownCaller = (jid: string, options: CallerSendOptions): Promise<Caller> => {
      let connecting = owned.get(jid);
      if (connecting === undefined || !taken.has(jid)) {
        taken.add(jid);
        const open = (): Promise<Caller> =>
          this.#driver.connect(jid, this.#nextResource('case'), { ...options, ...pinned });
        // One an earlier attempt left is this one's from now on, unless it is no longer online.
        const opened =
          connecting === undefined
            ? open()
            : connecting.then(
                (caller) => {
                  if (caller.status !== 'online') return open();
                  caller.useTranscript(transcript);
                  return caller;
                },
                () => open(),
              );
        opened.catch(() => {
          if (owned.get(jid) === opened) owned.delete(jid);
        });
        owned.set(jid, opened);
        connecting = opened;
      }
      return connecting.then((caller) => this.#prepared(jid, caller));
    };
    const role = (jid: string | undefined, missing: string, options: CallerSendOptions = {}) =>
      jid === undefined
        ? Promise.reject(new Error(missing))
        : handOut(own ? ownCaller(jid, options) : this.#role(jid, options));
    const roles = this.#roles;
    return {
      local: () => role(roles.local, 'the run names no local account'),
      remote: () => role(roles.remote, 'the run names no remote account'),
      remotePeer: () => role(roles.remotePeer, 'the run names no remotePeer account'),
      denied: () => role(roles.denied, 'the run names no denied account'),
      admin: () => role(roles.admin, 'the SUT config names no adminJid'),
      registrant: () => role(roles.registrant, 'the run names no registrant account'),
      localPeer: () => role(roles.localPeer, 'the run names no localPeer account'),
      prober: () => role(roles.prober, 'the run names no prober account', { unpaced: true }),
      toolGrantee: () => role(roles.toolGrantee, 'the run names no toolGrantee account'),
      sibling: async (of: Caller) => {
        const caller = await handOut(this.#driver.connect(of.bareJid, this.#nextResource('sibling'), pinned));
        siblings.push(caller);
        this.#siblings.push(caller);
        return caller;
      },
      used: () => [...used].map(([caller, since]) => ({ caller, since })),
      release: async () => {
        await Promise.all(siblings.map((caller) => caller.close().catch(() => undefined)));
        this.#siblings = this.#siblings.filter((caller) => !siblings.includes(caller));
        if (!own) return;
        // Only callers still online go back; the next attempt opens the rest anew.
        const kept = new Map<string, Promise<Caller>>();
        for (const [jid, connecting] of owned) {
          const caller = await connecting.catch(() => undefined);
          if (caller?.status === 'online') kept.set(jid, connecting);
        }
        this.#idleOwn.push(kept);
      },
    };
  }

  /**
   * Closes the callers of their own that ended attempts left: before a case that runs on a quiet
   * gateway, whose accounts must have no resource online but the role callers (a human taken
   * offline, say). Only while no attempt with callers of its own runs.
   */
  async closeIdleOwn(): Promise<void> {
    const idle = this.#idleOwn.splice(0).flatMap((callers) => [...callers.values()]);
    await Promise.all(
      idle.map((connecting) => connecting.then((caller) => caller.close()).catch(() => undefined)),
    );
  }

  /**
   * The run's long-lived caller of the account `bareJid`, whatever role it plays (clean-up acts
   * as a task's owner); undefined for an account that is none of the run's.
   */
  ownerCaller(bareJid: string): Promise<Caller> | undefined {
    const roles: readonly (string | undefined)[] = Object.values(this.#roles);
    const jid = roles.find((role) => role?.toLowerCase() === bareJid.toLowerCase());
    if (jid === undefined) return undefined;
    return this.#role(jid, jid === this.#roles.prober ? { unpaced: true } : {});
  }

  /**
   * The role's long-lived caller outside any attempt: the run's own queries before the cases (the
   * advertised features) ride on the connection the cases then use, instead of a login of their own.
   */
  callerOf(role: Exclude<keyof CallerRoles, 'localPeer' | 'prober' | 'toolGrantee'>): Promise<Caller> {
    const jid = this.#roles[role];
    if (jid === undefined) return Promise.reject(new Error(`the SUT config names no ${role} account`));
    return this.#role(jid);
  }

  /**
   * Starts a run on these callers: `prepare` runs on each account's first use from now on, before
   * any case gets its caller (the run clears what earlier runs left on the account); a rejection
   * fails that use, and the next one tries again.
   */
  onFirstLogin(prepare: (caller: Caller) => Promise<void>): void {
    this.#firstLogin = prepare;
    this.#ready.clear();
  }

  #role(jid: string, options: CallerSendOptions = {}): Promise<Caller> {
    const existing = this.#connected.get(jid);
    const online =
      existing === undefined
        ? this.#reconnect(jid, options)
        : existing.then((caller) => (caller.status === 'online' ? caller : this.#reconnect(jid, options)));
    return online.then((caller) => this.#prepared(jid, caller));
  }

  /** The caller once its account's first-login preparation is done (once per account and run). */
  #prepared(jid: string, caller: Caller): Promise<Caller> {
    const prepare = this.#firstLogin;
    if (prepare === undefined) return Promise.resolve(caller);
    let ready = this.#ready.get(jid);
    if (ready === undefined) {
      const preparing = prepare(caller);
      // A failed preparation is not remembered: the next case tries again (and reports its own).
      preparing.catch(() => {
        if (this.#ready.get(jid) === preparing) this.#ready.delete(jid);
      });
      this.#ready.set(jid, preparing);
      ready = preparing;
    }
    return ready.then(() => caller);
  }

  #nextResource(prefix: string): string {
    this.#resources += 1;
    return `${prefix}-${String(this.#resources)}`;
  }

  #reconnect(jid: string, options: CallerSendOptions): Promise<Caller> {
    const connecting = this.#driver.connect(jid, this.#nextResource('agentconf'), options);
    // A failed login is not remembered: the next case tries again (and reports its own failure).
    connecting.catch(() => {
      if (this.#connected.get(jid) === connecting) this.#connected.delete(jid);
    });
    this.#connected.set(jid, connecting);
    return connecting;
  }
}
