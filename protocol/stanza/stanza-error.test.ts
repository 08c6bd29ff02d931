import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS } from '../namespaces.ts';
import { buildIqError, parseIq } from './envelope.ts';
import {
  DEFINED_CONDITIONS,
  buildStanzaError,
  isStanzaErrorElement,
  parseStanzaError,
} from './stanza-error.ts';
import type { StanzaError } from './stanza-error.ts';
import { expectBuildError, expectParseError, titled } from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const errorXml = (content: string, attributes = " type='cancel'"): string =>
  `<iq xmlns='${NS.client}' id='1' type='error'><error${attributes}>${content}</error></iq>`;
const condition = (name: string, content = ''): string =>
  `<${name} xmlns='${NS.stanzas}'>${content}</${name}>`;
const parseErrorOfIq = (iq: Parameters<typeof parseIq>[0]): StanzaError => {
  const [error] = iq.getChildren('error');
  if (error === undefined) throw new Error('no error child');
  return parseStanzaError(error);
};

/** Builds inside an IQ (so <error/> takes the stanza namespace), serializes and parses back. */
function roundTrip(error: StanzaError): StanzaError {
  const text = serialize(buildIqError({ id: 'q1', type: 'get', from: 'a@x/r', to: 'b@x' }, error));
  const iq = parseIq(parseXml(text));
  if (iq.type !== 'error') throw new Error('expected an IQ error');
  return iq.error;
}

describe('RFC 6120 stanza errors', () => {
  it('round-trips every defined condition', () => {
    for (const name of DEFINED_CONDITIONS) {
      expect(roundTrip({ type: 'cancel', condition: name })).toEqual({ type: 'cancel', condition: name });
    }
  });

  it('round-trips text with xml:lang, by, the gone/redirect address and an application condition', () => {
    const application = xml('quota', { xmlns: 'urn:example:errors', limit: '5' });
    const parsed = roundTrip({
      type: 'modify',
      condition: 'redirect',
      conditionText: 'xmpp:other@agents.example',
      text: { text: 'Moved <here> & there', lang: 'en' },
      applicationCondition: application,
      by: 'agents.example',
    });
    expect(parsed).toMatchObject({
      type: 'modify',
      condition: 'redirect',
      conditionText: 'xmpp:other@agents.example',
      text: { text: 'Moved <here> & there', lang: 'en' },
      by: 'agents.example',
    });
    expect(parsed.applicationCondition && serialize(parsed.applicationCondition)).toBe(
      serialize(application),
    );
    expect(application.parent).toBeNull();
  });

  it('copies an application condition whose namespace was declared on an ancestor', () => {
    const wrapper = parseXml("<w xmlns:e='urn:example:errors'><e:quota/></w>");
    const [quota] = wrapper.getChildElements();
    if (quota === undefined) throw new Error('fixture');
    const built = serialize(
      buildStanzaError({ type: 'wait', condition: 'resource-constraint', applicationCondition: quota }),
    );
    expect(built).toContain("<e:quota xmlns:e='urn:example:errors'/>");
  });

  it('recognizes <error/> only in a stanza namespace', () => {
    expect(isStanzaErrorElement(parseXml(`<error xmlns='${NS.component}'/>`))).toBe(true);
    expect(isStanzaErrorElement(parseXml('<error/>'))).toBe(true);
    expect(isStanzaErrorElement(parseXml("<error xmlns='urn:x'/>"))).toBe(false);
  });

  it.each(
    titled([
      [
        parseErrorOfIq,
        errorXml(condition('item-not-found'), ''),
        { rule: 'missing-attribute', element: `{${NS.client}}error`, attribute: 'type' },
      ],
      [
        parseErrorOfIq,
        errorXml(condition('item-not-found'), " type='fatal'"),
        { rule: 'invalid-attribute', element: `{${NS.client}}error`, attribute: 'type' },
      ],
      [parseErrorOfIq, errorXml(''), { rule: 'missing-child', element: `{${NS.client}}error` }],
      [
        parseErrorOfIq,
        errorXml(`<text xmlns='${NS.stanzas}'>x</text>${condition('conflict')}`),
        { rule: 'missing-child', element: `{${NS.client}}error` },
      ],
      [
        parseErrorOfIq,
        errorXml(condition('not-found')),
        { rule: 'unexpected-child', element: `{${NS.stanzas}}not-found` },
      ],
      [
        parseErrorOfIq,
        errorXml(condition('conflict') + condition('item-not-found')),
        { rule: 'unexpected-child', element: `{${NS.client}}error` },
      ],
      [
        parseErrorOfIq,
        errorXml(condition('conflict', 'details')),
        { rule: 'unexpected-text', element: `{${NS.stanzas}}conflict` },
      ],
      [
        parseErrorOfIq,
        errorXml(
          `${condition('conflict')}<text xmlns='${NS.stanzas}'>a</text><text xmlns='${NS.stanzas}'>b</text>`,
        ),
        { rule: 'duplicate-child', element: `{${NS.client}}error` },
      ],
      [
        parseErrorOfIq,
        errorXml(`${condition('conflict')}<a xmlns='urn:a'/><b xmlns='urn:b'/>`),
        { rule: 'duplicate-child', element: `{${NS.client}}error` },
      ],
      [
        parseErrorOfIq,
        errorXml(`${condition('conflict')}<a xmlns='urn:a'/><text xmlns='${NS.stanzas}'>late</text>`),
        { rule: 'child-order', element: `{${NS.client}}error` },
      ],
      [
        parseErrorOfIq,
        errorXml(`${condition('conflict')}<text xmlns='${NS.stanzas}' class='x'>t</text>`),
        { rule: 'unexpected-attribute', element: `{${NS.stanzas}}text`, attribute: 'class' },
      ],
      [parseStanzaError, `<failure xmlns='${NS.client}'/>`, { rule: 'wrong-element' }],
      [parseStanzaError, "<error xmlns='urn:x' type='cancel'/>", { rule: 'wrong-namespace' }],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build what RFC 6120 forbids', () => {
    expectBuildError(() => buildStanzaError({ type: 'cancel', condition: 'conflict', conditionText: 'x' }), {
      rule: 'unexpected-text',
      element: `{${NS.stanzas}}conflict`,
    });
    expectBuildError(() => buildStanzaError({ type: 'fatal' as 'cancel', condition: 'conflict' }), {
      rule: 'invalid-attribute',
      element: 'error',
      attribute: 'type',
    });
    expectBuildError(() => buildStanzaError({ type: 'cancel', condition: 'gone-away' as 'gone' }), {
      rule: 'invalid-attribute',
      element: `{${NS.stanzas}}gone-away`,
    });
    expectBuildError(
      () =>
        buildStanzaError({
          type: 'cancel',
          condition: 'conflict',
          applicationCondition: xml('x', { xmlns: NS.stanzas }),
        }),
      { rule: 'wrong-namespace', element: 'error' },
    );
  });
});
