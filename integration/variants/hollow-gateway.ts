// The hollow gateway (a broken variant, test-only): a XEP-0114 component that says it is an
// agent gateway with a directory and does nothing else. disco#info at its domain: the gateway
// identity, disco#info/#items and the directory feature (at the directory node: the directory
// identity); disco#items at its domain (with or without the directory node): an empty
// directory; every other get or set: item-not-found.
// Started by hollow-gateway.json with HOLLOW_HOST/PORT/DOMAIN/SECRET; prints "online".
import { xml, type Element } from '@xmpp/xml';
import { ComponentLink } from '../../protocol/component-link/component-link.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};
const domain = env('HOLLOW_DOMAIN');
const DISCO_INFO = 'http://jabber.org/protocol/disco#info';
const DISCO_ITEMS = 'http://jabber.org/protocol/disco#items';
const DIRECTORY = 'urn:xmpp:agent-directory:0';

// Hollow, not fragile: restricted XML on the link (RFC 6120 §11.1) ends the stream, which is then
// reopened a second later, instead of stalling or killing the reader; its verdict rests on what
// it lacks.
const link = new ComponentLink({
  host: env('HOLLOW_HOST'),
  port: Number(env('HOLLOW_PORT')),
  domain,
  secret: env('HOLLOW_SECRET'),
  reconnectDelay: () => 1000,
});

function answer(stanza: Element): Element {
  const { from, to, id } = stanza.attrs as Record<string, string>;
  const query = stanza.getChildElements()[0];
  const node: unknown = query?.attrs['node'];
  if (to === domain && stanza.attrs['type'] === 'get' && query?.name === 'query') {
    const ns: unknown = query.attrs['xmlns'];
    if (ns === DISCO_INFO && (node === undefined || node === DIRECTORY)) {
      const identity = node === undefined ? 'agent-gateway' : 'agent-directory';
      return xml(
        'iq',
        { type: 'result', from: to, to: from, id },
        xml(
          'query',
          node === undefined ? { xmlns: DISCO_INFO } : { xmlns: DISCO_INFO, node },
          xml('identity', { category: 'automation', type: identity, name: 'Hollow' }),
          xml('feature', { var: DISCO_INFO }),
          xml('feature', { var: DISCO_ITEMS }),
          ...(node === undefined ? [xml('feature', { var: DIRECTORY })] : []),
        ),
      );
    }
    if (ns === DISCO_ITEMS && (node === undefined || node === DIRECTORY)) {
      const attrs = node === undefined ? { xmlns: DISCO_ITEMS } : { xmlns: DISCO_ITEMS, node };
      return xml('iq', { type: 'result', from: to, to: from, id }, xml('query', attrs));
    }
  }
  const condition = xml('item-not-found', { xmlns: 'urn:ietf:params:xml:ns:xmpp-stanzas' });
  return xml('iq', { type: 'error', from: to, to: from, id }, xml('error', { type: 'cancel' }, condition));
}

// Every IQ request is answered here, once.
link.on('stanza', (stanza: Element) => {
  const type: unknown = stanza.attrs['type'];
  if (!stanza.is('iq') || (type !== 'get' && type !== 'set')) return;
  link.write(answer(stanza).toString()).catch(() => undefined);
});
await link.start();
process.stdout.write('online\n');
