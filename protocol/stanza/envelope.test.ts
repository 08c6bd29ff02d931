import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS } from '../namespaces.ts';
import { localNameOf, namespaceOf } from './element-access.ts';
import { buildIq, buildIqError, buildIqResult, buildMessage, parseIq, parseMessage } from './envelope.ts';
import { expectBuildError, expectParseError, titled } from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const PING = "<ping xmlns='urn:xmpp:ping'/>";
const REQUEST = { id: 'q1', type: 'get', from: 'juliet@example.net/phone', to: 'agents.example' } as const;

describe('IQ envelopes', () => {
  it('builds and parses get, result and error, swapping addresses in replies', () => {
    const get = parseIq(parseXml(serialize(buildIq(REQUEST, xml('ping', { xmlns: NS.ping })))));
    expect(get).toMatchObject(REQUEST);
    expect(get.payload && localNameOf(get.payload)).toBe('ping');

    const result = parseIq(parseXml(serialize(buildIqResult(get))));
    expect(result).toEqual({
      id: 'q1',
      type: 'result',
      from: 'agents.example',
      to: 'juliet@example.net/phone',
    });

    const error = parseIq(
      parseXml(
        serialize(
          buildIqError(
            get,
            { type: 'cancel', condition: 'service-unavailable' },
            xml('ping', { xmlns: NS.ping }),
          ),
        ),
      ),
    );
    if (error.type !== 'error') throw new Error('expected an IQ error');
    expect(error.error).toEqual({ type: 'cancel', condition: 'service-unavailable' });
    expect(error.payload && namespaceOf(error.payload)).toBe(NS.ping);
    expect(error.to).toBe('juliet@example.net/phone');
  });

  it('accepts jabber:client, jabber:component:accept and a stanza detached from its stream', () => {
    for (const xmlns of [` xmlns='${NS.client}'`, ` xmlns='${NS.component}'`, '']) {
      expect(parseIq(parseXml(`<iq${xmlns} id='1' type='result' xml:lang='en'/>`))).toEqual({
        id: '1',
        type: 'result',
        lang: 'en',
      });
    }
  });

  it('finds the error of a component-namespace IQ, with the echoed request before it', () => {
    const iq = parseIq(
      parseXml(
        `<iq xmlns='${NS.component}' id='1' type='error'>${PING}<error type='cancel'><item-not-found xmlns='${NS.stanzas}'/></error></iq>`,
      ),
    );
    expect(iq.type === 'error' && iq.error.condition).toBe('item-not-found');
    expect(iq.payload && localNameOf(iq.payload)).toBe('ping');
  });

  it.each(
    titled([
      [parseIq, `<iq type='get'>${PING}</iq>`, { rule: 'missing-attribute', element: 'iq', attribute: 'id' }],
      [
        parseIq,
        `<iq id='1' type='query'>${PING}</iq>`,
        { rule: 'invalid-attribute', element: 'iq', attribute: 'type' },
      ],
      [parseIq, "<iq id='1' type='set'/>", { rule: 'missing-child', element: 'iq' }],
      [parseIq, `<iq id='1' type='get'>${PING}${PING}</iq>`, { rule: 'unexpected-child', element: 'iq' }],
      [
        parseIq,
        `<iq id='1' type='result'><error type='cancel'><conflict xmlns='${NS.stanzas}'/></error></iq>`,
        { rule: 'unexpected-child', element: 'iq' },
      ],
      [parseIq, `<iq id='1' type='error'>${PING}</iq>`, { rule: 'missing-child', element: 'iq' }],
      [
        parseIq,
        `<iq id='1' type='error'>${PING}${PING}<error type='cancel'><conflict xmlns='${NS.stanzas}'/></error></iq>`,
        { rule: 'unexpected-child', element: 'iq' },
      ],
      [
        parseIq,
        `<iq id='1' type='error'><error type='cancel'><conflict xmlns='${NS.stanzas}'/></error><error type='cancel'><conflict xmlns='${NS.stanzas}'/></error></iq>`,
        { rule: 'duplicate-child', element: 'iq' },
      ],
      [parseIq, `<iq id='1' type='result'>text</iq>`, { rule: 'unexpected-text', element: 'iq' }],
      [
        parseIq,
        "<iq xmlns='urn:x' id='1' type='result'/>",
        { rule: 'wrong-namespace', element: '{urn:x}iq' },
      ],
      [parseIq, "<message id='1'/>", { rule: 'wrong-element', element: 'message' }],
      [
        parseMessage,
        `<message type='error'>${PING}</message>`,
        { rule: 'missing-child', element: 'message' },
      ],
      [
        parseMessage,
        `<message type='error'><error type='cancel'><conflict xmlns='${NS.stanzas}'/></error><error type='cancel'><conflict xmlns='${NS.stanzas}'/></error></message>`,
        { rule: 'duplicate-child', element: 'message' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build an IQ request without payload or an error through buildIq', () => {
    expectBuildError(() => buildIq({ id: '1', type: 'set' }), { rule: 'missing-child', element: 'iq' });
    expectBuildError(() => buildIq({ id: '1', type: 'error' }), {
      rule: 'invalid-attribute',
      element: 'iq',
      attribute: 'type',
    });
    expectBuildError(() => buildIq({ id: '1', type: 'fetch' as 'get' }, xml('ping')), {
      rule: 'invalid-attribute',
      element: 'iq',
      attribute: 'type',
    });
    expectBuildError(() => buildIq({ id: '\u0000', type: 'result' }), {
      rule: 'illegal-xml-character',
      element: 'iq',
      attribute: 'id',
    });
  });
});

describe('message envelopes', () => {
  it('applies the RFC 6121 default type and keeps the attribute as received', () => {
    expect(parseMessage(parseXml('<message/>'))).toEqual({ type: 'normal', children: [] });
    expect(parseMessage(parseXml("<message type='urgent' id='m1'/>"))).toEqual({
      type: 'normal',
      typeAttribute: 'urgent',
      id: 'm1',
      children: [],
    });
    expect(parseMessage(parseXml("<message type='chat'><body>hi</body></message>")).type).toBe('chat');
  });

  it('separates the <error/> of an error message from its other children', () => {
    const message = parseMessage(
      parseXml(
        `<message type='error'><body>hi</body><error type='modify'><bad-request xmlns='${NS.stanzas}'/></error></message>`,
      ),
    );
    expect(message.error?.condition).toBe('bad-request');
    expect(message.children.map(localNameOf)).toEqual(['body']);
  });

  it('builds with or without an explicit type', () => {
    expect(serialize(buildMessage({ to: 'a@x', id: 'm1' }, xml('body', {}, 'hi')))).toBe(
      "<message id='m1' to='a@x'><body>hi</body></message>",
    );
    expect(serialize(buildMessage({ type: 'normal' }))).toBe("<message type='normal'/>");
    expectBuildError(() => buildMessage({ type: 'urgent' as 'normal' }), {
      rule: 'invalid-attribute',
      element: 'message',
      attribute: 'type',
    });
  });
});
