// The chat gate, with a fake link: what an endpoint sends for each block state the recipient's
// server reports, and that nothing leaves without asking it first, from the exact endpoint JID.
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { BLOCK_STATE_NS } from '../../protocol/messaging.ts';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import type { ManifestRecord, Requester, VisibleEndpoint } from '../catalog/catalog.ts';
import type { OutboundIqReply } from '../component/outbound-iq.ts';
import { MessagingService } from './messaging-service.ts';

const ENDPOINT = 'conformance@agents.example';
const HIDDEN = 'vault@agents.example';

type Answer = 'true' | 'false' | 'error' | 'timeout' | 'odd';

function harness(answers: Readonly<Record<string, Answer>>) {
  const sent: string[] = [];
  const asked: string[] = [];
  let ids = 0;
  const service = new MessagingService({
    chatEndpoints: new Set([ENDPOINT, HIDDEN]),
    catalog: {
      visibleEndpoint: (requester: Requester, jid: string): VisibleEndpoint | undefined =>
        jid === HIDDEN ? undefined : { jid, active: {} as ManifestRecord },
    },
    send: (stanza: Element) => {
      sent.push(serialize(stanza));
      return Promise.resolve(true);
    },
    iq: (request) => {
      asked.push(`${request.from} -> ${request.to} ${serialize(request.payload)}`);
      const answer = answers[request.to] ?? 'false';
      if (answer === 'timeout') return Promise.reject(new Error('timeout'));
      const envelope = { id: 'q', from: request.to, to: request.from };
      const reply: OutboundIqReply =
        answer === 'error'
          ? {
              ...envelope,
              type: 'error',
              error: { type: 'cancel', condition: 'service-unavailable' },
            }
          : {
              ...envelope,
              type: 'result',
              payload: parseXml(
                answer === 'odd'
                  ? `<state xmlns='${BLOCK_STATE_NS}' blocked='maybe'/>`
                  : `<state xmlns='${BLOCK_STATE_NS}' blocked='${answer}'/>`,
              ),
            };
      return Promise.resolve(reply);
    },
    blockStateTimeoutMs: 1000,
    newId: () => `id${String((ids += 1))}`,
  });
  return { service, sent, asked };
}

function chat(from: string, body: string, extra = '', to = ENDPOINT): Element {
  return parseXml(
    `<message type='chat' from='${from}' to='${to}' id='m1'><body>${body}</body>${extra}</message>`,
  );
}

describe('MessagingService', () => {
  it('answers chat along the conversation with the chat extensions, after asking as the endpoint', async () => {
    const { service, sent, asked } = harness({});
    expect(await service.handle(chat('bob@server.example/desk', 'hi'))).toBe(true);
    expect(asked).toEqual([`${ENDPOINT} -> bob@server.example <state xmlns='${BLOCK_STATE_NS}'/>`]);
    expect(sent).toEqual([
      `<message type='chat' from='${ENDPOINT}' to='bob@server.example/desk' id='id1'><body>echo: hi</body><active xmlns='http://jabber.org/protocol/chatstates'/><origin-id xmlns='urn:xmpp:sid:0' id='id1'/><reply xmlns='urn:xmpp:reply:0' to='bob@server.example/desk' id='m1'/><store xmlns='urn:xmpp:hints'/></message>`,
    ]);
  });

  it('sends a receipt only when one was requested', async () => {
    const { service, sent } = harness({});
    await service.handle(chat('bob@server.example/desk', 'a'));
    expect(sent.filter((stanza) => stanza.includes('urn:xmpp:receipts'))).toEqual([]);
    await service.handle(chat('bob@server.example/desk', 'b', "<request xmlns='urn:xmpp:receipts'/>"));
    expect(sent.filter((stanza) => stanza.includes('<received'))).toEqual([
      `<message from='${ENDPOINT}' to='bob@server.example/desk' id='id2'><received xmlns='urn:xmpp:receipts' id='m1'/></message>`,
    ]);
  });

  it.each<Answer>(['true', 'error', 'timeout', 'odd'])(
    'withholds everything when the block state is %s (blocked or unknown)',
    async (answer) => {
      const { service, sent } = harness({ 'alice@example.com': answer });
      await service.handle(chat('alice@example.com/laptop', 'hi', "<request xmlns='urn:xmpp:receipts'/>"));
      expect(sent).toEqual([]);
    },
  );

  it('releases a held reply to the route of the conversation that held it, asking for that recipient', async () => {
    const answers: Record<string, Answer> = {};
    const { service, sent, asked } = harness(answers);
    await service.handle(chat('alice@example.com/laptop', '{"hold":"t1","text":"later"}'));
    expect(sent.at(-1)).toContain('<body>{"holding":"t1"}</body>');
    answers['alice@example.com'] = 'true';
    await service.handle(chat('bob@server.example/desk', '{"release":"t1"}'));
    // Withheld for alice (blocked); bob, who released it, is told it was tried.
    expect(sent.some((stanza) => stanza.includes('later'))).toBe(false);
    expect(sent.at(-1)).toContain("to='bob@server.example/desk'");
    expect(sent.at(-1)).toContain('{"released":"t1","attempted":1}');
    expect(asked.at(-2)).toBe(`${ENDPOINT} -> alice@example.com <state xmlns='${BLOCK_STATE_NS}'/>`);
    // A released token is consumed: releasing it again tries nothing.
    answers['alice@example.com'] = 'false';
    await service.handle(chat('bob@server.example/desk', '{"release":"t1"}'));
    expect(sent.some((stanza) => stanza.includes('later'))).toBe(false);
  });

  it('leaves task traffic, other endpoints and hidden endpoints alone', async () => {
    const { service, sent, asked } = harness({});
    expect(
      await service.handle(
        parseXml(`<message from='bob@server.example/desk' to='${ENDPOINT}'><body>normal</body></message>`),
      ),
    ).toBe(false);
    expect(await service.handle(chat('bob@server.example/desk', 'hi', '', 'weather@agents.example'))).toBe(
      false,
    );
    expect(await service.handle(chat('bob@server.example/desk', 'hi', '', HIDDEN))).toBe(true);
    expect(sent).toEqual([]);
    expect(asked).toEqual([]);
    expect(service.featuresOf(ENDPOINT)).toContain('urn:xmpp:receipts');
    expect(service.featuresOf('weather@agents.example')).toEqual([]);
  });
});
