// Logs an @xmpp/client 0.14 connection in over direct TLS, trusting only the run's CA, with a tap
// on the bytes in both directions. Shared by the driver's Caller and the federation tests' client.
//
// Trust without global state: @xmpp/client takes no TLS options, but looks its transports up per
// client, so a direct-TLS transport that adds the CA and the server name to tls.connect is put
// first (STARTTLS cannot be given a CA). NODE_EXTRA_CA_CERTS would work for one run per process
// only.
import type { Socket } from 'node:net';

import {
  client,
  type Jid,
  type Transport,
  type TransportClass,
  type TransportSocketClass,
  type XmppClient,
} from '@xmpp/client';
import type { Element } from '@xmpp/xml';

import type { Account } from '../federation/server-provider.ts';
import { LoginFailed } from './errors.ts';
import { useNativeScramSha1 } from './scram-sha-1.ts';
import { decodeUtf8AcrossChunks } from '../../protocol/stanza/chunk-decoding.ts';

const NS_STREAM_MANAGEMENT = 'urn:xmpp:sm:3';
const NS_STREAMS = 'http://etherx.jabber.org/streams';

/** Sees every byte of the connection: decrypted input as it arrives, output as it is written. */
export interface WireTap {
  received(chunk: Buffer): void;
  sent(text: string): void;
}

export interface ClientConnectionOptions {
  readonly account: Account;
  /** PEM text of the CA to trust (the run's throw-away CA). */
  readonly ca: string;
  readonly resource: string;
  readonly tap?: WireTap;
  /** Deadline for TCP, TLS, SASL and resource binding together (default 10 000 ms). */
  readonly timeoutMs?: number;
}

export interface ClientConnection {
  readonly connection: XmppClient;
  /** The bound full JID. */
  readonly jid: string;
  readonly service: string;
  /** Writes text as is, bypassing the tap (the caller records its own writes). */
  writeRaw(text: string): Promise<void>;
  /**
   * Closes the stream and the socket, destroying the socket if that takes longer than `graceMs`
   * (default 2000; a frozen peer never answers the closing tag). Never rejects.
   */
  close(graceMs?: number): Promise<void>;
}

/** Connection#write: in @xmpp/connection, not in the declared subset of harness/types. */
interface Writable {
  write(text: string): Promise<void>;
}

function trustingDirectTls(
  connection: XmppClient,
  ca: string,
  servername: string,
  onSocket: (socket: Socket) => void,
  tap?: WireTap,
): TransportClass {
  const base = connection.transports.find(
    (transport) =>
      (transport.prototype as Transport).socketParameters('xmpps://probe.invalid:1') !== undefined,
  );
  if (base === undefined) throw new Error('@xmpp/client has no direct TLS transport');
  const BaseSocket: TransportSocketClass = (base.prototype as Transport).Socket;
  class TappedNoDelaySocket extends BaseSocket {
    override connect(options: Record<string, unknown>): void {
      super.connect(options);
      const { socket } = this;
      if (socket === null) return;
      onSocket(socket);
      // With Nagle on, a small write that follows another unacknowledged one waits for a delayed
      // ACK (~40 ms per round trip when stream management sends an <a/> after every stanza).
      socket.setNoDelay(true);
      if (tap !== undefined) {
        socket.on('data', (chunk: Buffer) => {
          tap.received(chunk);
        });
      }
    }
  }
  class TrustingDirectTls extends base {
    override socketParameters(service: string): Record<string, unknown> | undefined {
      const parameters = super.socketParameters(service);
      return parameters === undefined ? undefined : { ...parameters, ca, servername };
    }
  }
  TrustingDirectTls.prototype.Socket = TappedNoDelaySocket;
  return TrustingDirectTls;
}

function saslCondition(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SASLError') return undefined;
  const { condition } = error as Error & { condition?: unknown };
  return typeof condition === 'string' ? condition : undefined;
}

/**
 * XmppClient#stop, bounded: it writes the closing tag and waits for the write to complete, which
 * never happens on a socket whose TLS handshake hangs or whose peer is frozen. After `graceMs`
 * the socket is destroyed, which also settles the pending write.
 */
async function closeBounded(
  connection: XmppClient,
  socket: Socket | undefined,
  graceMs: number,
): Promise<void> {
  // Only an open stream has a closing tag to exchange; before that there is nobody to say goodbye to.
  if (connection.status === 'open' || connection.status === 'online') {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([connection.stop().catch(() => undefined), deadline]);
    clearTimeout(timer);
  }
  socket?.destroy();
}

/**
 * What XmppClient#start does, minus its flaws: start() creates its 'online' promise before the
 * stream is open and awaits it only afterwards, so a SASL failure in between rejects it unhandled
 * (an unhandled rejection in the test run); and nothing bounds it (a blackholed server keeps it
 * waiting forever). Ours is handled from the start, and has a deadline.
 */
async function startConnection(
  connection: XmppClient,
  service: string,
  domain: string,
  timeoutMs: number,
): Promise<Jid> {
  let fail: (error: unknown) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const online = new Promise<Jid>((resolve, reject) => {
    fail = reject;
    connection.once('online', resolve);
    timer = setTimeout(() => {
      reject(new Error(`not online within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  online.catch(() => undefined);
  const onError = (error: unknown): void => {
    fail(error);
  };
  connection.on('error', onError);
  try {
    await Promise.race([
      (async () => {
        await connection.connect(service);
        await connection.open({ domain });
      })(),
      online,
    ]);
    return await online;
  } finally {
    clearTimeout(timer);
    connection.off('error', onError);
  }
}

/** Logs in; rejects with LoginFailed (naming the JID) and leaves no socket behind on failure. */
export async function openClientConnection(options: ClientConnectionOptions): Promise<ClientConnection> {
  const { account, ca, resource, tap } = options;
  const service = `xmpps://${account.c2sDirectTls.host}:${account.c2sDirectTls.port}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connection = client({
    service,
    domain: account.domain,
    username: account.username,
    password: account.password,
    resource,
    // The library's own waits (stream open: 2 s by default) get the login's deadline: a server
    // that has just restarted on a loaded machine may take longer than 2 s to answer the header.
    timeout: timeoutMs,
  });
  // A lost connection stays lost: the test decides what happens next.
  connection.reconnect.stop();
  decodeUtf8AcrossChunks(connection);
  // Standard SCRAM iteration counts cost milliseconds with native PBKDF2 (scram-sha-1.ts).
  useNativeScramSha1(connection.saslFactory);
  // Errors also surface as rejections of the login and of requests; the event must not crash the process.
  connection.on('error', () => undefined);
  let socket: Socket | undefined;
  const onSocket = (opened: Socket): void => {
    socket = opened;
  };
  connection.transports.unshift(trustingDirectTls(connection, ca, account.domain, onSocket, tap));
  // No XEP-0198 on c2s. The library enables it after binding, concurrently with the first stanzas
  // (it fires 'online' at bind, and resets its inbound count when <enabled/> is processed, after
  // stanzas that came with it were counted): Prosody then ends the stream with "Client
  // acknowledged less stanzas than already acknowledged". Raw writes would also bypass its
  // outbound count, and Prosody keeps a resumable session "hibernating" after a lost connection.
  // This listener runs before the library's middleware: without <sm/> in the features it never
  // enables stream management.
  connection.prependListener('element', (element: Element) => {
    if (element.is('features', NS_STREAMS)) element.remove('sm', NS_STREAM_MANAGEMENT);
  });
  const writable = connection as unknown as Writable;
  const write = writable.write.bind(connection);
  if (tap !== undefined) {
    // Every write of the library (headers, negotiation, its own replies, the closing tag) passes here.
    writable.write = (text: string) => {
      tap.sent(text);
      return write(text);
    };
  }
  const jid = `${account.jid}/${resource}`;
  try {
    const bound = await startConnection(connection, service, account.domain, timeoutMs);
    return {
      connection,
      jid: bound.toString(),
      service,
      writeRaw: write,
      close: (graceMs = 2000) => closeBounded(connection, socket, graceMs),
    };
  } catch (error) {
    await closeBounded(connection, socket, 250);
    // A SASLError's message already starts with its condition ("not-authorized - …").
    const detail = error instanceof Error ? error.message : String(error);
    throw new LoginFailed(jid, service, saslCondition(error), detail, { cause: error });
  }
}
