/**
 * The callers of a run, one long-lived connection per role, shared by the cases (a login per
 * case would cost more than most cases). Each attempt records into its own transcript: the
 * pool switches the driver to it, and extra resources an attempt opens (`sibling`) are closed
 * when the attempt ends. A caller that lost its connection is replaced on next use.
 */
import type { Caller, CallerSendOptions, Driver, Transcript } from '../harness/driver/index.ts';
import type { CallerPool } from '../suites/framework/context.ts';

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
}

export class RunCallers {
  readonly #driver: Driver;
  readonly #roles: CallerRoles;
  readonly #connected = new Map<string, Promise<Caller>>();
  #siblings: Caller[] = [];
  /** Numbers the resources this run opens, so no two open callers share a full JID. */
  #resources = 0;

  constructor(driver: Driver, roles: CallerRoles) {
    this.#driver = driver;
    this.#roles = roles;
  }

  /** The pool one attempt uses; its transcript receives every stanza of every caller. */
  forAttempt(transcript: Transcript): CallerPool & { release(): Promise<void> } {
    this.#driver.useTranscript(transcript);
    const siblings: Caller[] = [];
    return {
      local: () => this.#role(this.#roles.local),
      remote: () => this.#role(this.#roles.remote),
      remotePeer: () => this.#role(this.#roles.remotePeer),
      denied: () => this.#role(this.#roles.denied),
      admin: () => {
        const { admin } = this.#roles;
        if (admin === undefined) return Promise.reject(new Error('the SUT config names no adminJid'));
        return this.#role(admin);
      },
      registrant: () => this.#role(this.#roles.registrant),
      localPeer: () => {
        const { localPeer } = this.#roles;
        if (localPeer === undefined) return Promise.reject(new Error('the run names no localPeer account'));
        return this.#role(localPeer);
      },
      prober: () => {
        const { prober } = this.#roles;
        if (prober === undefined) return Promise.reject(new Error('the run names no prober account'));
        return this.#role(prober, { unpaced: true });
      },
      sibling: async (of: Caller) => {
        const caller = await this.#driver.connect(of.bareJid, this.#nextResource('sibling'));
        siblings.push(caller);
        this.#siblings.push(caller);
        return caller;
      },
      release: async () => {
        await Promise.all(siblings.map((caller) => caller.close().catch(() => undefined)));
        this.#siblings = this.#siblings.filter((caller) => !siblings.includes(caller));
      },
    };
  }

  /**
   * The role's long-lived caller outside any attempt: the run's own queries before the cases (the
   * advertised features) ride on the connection the cases then use, instead of a login of their own.
   */
  callerOf(role: Exclude<keyof CallerRoles, 'localPeer' | 'prober'>): Promise<Caller> {
    const jid = this.#roles[role];
    if (jid === undefined) return Promise.reject(new Error(`the SUT config names no ${role} account`));
    return this.#role(jid);
  }

  #role(jid: string, options: CallerSendOptions = {}): Promise<Caller> {
    const existing = this.#connected.get(jid);
    if (existing !== undefined) {
      return existing.then((caller) => (caller.status === 'online' ? caller : this.#reconnect(jid, options)));
    }
    return this.#reconnect(jid, options);
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
