/**
 * Assertions over IQ exchanges as the driver records them (exact reply text plus its strict
 * parse), in the words of the spec: a result's payload, a stanza error's condition and type,
 * and the byte comparison of error replies that #errors and interp-19 ask for.
 */
import type { Element } from '@xmpp/xml';
import { expect } from 'vitest';
import type { IqExchange } from '../../harness/driver/index.ts';
import type { DefinedCondition, StanzaErrorType } from '../../protocol/stanza/index.ts';
import { readXml } from '../../protocol/xml/read-xml.ts';
import { childElements } from '../../protocol/xml/xml-query.ts';

/** Throws with the reply text unless the exchange is a result; returns its payload. */
export function resultPayload(exchange: IqExchange): Element {
  if (exchange.parsed.type !== 'result') {
    throw new Error(`expected an IQ result, received:\n${exchange.reply.xml}`);
  }
  if (exchange.parsed.payload === undefined)
    throw new Error(`the result has no payload:\n${exchange.reply.xml}`);
  return exchange.parsed.payload;
}

/** The error's condition and type ("item-not-found/cancel"), or "result" for a result. */
export function outcomeOf(exchange: IqExchange): string {
  const { parsed } = exchange;
  return parsed.type === 'error' ? `${parsed.error.condition}/${parsed.error.type}` : 'result';
}

/**
 * The stanza error as `condition/type`, with nothing beside the condition: no text, no
 * application condition, no `by`, and no echoed request payload (#errors).
 */
export function expectStanzaError(
  exchange: IqExchange,
  condition: DefinedCondition,
  type: StanzaErrorType,
): void {
  expect(outcomeOf(exchange), exchange.reply.xml).toBe(`${condition}/${type}`);
  if (exchange.parsed.type !== 'error') return;
  const { error, payload } = exchange.parsed;
  expect(
    { text: error.text, applicationCondition: error.applicationCondition, by: error.by, echoed: payload },
    exchange.reply.xml,
  ).toEqual({ text: undefined, applicationCondition: undefined, by: undefined, echoed: undefined });
}

/** The <error/> element exactly as it crossed the wire. */
export function errorText(exchange: IqExchange): string {
  const document = readXml(exchange.reply.xml);
  const [error] = childElements(document.root, 'error');
  if (error === undefined) throw new Error(`no <error/> in:\n${exchange.reply.xml}`);
  return document.source.slice(error.start, error.end);
}

function replaceAttribute(xml: string, name: string, value: string, placeholder: string): string {
  return xml
    .replace(`${name}='${value}'`, `${name}='${placeholder}'`)
    .replace(`${name}="${value}"`, `${name}="${placeholder}"`);
}

/**
 * The whole reply as received, with its id replaced and its 'from' replaced after checking it
 * is the request's 'to' (interp-19: the error comes from the address asked).
 */
export function normalizedReply(exchange: IqExchange, requestTo: string): string {
  expect(exchange.reply.from, `the reply comes from the address asked:\n${exchange.reply.xml}`).toBe(
    requestTo,
  );
  const withId = replaceAttribute(exchange.reply.xml, 'id', exchange.id, 'ID');
  return replaceAttribute(withId, 'from', requestTo, 'TO');
}

/**
 * Several error exchanges (hidden, nonexistent, unauthorized…) carry byte-identical <error/>
 * elements, and byte-identical replies once id and 'from' are normalized (#errors, interp-19).
 */
export function expectIdenticalErrors(
  cases: Readonly<Record<string, { readonly exchange: IqExchange; readonly to: string }>>,
): void {
  const entries = Object.entries(cases);
  const [first] = entries;
  if (first === undefined) throw new Error('no cases');
  for (const [name, { exchange }] of entries) {
    expect(exchange.parsed.type, `${name}: ${exchange.reply.xml}`).toBe('error');
  }
  const errors = Object.fromEntries(entries.map(([name, { exchange }]) => [name, errorText(exchange)]));
  const replies = Object.fromEntries(
    entries.map(([name, { exchange, to }]) => [name, normalizedReply(exchange, to)]),
  );
  const expectedErrors = Object.fromEntries(entries.map(([name]) => [name, errorText(first[1].exchange)]));
  const expectedReplies = Object.fromEntries(
    entries.map(([name]) => [name, normalizedReply(first[1].exchange, first[1].to)]),
  );
  expect(errors).toEqual(expectedErrors);
  expect(replies).toEqual(expectedReplies);
}
