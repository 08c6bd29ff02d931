/**
 * The test driver of one federation: makes callers (any account of the federation, any number of
 * resources each), gives them the run's CA, points them at the current test's transcript and
 * closes them all at the end.
 */
import { readFile } from 'node:fs/promises';

import type { Federation } from '../federation/server-provider.ts';
import { Caller, type BeforeSend, type SecondReply, type SendGate } from './caller.ts';
import { Transcript } from './transcript.ts';

export interface DriverOptions {
  /** Where callers record until useTranscript() is called (default: a new one titled "driver"). */
  readonly transcript?: Transcript;
  /** Default deadline of IQs and waits (default 5000 ms). */
  readonly timeoutMs?: number;
  /** Deadline of a login (default 10 000 ms). */
  readonly loginTimeoutMs?: number;
  /** Awaited by every caller before each stanza it sends (see CallerOptions.beforeSend). */
  readonly beforeSend?: BeforeSend;
  /** Called by every caller, paced or not, before each stanza it sends (see CallerOptions.sendGate). */
  readonly sendGate?: SendGate;
}

/** How one caller sends, against the driver's defaults. */
export interface CallerSendOptions {
  /**
   * Skip the driver's beforeSend (the run's pacing): for a sender whose point is to exceed the
   * gateway's documented rate (security.rate-limits), which a paced sender never could.
   */
  readonly unpaced?: boolean;
  /**
   * Records into this transcript for good: `useTranscript` leaves the caller alone. For a caller
   * one case owns while other cases run beside it, so no other case's switch takes its stanzas.
   */
  readonly transcript?: Transcript;
}

export class Driver {
  readonly federation: Federation;
  readonly #options: DriverOptions;
  readonly #callers: Caller[] = [];
  readonly #pinned = new WeakSet<Caller>();
  #transcript: Transcript;
  #ca: Promise<string> | undefined;

  constructor(federation: Federation, options: DriverOptions = {}) {
    this.federation = federation;
    this.#options = options;
    this.#transcript = options.transcript ?? new Transcript('driver');
  }

  /** The transcript new and existing callers record into. */
  get transcript(): Transcript {
    return this.#transcript;
  }

  /** Every caller made so far, closed ones included. */
  get callers(): readonly Caller[] {
    return this.#callers;
  }

  /** Every second reply any caller received so far (see Caller.secondReplies). */
  secondReplies(): SecondReply[] {
    return this.#callers.flatMap((caller) => caller.secondReplies);
  }

  /** Switches every caller, present and future, to `transcript` (but those pinned to their own); returns it. */
  useTranscript(transcript: Transcript): Transcript {
    this.#transcript = transcript;
    for (const caller of this.#callers) if (!this.#pinned.has(caller)) caller.useTranscript(transcript);
    return transcript;
  }

  /**
   * A caller for `account` (a bare JID with an account on the federation) and `resource`, not yet
   * connected. Two open callers with one full JID would knock each other off the server, so that
   * is refused.
   */
  caller(account: string, resource: string, options: CallerSendOptions = {}): Caller {
    const details = this.federation.account(account);
    const clash = this.#callers.find(
      (caller) =>
        caller.bareJid === details.jid &&
        caller.resource === resource &&
        !['closed', 'lost', 'failed'].includes(caller.status),
    );
    if (clash !== undefined)
      throw new Error(`a caller for ${details.jid}/${resource} is already ${clash.status}`);
    const caller = new Caller({
      account: details,
      resource,
      ca: () => this.#readCa(),
      transcript: options.transcript ?? this.#transcript,
      ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
      ...(this.#options.loginTimeoutMs === undefined ? {} : { loginTimeoutMs: this.#options.loginTimeoutMs }),
      ...(this.#options.sendGate === undefined ? {} : { sendGate: this.#options.sendGate }),
      ...(this.#options.beforeSend === undefined || options.unpaced === true
        ? {}
        : { beforeSend: this.#options.beforeSend }),
    });
    this.#callers.push(caller);
    if (options.transcript !== undefined) this.#pinned.add(caller);
    return caller;
  }

  /** caller() and connect() in one. */
  connect(account: string, resource: string, options: CallerSendOptions = {}): Promise<Caller> {
    return this.caller(account, resource, options).connect();
  }

  /** Closes every caller (in parallel); never rejects. */
  async closeAll(): Promise<void> {
    await Promise.all(this.#callers.map((caller) => caller.close().catch(() => undefined)));
  }

  #readCa(): Promise<string> {
    this.#ca ??= readFile(this.federation.caCertPath, 'utf8');
    const ca = this.#ca;
    ca.catch(() => {
      if (this.#ca === ca) this.#ca = undefined;
    });
    return ca;
  }
}

export function createDriver(federation: Federation, options: DriverOptions = {}): Driver {
  return new Driver(federation, options);
}
