/**
 * Logging an @xmpp/client 0.14 connection in, the way every client the project opens does it:
 * the harness's callers and the reference MCP bridge (protocol/ is the only layer below both).
 * What differs between them (the transport and its trust, wire taps, SASL factories, what to do
 * on a stream without STARTTLS) stays theirs; this is the part that must not drift apart.
 */
import { client, type Jid, type XmppClient } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { decodeUtf8AcrossChunks } from './chunk-decoding.ts';

const NS_STREAMS = 'http://etherx.jabber.org/streams';
const NS_STREAM_MANAGEMENT = 'urn:xmpp:sm:3';

export interface ClientLoginParameters {
  /** xmpp://HOST:PORT (STARTTLS) or xmpps://HOST:PORT (direct TLS). */
  readonly service: string;
  readonly domain: string;
  readonly username: string;
  readonly password: string;
  readonly resource?: string;
  /** The library's own waits (stream open is 2 s by default) get the login's deadline. */
  readonly timeoutMs: number;
}

/**
 * A client that is not yet connected, set up the way the project needs:
 * - a lost connection stays lost (the owner decides what happens next);
 * - UTF-8 is decoded across TCP chunks (chunk-decoding.ts);
 * - the 'error' event is swallowed: errors also reject the login and requests, and the event
 *   must not crash the process;
 * - no XEP-0198 on c2s. The library enables it after binding, concurrently with the first
 *   stanzas (it fires 'online' at bind and resets its inbound count when <enabled/> is
 *   processed, after stanzas that came with it were counted): Prosody then ends the stream
 *   ("Client acknowledged less stanzas than already acknowledged"); raw writes would bypass
 *   its outbound count; and Prosody keeps a resumable session "hibernating" after a lost
 *   connection. The listener runs before the library's middleware: without <sm/> in the
 *   features it never enables stream management.
 */
export function newClientConnection(parameters: ClientLoginParameters): XmppClient {
  const connection = client({
    service: parameters.service,
    domain: parameters.domain,
    username: parameters.username,
    password: parameters.password,
    ...(parameters.resource === undefined ? {} : { resource: parameters.resource }),
    timeout: parameters.timeoutMs,
  });
  connection.reconnect.stop();
  decodeUtf8AcrossChunks(connection);
  connection.on('error', () => undefined);
  connection.prependListener('element', (element: Element) => {
    if (element.is('features', NS_STREAMS)) element.remove('sm', NS_STREAM_MANAGEMENT);
  });
  return connection;
}

/**
 * What XmppClient#start does, minus its flaws: start() creates its 'online' promise before the
 * stream is open and awaits it only afterwards, so a SASL failure in between rejects it unhandled;
 * and nothing bounds it (a blackholed server keeps it waiting forever). Here the promise is
 * handled from the start, and the whole login has a deadline.
 */
export async function logIn(
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
      reject(new Error(`not online within ${String(timeoutMs)} ms`));
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

/**
 * XmppClient#stop, waiting at most `ms`: it writes the closing tag and waits for the write and
 * the peer's close, which never come from a frozen peer or a hung TLS handshake. Never rejects.
 */
export async function stopWithin(connection: XmppClient, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([connection.stop().catch(() => undefined), deadline]);
  clearTimeout(timer);
}
