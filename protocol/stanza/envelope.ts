/**
 * IQ and message envelopes (RFC 6120 §8.1-8.2, RFC 6121 §5.2.2). Addresses are opaque strings
 * here; the stanza namespace is jabber:client, jabber:component:accept, or inherited from a
 * stream that is not part of the element (no namespace of its own).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { compact } from './compact.ts';
import { attributeOf, clarkNameOf, localNameOf, namespaceOf } from './element-access.ts';
import { elementOnlyChildren, enumAttribute, parseFailure, requiredAttribute } from './element-reader.ts';
import { buildFailure, legalText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { lexEnum } from './lexical.ts';
import { STANZA_NAMESPACES, buildStanzaError, parseStanzaError } from './stanza-error.ts';
import type { StanzaError } from './stanza-error.ts';

export const IQ_TYPES = ['get', 'set', 'result', 'error'] as const;
export type IqType = (typeof IQ_TYPES)[number];

export const MESSAGE_TYPES = ['chat', 'error', 'groupchat', 'headline', 'normal'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface StanzaAddressing {
  readonly from?: string;
  readonly to?: string;
  readonly lang?: string;
}

export interface IqEnvelope extends StanzaAddressing {
  readonly id: string;
  readonly type: IqType;
}

/** A request IQ: exactly one payload child. */
export interface IqRequest extends IqEnvelope {
  readonly type: 'get' | 'set';
  readonly payload: Element;
}

export interface IqResult extends IqEnvelope {
  readonly type: 'result';
  readonly payload?: Element;
}

export interface IqError extends IqEnvelope {
  readonly type: 'error';
  readonly error: StanzaError;
  /** The echoed request payload, if the responder included it (#errors). */
  readonly payload?: Element;
}

/** Narrow on `type`: requests always have a payload, errors always an error. */
export type ParsedIq = IqRequest | IqResult | IqError;

export interface MessageEnvelope extends StanzaAddressing {
  readonly id?: string;
  /** The effective type: "normal" when the attribute is absent or not understood (RFC 6121 §5.2.2). */
  readonly type: MessageType;
  /** The 'type' attribute as received, when present. */
  readonly typeAttribute?: string;
}

export interface ParsedMessage extends MessageEnvelope {
  /** Every child element except a type="error" message's <error/>. */
  readonly children: readonly Element[];
  readonly error?: StanzaError;
}

function addressing(element: Element): StanzaAddressing {
  return compact({
    from: attributeOf(element, 'from'),
    to: attributeOf(element, 'to'),
    lang: attributeOf(element, 'xml:lang'),
  });
}

function expectStanza(element: Element, local: 'iq' | 'message'): void {
  if (localNameOf(element) !== local) throw parseFailure(element, 'wrong-element', `expected <${local}/>`);
  if (!STANZA_NAMESPACES.includes(namespaceOf(element))) {
    throw parseFailure(element, 'wrong-namespace', 'expected jabber:client or jabber:component:accept');
  }
}

/** The stanza's <error/> children: same local name, same namespace as the stanza itself. */
function isOwnError(stanza: Element, child: Element): boolean {
  return localNameOf(child) === 'error' && namespaceOf(child) === namespaceOf(stanza);
}

/** RFC 6120 §8.2.3: get/set carry exactly one payload, result at most one, error an <error/>. */
export function parseIq(element: Element): ParsedIq {
  expectStanza(element, 'iq');
  const id = requiredAttribute(element, 'id');
  const type = enumAttribute(element, 'type', IQ_TYPES);
  const children = elementOnlyChildren(element);
  const addresses = addressing(element);
  if (type === 'error') {
    const errors = children.filter((child) => isOwnError(element, child));
    const others = children.filter((child) => !isOwnError(element, child));
    const [errorElement, extraError] = errors;
    if (errorElement === undefined) {
      throw parseFailure(element, 'missing-child', 'an IQ error needs an <error/> child');
    }
    if (extraError !== undefined) {
      throw parseFailure(element, 'duplicate-child', 'an IQ error has one <error/> child');
    }
    const [payload, extra] = others;
    if (extra !== undefined) {
      throw parseFailure(
        element,
        'unexpected-child',
        `<${clarkNameOf(extra)}> beyond the echoed request payload`,
      );
    }
    return compact({ id, type, ...addresses, error: parseStanzaError(errorElement), payload });
  }
  const [payload, extra] = children;
  if (extra !== undefined) {
    throw parseFailure(
      element,
      'unexpected-child',
      `an IQ ${type} has at most one child; <${clarkNameOf(extra)}> is extra`,
    );
  }
  if (payload !== undefined && isOwnError(element, payload)) {
    throw parseFailure(element, 'unexpected-child', `an IQ ${type} must not carry <error/>`);
  }
  if (type === 'result') return compact({ id, type, ...addresses, payload });
  if (payload === undefined) {
    throw parseFailure(element, 'missing-child', `an IQ ${type} needs exactly one payload child`);
  }
  return { id, type, ...addresses, payload };
}

const IQ: BuildTarget = { local: 'iq', ns: undefined };
const MESSAGE: BuildTarget = { local: 'message', ns: undefined };

function addressAttributes(target: BuildTarget, value: StanzaAddressing): Record<string, string | undefined> {
  const text = (name: string, content: string | undefined): string | undefined =>
    content === undefined ? undefined : legalText(target, content, name);
  return {
    from: text('from', value.from),
    to: text('to', value.to),
    'xml:lang': text('xml:lang', value.lang),
  };
}

/** An <iq/> without xmlns: the stream's default namespace applies when it is sent. */
export function buildIq(envelope: IqEnvelope, payload?: Element): Element {
  lexForBuild(IQ, 'type', envelope.type, lexEnum(IQ_TYPES));
  if ((envelope.type === 'get' || envelope.type === 'set') && payload === undefined) {
    throw buildFailure(IQ, 'missing-child', `an IQ ${envelope.type} needs exactly one payload child`);
  }
  if (envelope.type === 'error') {
    throw buildFailure(IQ, 'invalid-attribute', 'use buildIqError for IQ errors', 'type');
  }
  return xml(
    'iq',
    { id: legalText(IQ, envelope.id, 'id'), type: envelope.type, ...addressAttributes(IQ, envelope) },
    payload,
  );
}

function reply(request: IqEnvelope): StanzaAddressing & { readonly id: string } {
  return {
    id: request.id,
    ...(request.to === undefined ? {} : { from: request.to }),
    ...(request.from === undefined ? {} : { to: request.from }),
  };
}

/** The result for `request`: same id, addresses swapped (RFC 6120 §8.2.3). */
export function buildIqResult(request: IqEnvelope, payload?: Element): Element {
  return buildIq({ ...reply(request), type: 'result' }, payload);
}

/** The error reply for `request`, optionally echoing the request payload (#errors: only when safe). */
export function buildIqError(request: IqEnvelope, error: StanzaError, echoedPayload?: Element): Element {
  const envelope = { ...reply(request), type: 'error' as const };
  return xml(
    'iq',
    { id: legalText(IQ, envelope.id, 'id'), type: 'error', ...addressAttributes(IQ, envelope) },
    echoedPayload,
    buildStanzaError(error),
  );
}

export function parseMessage(element: Element): ParsedMessage {
  expectStanza(element, 'message');
  const typeAttribute = attributeOf(element, 'type');
  const type: MessageType =
    typeAttribute !== undefined && (MESSAGE_TYPES as readonly string[]).includes(typeAttribute)
      ? (typeAttribute as MessageType)
      : 'normal';
  const id = attributeOf(element, 'id');
  const envelope: MessageEnvelope = {
    type,
    ...(typeAttribute === undefined ? {} : { typeAttribute }),
    ...(id === undefined ? {} : { id }),
    ...addressing(element),
  };
  const children = elementOnlyChildren(element);
  if (type !== 'error') return { ...envelope, children };
  const [errorElement, extraError] = children.filter((child) => isOwnError(element, child));
  if (errorElement === undefined) {
    throw parseFailure(element, 'missing-child', 'a message error needs an <error/> child');
  }
  if (extraError !== undefined) {
    throw parseFailure(element, 'duplicate-child', 'a message error has one <error/> child');
  }
  return {
    ...envelope,
    children: children.filter((child) => child !== errorElement),
    error: parseStanzaError(errorElement),
  };
}

export interface MessageToBuild extends StanzaAddressing {
  readonly id?: string;
  /** Omitted: no attribute, which RFC 6121 reads as "normal". */
  readonly type?: MessageType;
}

export function buildMessage(envelope: MessageToBuild, ...children: Element[]): Element {
  if (envelope.type !== undefined) lexForBuild(MESSAGE, 'type', envelope.type, lexEnum(MESSAGE_TYPES));
  return xml(
    'message',
    {
      id: envelope.id === undefined ? undefined : legalText(MESSAGE, envelope.id, 'id'),
      type: envelope.type,
      ...addressAttributes(MESSAGE, envelope),
    },
    ...children,
  );
}
