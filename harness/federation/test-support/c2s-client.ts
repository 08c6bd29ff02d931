// A logged-in XMPP client for harness tests, trusting only the run's CA. @xmpp/client takes no TLS
// options, but looks its transports up per client: a direct-TLS transport that adds the CA and the
// server name to tls.connect is put first, so no process-wide trust store is touched.
import { readFile } from 'node:fs/promises';

import {
  client,
  type StanzaError,
  type Jid,
  type Transport,
  type TransportClass,
  type TransportSocketClass,
  type XmppClient,
} from '@xmpp/client';
import { xml, type Element } from '@xmpp/xml';

import type { Account } from '../server-provider.ts';

export interface TestClient {
  readonly jid: string;
  readonly connection: XmppClient;
  /** Sends an IQ and settles with its reply, result or error (never rejects on a stanza error). */
  iq(stanza: Element, timeoutMs?: number): Promise<IqReply>;
  stop(): Promise<void>;
}

export type IqReply =
  | { readonly type: 'result'; readonly stanza: Element }
  | {
      readonly type: 'error';
      /** Defined condition, e.g. remote-server-timeout. */
      readonly condition: string;
      /** The error's type attribute: cancel, wait, modify, auth, continue. */
      readonly errorType: string | undefined;
      readonly error: Element;
    };

function isStanzaError(error: unknown): error is StanzaError {
  return error instanceof Error && error.name === 'StanzaError';
}

function trustingDirectTls(connection: XmppClient, ca: string, servername: string): TransportClass {
  const base = connection.transports.find(
    (transport) =>
      (transport.prototype as Transport).socketParameters('xmpps://probe.invalid:1') !== undefined,
  );
  if (base === undefined) throw new Error('@xmpp/client has no direct TLS transport');
  const BaseSocket: TransportSocketClass = (base.prototype as Transport).Socket;
  class NoDelaySocket extends BaseSocket {
    override connect(options: Record<string, unknown>): void {
      super.connect(options);
      // Prosody asks for a stream-management ack after every stanza; with Nagle on, our <a/>
      // followed by the next request waits for a delayed ACK: ~40 ms per round trip.
      this.socket?.setNoDelay(true);
    }
  }
  class TrustingDirectTls extends base {
    override socketParameters(service: string): Record<string, unknown> | undefined {
      const parameters = super.socketParameters(service);
      return parameters === undefined ? undefined : { ...parameters, ca, servername };
    }
  }
  TrustingDirectTls.prototype.Socket = NoDelaySocket;
  return TrustingDirectTls;
}

/**
 * What XmppClient#start does, minus its flaw: start() creates its 'online' promise before the
 * stream is open and awaits it only afterwards, so a SASL failure in between rejects it unhandled
 * (an unhandled rejection in the test run). Ours is handled from the start.
 */
async function startConnection(connection: XmppClient, service: string, domain: string): Promise<Jid> {
  let fail: (error: unknown) => void = () => undefined;
  const online = new Promise<Jid>((resolve, reject) => {
    fail = reject;
    connection.once('online', resolve);
  });
  online.catch(() => undefined);
  const onError = (error: unknown): void => {
    fail(error);
  };
  connection.on('error', onError);
  try {
    await connection.connect(service);
    await connection.open({ domain });
    return await online;
  } catch (error) {
    await connection.stop().catch(() => undefined);
    throw error;
  } finally {
    connection.off('error', onError);
  }
}

export async function connectTestClient(
  account: Account,
  caCertPath: string,
  resource = 'harness',
): Promise<TestClient> {
  const ca = await readFile(caCertPath, 'utf8');
  const service = `xmpps://${account.c2sDirectTls.host}:${account.c2sDirectTls.port}`;
  const connection = client({
    service,
    domain: account.domain,
    username: account.username,
    password: account.password,
    resource,
  });
  connection.reconnect.stop();
  // Errors also surface as rejections of start() and of requests; the event must not crash the process.
  connection.on('error', () => undefined);
  connection.transports.unshift(trustingDirectTls(connection, ca, account.domain));
  const jid = await startConnection(connection, service, account.domain);
  // Initial presence, so that the server routes stanzas to this session and not to offline storage.
  await connection.send(xml('presence'));

  return {
    jid: jid.toString(),
    connection,
    async iq(stanza, timeoutMs = 10_000) {
      try {
        return { type: 'result', stanza: await connection.iqCaller.request(stanza, timeoutMs) };
      } catch (error) {
        if (!isStanzaError(error)) throw error;
        return { type: 'error', condition: error.condition, errorType: error.type, error: error.element };
      }
    },
    async stop() {
      await connection.stop().catch(() => undefined);
    },
  };
}
