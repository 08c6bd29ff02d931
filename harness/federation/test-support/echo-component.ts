// The stand-in gateway of the harness tests: a XEP-0114 component that answers every IQ get with a
// result carrying a copy of the request's payload. Kept minimal on purpose — it is the federation
// (and the driver) that is under test, not the component. Two extras for the driver's tests: an
// IQ whose payload is <fail xmlns='urn:agentconf:test:echo'> is answered with the <error/> the
// payload carries, and sendRaw() writes any text to the stream (e.g. a task event for a caller);
// a <twice/> payload is answered twice, a result and then an error, the way a component whose
// fallback responder also answers handled IQs does.
// With `notify`, every answered get is followed by a <message/> to the requester carrying a copy
// of the payload: the traffic shape of a task admission (the <accepted/> reply and the task's
// first lifecycle event), bench/admission's second baseline.
import componentPackage, { type XmppComponent } from '@xmpp/component';
import xml from '@xmpp/xml';
import { decodeUtf8AcrossChunks } from '../../../protocol/stanza/chunk-decoding.ts';

export const ECHO_NS = 'urn:agentconf:test:echo';
const NS_STANZAS = 'urn:ietf:params:xml:ns:xmpp-stanzas';

export interface EchoComponentOptions {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly secret: string;
  readonly notify?: boolean;
}

export interface EchoComponent {
  readonly connection: XmppComponent;
  /** IQs answered so far. */
  readonly answered: number;
  /** Writes `text` to the component stream as it is (a stanza must carry from and to). */
  sendRaw(text: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startEchoComponent(options: EchoComponentOptions): Promise<EchoComponent> {
  const connection = componentPackage.component({
    service: `xmpp://${options.host}:${options.port}`,
    domain: options.domain,
    password: options.secret,
  });
  // The harness decides when the component comes back; the library must not reconnect on its own.
  connection.reconnect.stop();
  decodeUtf8AcrossChunks(connection);
  connection.on('error', () => undefined);
  let answered = 0;
  connection.middleware.use((context, next) => {
    const payload = context.name === 'iq' ? context.element : undefined;
    if (payload === undefined) return next();
    // A returned <error/> becomes the error reply's condition (after the echoed request payload).
    const scriptedError = payload.is('fail', ECHO_NS) ? payload.getChild('error') : undefined;
    if (scriptedError !== undefined) {
      answered += 1;
      return scriptedError;
    }
    if (payload.is('twice', ECHO_NS)) {
      answered += 1;
      const { from, to, id } = context.stanza.attrs as { from?: string; to?: string; id?: string };
      const error = xml('error', { type: 'cancel' }, xml('service-unavailable', { xmlns: NS_STANZAS }));
      // After the empty result the callee sends for `true` (its send is queued before this runs).
      setImmediate(() => {
        void connection
          .send(xml('iq', { type: 'error', from: to, to: from, id }, error))
          .catch(() => undefined);
      });
      return true;
    }
    // A returned element becomes the <iq type='result'/>'s child (errors for everything else).
    if (context.type === 'get') {
      answered += 1;
      if (options.notify === true) {
        const { from, to } = context.stanza.attrs as { from?: string; to?: string };
        // From the address the request went to, back to the requester's full JID; a shallow
        // copy of the payload (serializing reads children, never their parent link).
        const copy = xml(payload.name, { ...payload.attrs }, ...payload.children);
        void connection
          .send(xml('message', { from: to, to: from, type: 'normal' }, copy))
          .catch(() => undefined);
      }
      return payload;
    }
    return next();
  });
  connection.on('connect', () => {
    (connection as unknown as { socket?: { setNoDelay?: (on: boolean) => void } }).socket?.setNoDelay?.(true);
  });
  await connection.start();
  return {
    connection,
    get answered() {
      return answered;
    },
    async sendRaw(text) {
      // Connection#write: in @xmpp/connection, not in the declared subset of harness/types.
      await (connection as unknown as { write(text: string): Promise<void> }).write(text);
    },
    async stop() {
      await connection.stop().catch(() => undefined);
    },
  };
}
