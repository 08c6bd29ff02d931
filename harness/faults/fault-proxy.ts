// A TCP proxy that sits on one link of the federation (an s2s direction or the component link) and
// misbehaves on demand. Faults act on the byte stream only, so TLS and XMPP pass through untouched
// until a fault is applied. Needs no privileges: it is an ordinary listener on a loopback address.
import { EventEmitter, once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Element } from '@xmpp/xml';

import { XmlStreamReader } from '../../protocol/xml/index.ts';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

export type FaultMode = 'forward' | 'blackhole' | 'frozen';

interface ProxyEvents {
  /** A client connected (the proxy has started connecting upstream, unless blackholed). */
  connection: [];
  /** Bytes were held back (frozen or delayed) instead of being forwarded at once. */
  held: [bytes: number];
  /** Bytes were discarded (blackhole). */
  dropped: [bytes: number];
  /** A proxied connection ended, for whatever reason. */
  closed: [];
  /**
   * The connecting side ended its connection (FIN or RST), even one a tap still holds open
   * towards the target: how a process the harness does not start is seen to die there.
   */
  'client-ended': [];
  /** The connecting side sent a whole stanza (only while stanzas are inspected). */
  stanza: [stanza: Element];
}

/**
 * Looks at each stanza the connecting side sends, once it is complete, before its last bytes are
 * forwarded: 'hold' keeps the chunk that completed it, and everything after it on that
 * connection, from the target until the connection ends or `releaseHeld()`.
 */
export type StanzaTap = (stanza: Element) => 'forward' | 'hold';

type Queued = { readonly due: number; readonly chunk: Buffer } | { readonly due: number; readonly end: true };

/** One direction of one proxied connection: bytes (and the final FIN) from `source` to `sink`, in order. */
class Direction {
  readonly #queue: Queued[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastDue = 0;
  #waitingForDrain = false;
  /** Held back by a stanza tap: nothing more leaves until the hold is released. */
  #held = false;
  /** Whole stanzas parsed out of the stream, when the proxy inspects this direction. */
  readonly #stanzas: StanzaReader | undefined;
  /**
   * On an inspected link, the answers' stanza boundaries (towards the client), where raw bytes
   * may be injected without splitting one of the target's stanzas.
   */
  readonly #boundaries: StanzaReader | undefined;
  /** Injections waiting for the next stanza boundary, each with what to call once it is queued. */
  #pendingInjections: {
    readonly bytes: Buffer;
    readonly done: () => void;
    readonly fail: (error: Error) => void;
  }[] = [];
  /**
   * Why no injection can be placed any more (the source ended, the connection was reset): set so
   * that a waiting or later `inject` is refused instead of waiting for a boundary that never comes.
   */
  #refusal: string | undefined;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly source: Socket,
    private readonly sink: Socket | undefined,
    private readonly connection: ProxiedConnection,
    /** From the connecting side to the target (as opposed to the answers coming back). */
    readonly towardsTarget: boolean,
  ) {
    this.#stanzas = towardsTarget && proxy.inspectingStanzas ? new StanzaReader() : undefined;
    this.#boundaries = !towardsTarget && proxy.inspectingStanzas ? new StanzaReader() : undefined;
    source.on('data', (chunk: Buffer) => {
      if (this.#boundaries !== undefined) {
        this.#forwardAnswer(chunk, this.#boundaries);
        return;
      }
      const from = this.#stanzas === undefined ? undefined : this.#inspect(chunk);
      if (from === undefined) {
        this.#push({ chunk });
        return;
      }
      // What precedes the held stanza in this chunk (whole stanzas) still goes.
      if (from > 0) this.#push({ chunk: chunk.subarray(0, from) });
      this.#held = true;
      this.#push({ chunk: chunk.subarray(from) });
    });
    source.on('end', () => {
      this.#refuseInjections('the target ended the connection');
      this.#push({ end: true });
    });
  }

  /**
   * Queues `bytes` as if the source had sent them, between two of its stanzas: at once when the
   * stream is at a boundary now, else right after the next stanza completes.
   */
  inject(bytes: Buffer): Promise<void> {
    const boundaries = this.#boundaries;
    if (boundaries === undefined) return Promise.reject(new Error('only an inspected link takes injections'));
    // Refused rather than left waiting: no boundary comes after the end of the connection or of
    // the target's stream (and bytes after </stream:stream> are not "between two stanzas").
    if (boundaries.ended) this.#refuseInjections('the target closed its stream (</stream:stream>)');
    if (this.#refusal !== undefined) return Promise.reject(new Error(this.#refusalMessage()));
    if (boundaries.atStanzaBoundary && this.#pendingInjections.length === 0) {
      this.#push({ chunk: bytes });
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.#pendingInjections.push({ bytes, done: resolve, fail: reject });
    });
  }

  /** Rejects every waiting injection, and every later one, with `reason`. */
  #refuseInjections(reason: string): void {
    this.#refusal ??= reason;
    const pending = this.#pendingInjections;
    this.#pendingInjections = [];
    for (const injection of pending) injection.fail(new Error(this.#refusalMessage()));
  }

  #refusalMessage(): string {
    return `${this.proxy.name}: cannot inject: ${this.#refusal ?? ''} before a stanza boundary`;
  }

  /** A chunk of the target's answers, with any pending injection placed after its first stanza. */
  #forwardAnswer(chunk: Buffer, boundaries: StanzaReader): void {
    const ends = boundaries.read(chunk).map(({ end }) => end);
    const at = ends[0];
    const pending = this.#pendingInjections;
    if (pending.length === 0 || at === undefined) {
      this.#push({ chunk });
      if (pending.length > 0 && boundaries.ended) {
        this.#refuseInjections('the target closed its stream (</stream:stream>)');
      }
      return;
    }
    this.#pendingInjections = [];
    this.#push({ chunk: chunk.subarray(0, at) });
    for (const injection of pending) {
      this.#push({ chunk: injection.bytes });
      injection.done();
    }
    if (at < chunk.length) this.#push({ chunk: chunk.subarray(at) });
  }

  get heldBytes(): number {
    let total = 0;
    for (const item of this.#queue) if ('chunk' in item) total += item.chunk.length;
    return total;
  }

  get held(): boolean {
    return this.#held;
  }

  /** Where in `chunk` holding starts, when a tap holds a stanza this chunk completes. */
  #inspect(chunk: Buffer): number | undefined {
    let previousEnd = 0;
    let from: number | undefined;
    // Every stanza is reported, held ones too (the sender wrote them); the tap decides only
    // until something is held.
    for (const { stanza, end } of this.#stanzas?.read(chunk) ?? []) {
      this.proxy.emit('stanza', stanza);
      if (!this.#held && from === undefined && this.proxy.tapStanza(stanza) === 'hold') from = previousEnd;
      previousEnd = end;
    }
    return from;
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.flush();
  }

  #push(item: { chunk: Buffer } | { end: true }): void {
    if (this.proxy.mode === 'blackhole' || this.sink === undefined) {
      this.connection.damaged = true;
      if ('chunk' in item) this.proxy.emit('dropped', item.chunk.length);
      else if (this.sink === undefined) this.connection.reset();
      return;
    }
    // Delays never reorder: a chunk is due no earlier than the one before it.
    const due = Math.max(Date.now() + this.proxy.delayMs, this.#lastDue);
    this.#lastDue = due;
    this.#queue.push({ due, ...item });
    this.flush();
    if (this.#queue.length > 0 && 'chunk' in item) this.proxy.emit('held', item.chunk.length);
  }

  /** Forwards everything that is due, unless the link is frozen; schedules the rest. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const sink = this.sink;
    if (this.proxy.mode === 'frozen' || this.#held || sink === undefined) return;
    const now = Date.now();
    for (let head = this.#queue[0]; head !== undefined; head = this.#queue[0]) {
      if (head.due > now) {
        this.#timer = setTimeout(() => {
          this.flush();
        }, head.due - now);
        return;
      }
      this.#queue.shift();
      if ('end' in head) {
        sink.end();
      } else if (!sink.write(head.chunk) && !this.#waitingForDrain) {
        // Keep memory bounded on a slow sink: stop reading until it drains.
        this.#waitingForDrain = true;
        this.source.pause();
        sink.once('drain', () => {
          this.#waitingForDrain = false;
          this.source.resume();
        });
      }
    }
  }

  discard(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
    this.#refuseInjections('the connection was reset or closed');
  }
}

/**
 * An XMPP stream read stanza by stanza (the top-level children of <stream:stream>), on the one
 * XML reader. Once the bytes stop being XML it can read (TLS after STARTTLS, garbage) it reads
 * nothing more, and no boundary comes again.
 */
class StanzaReader {
  // Not restricted: the proxy forwards whatever the link carries; it only needs the boundaries.
  readonly #reader = new XmlStreamReader({ restricted: false });
  #closed = false;

  /** The stanzas this chunk completed, each with the offset just past its last byte in the chunk. */
  read(chunk: Buffer): { readonly stanza: Element; readonly end: number }[] {
    const found: { stanza: Element; end: number }[] = [];
    for (const event of this.#reader.write(chunk)) {
      if (event.kind === 'element') found.push({ stanza: event.element, end: event.end });
      else if (event.kind === 'stream-close') this.#closed = true;
    }
    return found;
  }

  /**
   * Whether everything read so far ends between two stanzas: the stream is open, no element
   * below it is open, and nothing but whitespace followed the last one.
   */
  get atStanzaBoundary(): boolean {
    return this.#reader.atStanzaBoundary;
  }

  /** The target closed its stream (</stream:stream>). */
  get ended(): boolean {
    return this.#closed;
  }
}

/** A client connection and (unless it arrived during a blackhole) its upstream connection. */
class ProxiedConnection {
  /** Bytes were dropped in a blackhole: the stream can never be consistent again. */
  damaged = false;
  readonly upstream: Socket | undefined;
  readonly #directions: Direction[];
  #finished = false;

  constructor(
    proxy: FaultProxy,
    readonly client: Socket,
    target: Endpoint | undefined,
    private readonly onFinished: () => void,
  ) {
    const upstream =
      target === undefined
        ? undefined
        : connect({ host: target.host, port: target.port, allowHalfOpen: true });
    this.upstream = upstream;
    this.#directions = [new Direction(proxy, client, upstream, this, true)];
    if (upstream !== undefined) this.#directions.push(new Direction(proxy, upstream, client, this, false));
    for (const socket of [client, upstream]) {
      // An abrupt end on one side (RST, refused upstream) is passed on as an abrupt end on the other.
      socket?.on('error', () => {
        this.reset();
      });
      socket?.on('close', () => {
        if (client.destroyed && (upstream === undefined || upstream.destroyed)) this.#finish();
      });
    }
  }

  heldBytes(towardsTarget: boolean): number {
    return this.#directions
      .filter((direction) => direction.towardsTarget === towardsTarget)
      .reduce((sum, direction) => sum + direction.heldBytes, 0);
  }

  flush(): void {
    for (const direction of this.#directions) direction.flush();
  }

  /** Raw bytes to the client, as if the target had sent them (between two of its stanzas). */
  injectTowardsClient(bytes: Buffer): Promise<void> {
    const answers = this.#directions.find((direction) => !direction.towardsTarget);
    if (answers === undefined) return Promise.reject(new Error('no target behind this connection'));
    return answers.inject(bytes);
  }

  get held(): boolean {
    return this.#directions.some((direction) => direction.held);
  }

  release(): void {
    for (const direction of this.#directions) direction.release();
  }

  /** TCP RST to both sides. */
  reset(): void {
    for (const direction of this.#directions) direction.discard();
    if (!this.client.destroyed) this.client.resetAndDestroy();
    if (this.upstream !== undefined && !this.upstream.destroyed) this.upstream.resetAndDestroy();
    this.#finish();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    for (const direction of this.#directions) direction.discard();
    this.onFinished();
  }
}

export interface FaultProxyOptions {
  readonly listen: Endpoint;
  readonly target: Endpoint;
  /** Used in diagnostics. */
  readonly name?: string;
  /** Read what connecting sides send stanza by stanza from the first connection (`inspectStanzas`). */
  readonly inspectStanzas?: boolean;
}

export class FaultProxy extends EventEmitter<ProxyEvents> {
  readonly name: string;
  readonly target: Endpoint;
  #listen: Endpoint;
  #mode: FaultMode = 'forward';
  #delayMs = 0;
  #accepted = 0;
  #inspecting = false;
  #tap: StanzaTap | undefined;
  /** Set while new connections wait before going upstream (holdUntil). */
  #gate: Promise<void> | undefined;
  readonly #connections = new Set<ProxiedConnection>();
  readonly #server: Server;

  private constructor(options: FaultProxyOptions, server: Server) {
    super();
    this.name = options.name ?? `proxy ${options.listen.host}:${options.listen.port}`;
    this.target = options.target;
    this.#listen = options.listen;
    this.#server = server;
  }

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    // Half-open streams are relayed as such: a FIN from one side is forwarded, not answered.
    const server = createServer({ allowHalfOpen: true });
    const proxy = new FaultProxy(options, server);
    if (options.inspectStanzas === true) proxy.inspectStanzas();
    server.on('connection', (socket) => {
      proxy.#accept(socket);
    });
    server.listen({ host: options.listen.host, port: options.listen.port, exclusive: true });
    await once(server, 'listening');
    const address = server.address();
    if (address !== null && typeof address === 'object') {
      proxy.#listen = { host: address.address, port: address.port };
    }
    return proxy;
  }

  /** Where clients connect (the port is the real one when 0 was asked for). */
  get listen(): Endpoint {
    return this.#listen;
  }

  get mode(): FaultMode {
    return this.#mode;
  }

  get delayMs(): number {
    return this.#delayMs;
  }

  /** Connections accepted since the proxy started. */
  get acceptedConnections(): number {
    return this.#accepted;
  }

  get openConnections(): number {
    return this.#connections.size;
  }

  /** Bytes currently held back by a freeze or a delay, in both directions. */
  get heldBytes(): number {
    return this.heldBytesTowardsTarget + this.heldBytesTowardsClient;
  }

  /** Held bytes sent by the connecting side (for an s2s link: by the server that opened it). */
  get heldBytesTowardsTarget(): number {
    let total = 0;
    for (const connection of this.#connections) total += connection.heldBytes(true);
    return total;
  }

  /** Held bytes the target sent back. */
  get heldBytesTowardsClient(): number {
    let total = 0;
    for (const connection of this.#connections) total += connection.heldBytes(false);
    return total;
  }

  /** Every byte, in both directions, is forwarded `ms` later than it arrived (order is kept). */
  delay(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`delay must be a non-negative number, got ${ms}`);
    this.#delayMs = ms;
  }

  /** Resets (TCP RST) both sides of every open connection. New connections are still accepted. */
  cut(): void {
    for (const connection of [...this.#connections]) connection.reset();
  }

  /** Accepts connections but forwards nothing, in either direction, on old and new connections. */
  blackhole(): void {
    this.#mode = 'blackhole';
  }

  /** Stops forwarding; whatever arrives is held, in order, until `resume()` or `restore()`. */
  freeze(): void {
    this.#mode = 'frozen';
  }

  /** Ends a freeze: held bytes are flushed in order and forwarding continues (a delay stays). */
  resume(): void {
    if (this.#mode !== 'frozen') return;
    this.#mode = 'forward';
    for (const connection of this.#connections) connection.flush();
  }

  /**
   * Back to normal: no delay, no freeze (held bytes are flushed), no blackhole. Connections that
   * lost bytes in a blackhole are reset, since the streams they carry can never recover.
   */
  restore(): void {
    this.#delayMs = 0;
    this.#mode = 'forward';
    for (const connection of [...this.#connections]) {
      if (connection.damaged || connection.upstream === undefined) connection.reset();
      else connection.flush();
    }
  }

  /**
   * From now on, what the connecting side sends on each new connection is read stanza by stanza
   * ('stanza' events, `tap`): for a plaintext XMPP stream such as the XEP-0114 component link.
   * Connections already open stay unread.
   */
  inspectStanzas(): void {
    this.#inspecting = true;
  }

  get inspectingStanzas(): boolean {
    return this.#inspecting;
  }

  /** Puts `tap` (or, with undefined, nothing) in the path of every inspected stanza. */
  tap(tap: StanzaTap | undefined): void {
    this.#tap = tap;
  }

  /** @internal What the tap decides for one stanza (forward when there is none). */
  tapStanza(stanza: Element): 'forward' | 'hold' {
    return this.#tap?.(stanza) ?? 'forward';
  }

  /**
   * Writes `bytes` to the connecting side of every open connection as though the target had
   * sent them, between two of the target's stanzas (after the next one when a stanza is under
   * way): input the target itself would never produce, such as restricted XML on a component
   * link. Only on a link whose stanzas are inspected (`inspectStanzas` before the connection
   * opened). Resolves with the number of connections written to, once the bytes are queued (0
   * when none is open); rejects when a connection ends, is reset or has its stream closed before
   * a boundary comes, rather than waiting for one that never will.
   */
  async inject(bytes: string | Buffer): Promise<number> {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    const open = [...this.#connections].filter((connection) => connection.upstream !== undefined);
    await Promise.all(open.map((connection) => connection.injectTowardsClient(data)));
    return open.length;
  }

  /** Connections a tap holds back. */
  get heldConnections(): number {
    let held = 0;
    for (const connection of this.#connections) if (connection.held) held += 1;
    return held;
  }

  /** Lets every held connection go on: what a tap held is forwarded, in order. */
  releaseHeld(): void {
    for (const connection of this.#connections) connection.release();
  }

  /** Resolves when a 'held' (or other) event satisfies `predicate`, or rejects at the deadline. */
  async waitFor(
    event: keyof ProxyEvents,
    predicate: () => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const listener = (): void => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.off(event, listener);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off(event, listener);
        reject(new Error(`${this.name}: no '${event}' satisfying the condition within ${timeoutMs} ms`));
      }, timeoutMs);
      this.on(event, listener);
    });
  }

  /** Stops listening and resets every open connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
    this.cut();
    await closed;
  }

  /**
   * Connections accepted before `ready` settles wait for it before the proxy connects upstream:
   * the link listens before the server behind it does, so a client can start while the server
   * boots and simply sees a slow server. What it sends meanwhile stays unread; if `ready`
   * rejects, those connections are reset.
   */
  holdUntil(ready: Promise<unknown>): void {
    const gate = ready.then(() => undefined);
    this.#gate = gate;
    gate
      .finally(() => {
        if (this.#gate === gate) this.#gate = undefined;
      })
      .catch(() => undefined);
  }

  #accept(client: Socket): void {
    const gate = this.#gate;
    if (gate === undefined) {
      this.#acceptNow(client);
      return;
    }
    client.pause();
    const dropped = (): void => undefined;
    client.on('error', dropped);
    gate.then(
      () => {
        client.off('error', dropped);
        if (client.destroyed) return;
        this.#acceptNow(client);
        client.resume();
      },
      () => {
        if (!client.destroyed) client.resetAndDestroy();
      },
    );
  }

  #acceptNow(client: Socket): void {
    this.#accepted += 1;
    client.setNoDelay(true);
    const target = this.#mode === 'blackhole' ? undefined : this.target;
    const connection = new ProxiedConnection(this, client, target, () => {
      this.#connections.delete(connection);
      this.emit('closed');
    });
    connection.upstream?.setNoDelay(true);
    let clientEnded = false;
    const onClientEnd = (): void => {
      if (clientEnded) return;
      clientEnded = true;
      this.emit('client-ended');
    };
    client.once('end', onClientEnd);
    client.once('close', onClientEnd);
    this.#connections.add(connection);
    this.emit('connection');
  }
}
