/**
 * The link of a XEP-0114 component to its server: the TCP socket to the component port, the
 * stream header and handshake (XEP-0114 #proto), the stream reader, writing, and reconnection
 * with the caller's backoff. It emits stanzas as @xmpp/xml Elements and online / offline /
 * error, and it refuses restricted XML (RFC 6120 §11.1).
 *
 * Why a socket-owning module sits in protocol/: the reference gateway and the harness's test
 * components (the echo and hollow components) speak over the same link, and protocol/ is the
 * only layer below both. It stays wire mechanics only: no storage, and no clock or randomness it
 * is not given (timers come from `timing`, delays from `reconnectDelay`).
 *
 * The stream is read by the one XML reader (protocol/xml), fed the socket's bytes as they come:
 * it decodes UTF-8 across reads, so a character split between two TCP segments arrives whole
 * (#json-encoding). What it reports decides the stream's fate:
 * - restricted XML (a comment, a processing instruction, a DTD, an entity reference: RFC 6120
 *   §11.1) ends the stream with <restricted-xml/> (§4.9.3.18) and the socket at once; a feature
 *   like that says the peer is broken or hostile, so nothing after it is read, and the lost
 *   stream is retried like any other. CDATA is legal XML and reads as character data;
 * - input that is not well-formed gets <bad-format/> (§4.9.3.1) and a polite close;
 * - a stream error from the server is reported ('error', or the attempt's rejection) and the
 *   stream closed politely (§4.9.1.1: stream errors are unrecoverable).
 *
 * Reconnection: the first attempt's failure is the caller's (start() rejects, nothing is
 * retried); once online, every lost stream is retried after reconnectDelay(attempt), never
 * giving up, until stop(). Without reconnectDelay the link stays down once lost.
 */
import { EventEmitter, once } from 'node:events';
import { Socket } from 'node:net';
import type { Element } from '@xmpp/xml';
import { XmlStreamReader, type RestrictedFeature } from '../xml/xml-stream-reader.ts';
import {
  STREAM_FOOTER,
  handshakeElement,
  isStanza,
  streamErrorElement,
  streamErrorOf,
  streamHeader,
} from './stream-texts.ts';

export { StreamError } from './stream-texts.ts';
export type { RestrictedFeature } from '../xml/xml-stream-reader.ts';

export interface LinkTiming {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

const SYSTEM_TIMING: LinkTiming = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** How long the server gets to answer each step (stream header, handshake, closing tag). */
export const DEFAULT_STEP_TIMEOUT_MS = 2000;

export interface ComponentLinkOptions {
  readonly host: string;
  readonly port: number;
  /** The component's domain: the stream header's 'to' and the JID it acts for. */
  readonly domain: string;
  readonly secret: string;
  /** The delay before reconnect attempt `attempt` (1-based); absent: a lost stream stays lost. */
  readonly reconnectDelay?: (attempt: number) => number;
  /** The deadline of one whole attempt (TCP connect, stream open, handshake); absent: none. */
  readonly attemptTimeoutMs?: number;
  readonly stepTimeoutMs?: number;
  readonly timing?: LinkTiming;
}

/** One attempt (TCP connect, stream open, handshake) missed its deadline. */
export class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

/** The server did not answer one step of the stream open or the handshake in time. */
export class StepTimeout extends Error {
  override readonly name = 'StepTimeout';
}

export interface ComponentLinkEvents {
  /** The handshake succeeded (each time the stream comes up). */
  online: [];
  /** A stream that was online went down. */
  offline: [];
  /** An <iq/>, <message/> or <presence/> from the server, in stream order. */
  stanza: [stanza: Element];
  /** Bytes arrived (liveness, whatever they hold). */
  input: [];
  /** While online: a stream error from the server, input not well-formed, a socket error. */
  error: [error: Error];
  /** Restricted XML arrived; the stream is being closed with <restricted-xml/>. */
  restricted: [feature: RestrictedFeature];
  /** A lost stream will be retried after `delayMs`. */
  reconnecting: [attempt: number, delayMs: number];
  /** A reconnect attempt failed (the next one is scheduled). */
  'reconnect-failed': [attempt: number, error: unknown];
}

/** The attempt under way: settled by the handshake's outcome, read off the stream. */
interface Opening {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** The current step's deadline (the server's stream header, then its handshake answer). */
  timer: unknown;
}

export type LinkStatus = 'offline' | 'connecting' | 'online' | 'closing';

export class ComponentLink extends EventEmitter<ComponentLinkEvents> {
  readonly #options: ComponentLinkOptions;
  readonly #timing: LinkTiming;
  readonly #stepTimeoutMs: number;
  #socket: Socket | null = null;
  #reader = new XmlStreamReader({ restricted: true });
  /** The server's stream header on the current socket. */
  #serverStream: Element | undefined;
  #opening: Opening | undefined;
  /** Resolves once the server's closing tag arrives, while this side closes the stream. */
  #serverClosed: (() => void) | undefined;
  #status: LinkStatus = 'offline';
  /** Whether the current socket's stream has been online ('offline' is announced once). */
  #up = false;
  /** Set once the stream was first online: from then on a lost stream is retried. */
  #started = false;
  #stopping = false;
  /** An attempt is under way: its own failure path schedules the next one, not the close. */
  #attempting = false;
  #attempt = 0;
  #timer: unknown;
  /** Whether the socket is corked until the next tick (write()). */
  #corked = false;

  constructor(options: ComponentLinkOptions) {
    super();
    this.#options = options;
    this.#timing = options.timing ?? SYSTEM_TIMING;
    this.#stepTimeoutMs = options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  }

  get status(): LinkStatus {
    return this.#status;
  }

  get online(): boolean {
    return this.#status === 'online';
  }

  /** The first attempt: resolves once online, rejects with the attempt's failure (not retried). */
  async start(): Promise<void> {
    this.#stopping = false;
    await this.#connectOnce();
  }

  /**
   * Writes `text` to the stream as it is. The socket is corked at the first write of a tick and
   * uncorked once the current callbacks and microtasks are done, so the writes one turn produces
   * (a whole admission group, say) leave in one writev: fewer syscalls here and fewer reads for
   * the server (bench/admission).
   */
  write(text: string): Promise<void> {
    const socket = this.#socket;
    if (socket === null || this.#status === 'closing') {
      return Promise.reject(new Error('the component link is not open'));
    }
    if (!this.#corked) {
      this.#corked = true;
      socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    return writeTo(socket, text);
  }

  /** Drops the current socket at once (a dead link); a started link then reconnects. */
  drop(): void {
    this.#socket?.destroy();
  }

  /**
   * Closes the stream politely, giving the server `graceMs` for each step (its closing tag, the
   * TCP close), then drops what is left; no reconnect afterwards.
   */
  async stop(graceMs = this.#stepTimeoutMs): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) this.#timing.clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    if (socket === null) return;
    await this.#closePolitely(socket, { prefix: '', awaitServerClose: true, graceMs });
  }

  /** One attempt: TCP connect, stream open, handshake, within the attempt deadline. */
  async #connectOnce(): Promise<void> {
    this.#attempting = true;
    const socket = this.#attach();
    const attempt = this.#open(socket);
    let deadline: unknown;
    const expired = new Promise<never>((_resolve, reject) => {
      const timeoutMs = this.#options.attemptTimeoutMs;
      if (timeoutMs === undefined) return;
      deadline = this.#timing.setTimeout(() => {
        reject(new AttemptTimeout());
      }, timeoutMs);
    });
    try {
      await Promise.race([attempt, expired]);
    } catch (error) {
      attempt.catch(() => undefined);
      await abandon(socket);
      throw error;
    } finally {
      this.#attempting = false;
      this.#timing.clearTimeout(deadline);
      expired.catch(() => undefined);
    }
  }

  /** A fresh socket and reader, wired to this link (events of an older socket are ignored). */
  #attach(): Socket {
    const socket = new Socket();
    this.#socket = socket;
    this.#reader = new XmlStreamReader({ restricted: true });
    this.#serverStream = undefined;
    this.#serverClosed = undefined;
    this.#up = false;
    this.#status = 'connecting';
    socket.on('data', (chunk: Buffer) => {
      if (socket === this.#socket) this.#read(socket, chunk);
    });
    socket.on('error', (error) => {
      if (socket === this.#socket) this.#fail(error);
    });
    socket.on('close', () => {
      if (socket === this.#socket) this.#onClose();
    });
    return socket;
  }

  /** TCP connect, then the stream header; the rest of the handshake is driven by #read. */
  async #open(socket: Socket): Promise<void> {
    const { host, port, domain } = this.#options;
    const connected = once(socket, 'connect');
    socket.connect({ host, port });
    await connected;
    // Replies and events are small writes in quick succession: with Nagle's algorithm each one
    // after the first waits for the server's delayed ACK, about 40 ms (bench/admission).
    socket.setNoDelay(true);
    const opened = new Promise<void>((resolve, reject) => {
      this.#opening = { resolve, reject, timer: undefined };
    });
    this.#armStep();
    await Promise.all([writeTo(socket, streamHeader(domain)), opened]);
  }

  /** The server gets the step timeout to answer what was just written. */
  #armStep(): void {
    const opening = this.#opening;
    if (opening === undefined) return;
    this.#timing.clearTimeout(opening.timer);
    opening.timer = this.#timing.setTimeout(() => {
      this.#fail(new StepTimeout('the server did not answer in time'));
    }, this.#stepTimeoutMs);
  }

  #read(socket: Socket, chunk: Buffer): void {
    this.emit('input');
    for (const event of this.#reader.write(chunk)) {
      switch (event.kind) {
        case 'stream-open':
          this.#onServerStream(socket, event.element);
          break;
        case 'element':
          this.#onElement(socket, event.element);
          break;
        case 'stream-close':
          this.#onServerClose(socket);
          break;
        case 'restricted':
          this.#refuseRestricted(socket, event.feature);
          return;
        case 'error':
          this.#fail(event.error);
          void this.#closePolitely(socket, {
            prefix: streamErrorElement('bad-format'),
            awaitServerClose: false,
            graceMs: this.#stepTimeoutMs,
          });
          return;
      }
    }
  }

  /** XEP-0114 #proto: the server's header carries the stream id the handshake digests. */
  #onServerStream(socket: Socket, header: Element): void {
    this.#serverStream = header;
    if (this.#opening === undefined) return;
    const id: unknown = header.attrs['id'];
    if (typeof id !== 'string') {
      this.#fail(new Error('the server opened the stream without an id'));
      socket.destroy();
      return;
    }
    this.#armStep();
    writeTo(socket, handshakeElement(id, this.#options.secret)).catch(() => undefined);
  }

  #onElement(socket: Socket, element: Element): void {
    const streamError = streamErrorOf(element, this.#serverStream);
    if (streamError !== undefined) {
      this.#fail(streamError);
      void this.#closePolitely(socket, { prefix: '', awaitServerClose: true, graceMs: this.#stepTimeoutMs });
      return;
    }
    if (this.#opening !== undefined) {
      if (element.name === 'handshake') this.#goOnline();
      else this.#fail(new Error('Unexpected server response'));
      return;
    }
    if (isStanza(element)) this.emit('stanza', element);
  }

  /** Online at once, so the stanzas that follow the handshake answer in the same read are handled. */
  #goOnline(): void {
    const opening = this.#opening;
    if (opening === undefined) return;
    this.#timing.clearTimeout(opening.timer);
    this.#opening = undefined;
    this.#started = true;
    this.#up = true;
    this.#attempt = 0;
    this.#status = 'online';
    opening.resolve();
    this.emit('online');
  }

  /** The server closed its stream: close ours too (RFC 6120 §4.4), then the TCP connection. */
  #onServerClose(socket: Socket): void {
    if (this.#serverClosed !== undefined) {
      this.#serverClosed();
      return;
    }
    this.#rejectOpening(new Error('the server closed the stream'));
    void this.#closePolitely(socket, { prefix: '', awaitServerClose: false, graceMs: this.#stepTimeoutMs });
  }

  /** RFC 6120 §11.1: <restricted-xml/>, then the socket goes at once, whatever the server does. */
  #refuseRestricted(socket: Socket, feature: RestrictedFeature): void {
    this.emit('restricted', feature);
    this.#rejectOpening(new Error(`restricted XML on the component stream (${feature})`));
    void writeTo(socket, streamErrorElement('restricted-xml') + STREAM_FOOTER)
      .catch(() => undefined)
      .finally(() => {
        if (!socket.closed) socket.destroy();
      });
  }

  /** The attempt under way fails with `error`; an online link reports it instead. */
  #fail(error: Error): void {
    if (!this.#rejectOpening(error)) this.#report(error);
  }

  /** Fails the attempt under way, if any; false when there is none. */
  #rejectOpening(error: Error): boolean {
    const opening = this.#opening;
    if (opening === undefined) return false;
    this.#timing.clearTimeout(opening.timer);
    this.#opening = undefined;
    opening.reject(error);
    return true;
  }

  #report(error: Error): void {
    if (this.#status === 'online' && this.listenerCount('error') > 0) this.emit('error', error);
  }

  /**
   * A stream error (or nothing) and the closing tag; then the server's closing tag (when one can
   * still come) and the TCP close, each within `graceMs`; then whatever is left is dropped.
   */
  async #closePolitely(
    socket: Socket,
    how: { readonly prefix: string; readonly awaitServerClose: boolean; readonly graceMs: number },
  ): Promise<void> {
    const closed = closeOf(socket);
    if (this.#status !== 'closing' && !socket.closed) {
      this.#status = 'closing';
      const serverClosed = new Promise<void>((resolve) => {
        this.#serverClosed = resolve;
      });
      await writeTo(socket, how.prefix + STREAM_FOOTER).catch(() => undefined);
      if (how.awaitServerClose) await this.#within(serverClosed, how.graceMs);
      socket.end();
      await this.#within(closed, how.graceMs);
    }
    if (!socket.closed) socket.destroy();
    await closed;
  }

  async #within(promise: Promise<void>, ms: number): Promise<void> {
    let timer: unknown;
    await Promise.race([
      promise,
      new Promise<void>((resolve) => {
        timer = this.#timing.setTimeout(resolve, ms);
      }),
    ]);
    this.#timing.clearTimeout(timer);
  }

  #onClose(): void {
    this.#socket = null;
    this.#serverClosed = undefined;
    this.#rejectOpening(new Error('the server closed the connection'));
    this.#status = 'offline';
    if (this.#up) {
      this.#up = false;
      this.emit('offline');
    }
    if (this.#started && !this.#stopping && !this.#attempting) this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const delayOf = this.#options.reconnectDelay;
    if (delayOf === undefined || this.#timer !== undefined || this.#stopping || this.#socket !== null) return;
    this.#attempt += 1;
    const attempt = this.#attempt;
    const delay = delayOf(attempt);
    this.emit('reconnecting', attempt, delay);
    this.#timer = this.#timing.setTimeout(() => {
      this.#timer = undefined;
      void this.#reconnect(attempt);
    }, delay);
  }

  async #reconnect(attempt: number): Promise<void> {
    if (this.#stopping || this.#socket !== null) return;
    try {
      await this.#connectOnce();
    } catch (error) {
      this.emit('reconnect-failed', attempt, error);
      this.#scheduleReconnect();
    }
  }
}

function writeTo(socket: Socket, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(text, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
}

/** Tears down a failed attempt's socket and waits until it has closed. */
async function abandon(socket: Socket): Promise<void> {
  const closed = closeOf(socket);
  socket.destroy();
  await closed;
}

/**
 * Resolves once the socket has closed. Not events.once: that rejects on an 'error' first (a
 * reset while closing), and the close comes right after it anyway.
 */
function closeOf(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
}
