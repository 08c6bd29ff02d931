// Logs an @xmpp/client 0.14 connection in over direct TLS, trusting only the run's CA, with a tap
// on the bytes in both directions. Shared by the driver's Caller and the federation tests' client.
//
// Trust without global state: @xmpp/client takes no TLS options, but looks its transports up per
// client, so a direct-TLS transport that adds the CA and the server name to tls.connect is put
// first (STARTTLS cannot be given a CA). NODE_EXTRA_CA_CERTS would work for one run per process
// only.
import type { Socket } from 'node:net';

import type { Transport, TransportClass, TransportSocketClass, XmppClient } from '@xmpp/client';

import type { Account } from '../federation/server-provider.ts';
import { LoginFailed } from './errors.ts';
import { useNativeScramSha1 } from './scram-sha-1.ts';
import { logIn, newClientConnection, stopWithin } from '../../protocol/stanza/client-login.ts';

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
 * Closes within `graceMs`; after it the socket is destroyed, which also settles a closing write
 * that a hung TLS handshake or a frozen peer never completes.
 */
async function closeBounded(
  connection: XmppClient,
  socket: Socket | undefined,
  graceMs: number,
): Promise<void> {
  // Only an open stream has a closing tag to exchange; before that there is nobody to say goodbye to.
  if (connection.status === 'open' || connection.status === 'online') await stopWithin(connection, graceMs);
  socket?.destroy();
}

/** Logs in; rejects with LoginFailed (naming the JID) and leaves no socket behind on failure. */
export async function openClientConnection(options: ClientConnectionOptions): Promise<ClientConnection> {
  const { account, ca, resource, tap } = options;
  const service = `xmpps://${account.c2sDirectTls.host}:${account.c2sDirectTls.port}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connection = newClientConnection({
    service,
    domain: account.domain,
    username: account.username,
    password: account.password,
    resource,
    // A server that has just restarted on a loaded machine may take longer than the library's
    // 2 s to answer the stream header.
    timeoutMs,
  });
  // Standard SCRAM iteration counts cost milliseconds with native PBKDF2 (scram-sha-1.ts).
  useNativeScramSha1(connection.saslFactory);
  let socket: Socket | undefined;
  const onSocket = (opened: Socket): void => {
    socket = opened;
  };
  connection.transports.unshift(trustingDirectTls(connection, ca, account.domain, onSocket, tap));
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
    const bound = await logIn(connection, service, account.domain, timeoutMs);
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
