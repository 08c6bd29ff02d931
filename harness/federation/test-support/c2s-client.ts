// A logged-in XMPP client for harness tests, trusting only the run's CA. The connection itself
// (direct TLS with the run's CA, Nagle off, no c2s stream management, a bounded login that cannot
// leave an unhandled rejection) is the driver's; this adds the library's IQ caller, which is all
// the federation tests need. Suites use the driver's Caller (harness/driver) instead.
import { readFile } from 'node:fs/promises';

import type { StanzaError, XmppClient } from '@xmpp/client';
import { xml, type Element } from '@xmpp/xml';

import { openClientConnection } from '../../driver/client-connection.ts';
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

export async function connectTestClient(
  account: Account,
  caCertPath: string,
  resource = 'harness',
): Promise<TestClient> {
  const ca = await readFile(caCertPath, 'utf8');
  const opened = await openClientConnection({ account, ca, resource });
  const { connection, jid } = opened;
  // Initial presence, so that the server routes stanzas to this session and not to offline storage.
  await connection.send(xml('presence'));

  return {
    jid,
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
      await opened.close();
    },
  };
}
