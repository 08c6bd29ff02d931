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
import xml, { type Element } from '@xmpp/xml';
import { ComponentLink } from '../../../protocol/component-link/component-link.ts';

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
  readonly connection: ComponentLink;
  /** IQs answered so far. */
  readonly answered: number;
  /** Writes `text` to the component stream as it is (a stanza must carry from and to). */
  sendRaw(text: string): Promise<void>;
  stop(): Promise<void>;
}

function errorCondition(type: string, condition: string): Element {
  return xml('error', { type }, xml(condition, { xmlns: NS_STANZAS }));
}

/** An IQ reply from the request's `to` back to its `from`, with the request's id. */
function replyTo(request: Element, type: 'result' | 'error', ...children: Element[]): Element {
  const { from, to, id } = request.attrs as { from?: string; to?: string; id?: string };
  return xml('iq', { to: from, from: to, id, type }, ...children);
}

export async function startEchoComponent(options: EchoComponentOptions): Promise<EchoComponent> {
  // No reconnectDelay: the harness decides when the component comes back.
  const link = new ComponentLink(options);
  let answered = 0;
  const send = (stanza: Element): void => {
    link.write(stanza.toString()).catch(() => undefined);
  };

  /** The reply to an IQ get or set with exactly one payload element (undefined: none). */
  const answer = (request: Element, payload: Element): Element | undefined => {
    // A payload's <error/> becomes the error reply's condition (after the echoed request payload).
    const scriptedError = payload.is('fail', ECHO_NS) ? payload.getChild('error') : undefined;
    if (scriptedError !== undefined) {
      answered += 1;
      return replyTo(request, 'error', payload, scriptedError);
    }
    if (payload.is('twice', ECHO_NS)) {
      answered += 1;
      // After the empty result, the way a component whose fallback responder also answers does.
      const { from, to, id } = request.attrs as { from?: string; to?: string; id?: string };
      setImmediate(() => {
        send(
          xml(
            'iq',
            { type: 'error', from: to, to: from, id },
            errorCondition('cancel', 'service-unavailable'),
          ),
        );
      });
      return replyTo(request, 'result');
    }
    if (request.attrs['type'] !== 'get')
      return replyTo(request, 'error', payload, errorCondition('cancel', 'service-unavailable'));
    answered += 1;
    if (options.notify === true) {
      const { from, to } = request.attrs as { from?: string; to?: string };
      // From the address the request went to, back to the requester's full JID; a shallow copy
      // of the payload (serializing reads children, never their parent link).
      const copy = xml(payload.name, { ...payload.attrs }, ...payload.children);
      send(xml('message', { from: to, to: from, type: 'normal' }, copy));
    }
    return replyTo(request, 'result', payload);
  };

  link.on('stanza', (stanza) => {
    const type: unknown = stanza.attrs['type'];
    if (stanza.name !== 'iq' || (type !== 'get' && type !== 'set')) return;
    const children = stanza.getChildElements();
    const [payload] = children;
    // RFC 6120 §8.2.3: a get or set carries exactly one payload.
    const reply =
      payload === undefined || children.length !== 1
        ? replyTo(stanza, 'error', ...children.slice(0, 1), errorCondition('modify', 'bad-request'))
        : answer(stanza, payload);
    if (reply !== undefined) send(reply);
  });
  await link.start();
  return {
    connection: link,
    get answered() {
      return answered;
    },
    sendRaw: (text) => link.write(text),
    async stop() {
      await link.stop().catch(() => undefined);
    },
  };
}
