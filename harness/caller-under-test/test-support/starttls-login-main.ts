// Logs in the way a Node bridge would with the caller config it is handed (`--config FILE`):
// @xmpp/client over STARTTLS on xmpp.host:xmpp.port, trusting the run's CA only through
// NODE_EXTRA_CA_CERTS; asks the first endpoint for disco#info and prints the reply's first line.
import { client } from '@xmpp/client';
import { xml } from '@xmpp/xml';

import { readCallerConfig } from '../../../protocol/json/caller-config.ts';

const at = process.argv.indexOf('--config');
const config = readCallerConfig(process.argv[at + 1] ?? '');
const [localpart = '', domain = ''] = config.xmpp.jid.split('/')[0]?.split('@') ?? [];
const connection = client({
  service: `xmpp://${config.xmpp.host}:${String(config.xmpp.port)}`,
  domain,
  username: localpart,
  password: config.xmpp.password,
  resource: 'starttls-probe',
});
connection.on('error', (error: unknown) => {
  process.stderr.write(`error: ${String(error)}\n`);
});
await connection.start();
const endpoint = config.endpoints[0]?.jid ?? '';
const reply = await connection.iqCaller.request(
  xml(
    'iq',
    { type: 'get', to: endpoint, id: 'probe-1' },
    xml('query', { xmlns: 'http://jabber.org/protocol/disco#info' }),
  ),
);
process.stdout.write(`reply ${String(reply.attrs['type'])} from ${String(reply.attrs['from'])}\n`);
await connection.stop();
