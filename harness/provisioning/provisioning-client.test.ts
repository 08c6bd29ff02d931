/**
 * ProvisioningClient against a recording stand-in for Caller: which IQ each operation sends, to
 * whom, and by which of the caller's two sending paths (the stanza text itself is pinned in
 * protocol/stanza/provisioning-requests.test.ts).
 */
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import {
  buildIq,
  buildRegistered,
  parseRegistered,
  provisioningRequest,
  serialize,
} from '../../protocol/stanza/index.ts';
import type { Caller, IqExchange } from '../driver/index.ts';
import { ProvisioningClient } from './provisioning-client.ts';

const GATEWAY = 'agents.example';
const JID = 'weather@agents.example';
const HASH = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' } as const;

interface Sent {
  readonly via: 'exchangeIq' | 'iq';
  readonly xml: string;
}

/** Records each request as Caller.exchangeIq would write it (id fixed) and answers `answer`. */
function recordingCaller(answer: Element) {
  const sent: Sent[] = [];
  const record = (via: Sent['via'], to: string, type: 'get' | 'set', payload: Element): void => {
    sent.push({ via, xml: serialize(buildIq({ id: 'p-1', type, to }, payload)) });
  };
  const exchange = { id: 'p-1', parsed: { type: 'result', payload: answer } } as unknown as IqExchange;
  const caller = {
    exchangeIq: (to: string, type: 'get' | 'set', payload: Element) => {
      record('exchangeIq', to, type, payload);
      return Promise.resolve(exchange);
    },
    iq: (to: string, type: 'get' | 'set', payload: Element) => {
      record('iq', to, type, payload);
      return Promise.resolve(answer);
    },
  } as unknown as Caller;
  return { caller, sent, exchange };
}

const registered = buildRegistered({ jid: JID, version: '1.4.0', hash: HASH });

describe('ProvisioningClient', () => {
  it('sends each named operation to the gateway as an exchange, and hands the reply back untouched', async () => {
    const { caller, sent, exchange } = recordingCaller(registered);
    const client = new ProvisioningClient(caller, GATEWAY);
    const replies = [
      await client.register('{}'),
      await client.activate(JID, '1.4.0', HASH),
      await client.deactivate(JID),
      await client.status(JID),
      await client.removeVersion(JID, '1.3.0'),
      await client.removeEndpoint(JID),
    ];
    for (const reply of replies) expect(reply).toBe(exchange);
    expect(sent).toEqual([
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='set' to='agents.example'><register xmlns='urn:xmpp:agent-api:0'><manifest media-type='application/json'>{}</manifest></register></iq>`,
      },
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='set' to='agents.example'><activate xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example' version='1.4.0'><hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${HASH.value}</hash></activate></iq>`,
      },
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='set' to='agents.example'><deactivate xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
      },
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='get' to='agents.example'><registration-status xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
      },
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='set' to='agents.example'><remove-version xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example' version='1.3.0'/></iq>`,
      },
      {
        via: 'exchangeIq',
        xml: `<iq id='p-1' type='set' to='agents.example'><remove-endpoint xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example'/></iq>`,
      },
    ]);
  });

  it("call sends the same stanza through Caller.iq and resolves with the result's payload", async () => {
    const { caller, sent } = recordingCaller(registered);
    const client = new ProvisioningClient(caller, GATEWAY);
    const request = provisioningRequest.register('{}');
    const payload = await client.call(request);
    await client.exchange(request);
    expect(payload === undefined ? undefined : parseRegistered(payload)).toEqual({
      jid: JID,
      version: '1.4.0',
      hash: HASH,
    });
    expect(sent.map((entry) => entry.via)).toEqual(['iq', 'exchangeIq']);
    expect(sent[0]?.xml).toBe(sent[1]?.xml);
  });
});
