/**
 * RFC 6120 §8.3 stanza errors: <error type by?> with exactly one defined condition, an optional
 * <text xml:lang?>, and an optional application-specific condition, in that order. The
 * interp-19 and interp-42 compare whole error payloads, so the parser keeps every part.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { NS } from '../namespaces.ts';
import { attributeOf, clarkNameOf, detachedCopyOf, localNameOf, namespaceOf } from './element-access.ts';
import {
  checkAttributes,
  elementOnlyChildren,
  enumAttribute,
  expectEmpty,
  parseFailure,
  simpleContent,
} from './element-reader.ts';
import { buildFailure, legalText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { lexEnum } from './lexical.ts';

export const STANZA_ERROR_TYPES = ['auth', 'cancel', 'continue', 'modify', 'wait'] as const;
export type StanzaErrorType = (typeof STANZA_ERROR_TYPES)[number];

export const DEFINED_CONDITIONS = [
  'bad-request',
  'conflict',
  'feature-not-implemented',
  'forbidden',
  'gone',
  'internal-server-error',
  'item-not-found',
  'jid-malformed',
  'not-acceptable',
  'not-allowed',
  'not-authorized',
  'policy-violation',
  'recipient-unavailable',
  'redirect',
  'registration-required',
  'remote-server-not-found',
  'remote-server-timeout',
  'resource-constraint',
  'service-unavailable',
  'subscription-required',
  'undefined-condition',
  'unexpected-request',
] as const;
export type DefinedCondition = (typeof DEFINED_CONDITIONS)[number];

/** The two conditions whose element may carry an alternate address (RFC 6120 §8.3.3.5, §8.3.3.14). */
const CONDITIONS_WITH_TEXT: readonly DefinedCondition[] = ['gone', 'redirect'];

/** Namespaces a stanza's own children (and so <error/>) may have; none when detached from a stream. */
export const STANZA_NAMESPACES: readonly (string | undefined)[] = [NS.client, NS.component, undefined];

export interface StanzaErrorText {
  readonly text: string;
  readonly lang?: string;
}

export interface StanzaError {
  readonly type: StanzaErrorType;
  readonly condition: DefinedCondition;
  /** For gone and redirect: the address carried as the condition element's character data. */
  readonly conditionText?: string;
  readonly text?: StanzaErrorText;
  /** The application-specific condition element, as received (still attached to its parent). */
  readonly applicationCondition?: Element;
  readonly by?: string;
}

export function isStanzaErrorElement(element: Element): boolean {
  return localNameOf(element) === 'error' && STANZA_NAMESPACES.includes(namespaceOf(element));
}

function parseCondition(element: Element): Pick<StanzaError, 'condition' | 'conditionText'> {
  const condition = localNameOf(element);
  if (!(DEFINED_CONDITIONS as readonly string[]).includes(condition)) {
    throw parseFailure(element, 'unexpected-child', 'not a defined stanza error condition (RFC 6120 §8.3.3)');
  }
  checkAttributes(element, []);
  const defined = condition as DefinedCondition;
  if (!CONDITIONS_WITH_TEXT.includes(defined)) {
    expectEmpty(element);
    return { condition: defined };
  }
  const address = simpleContent(element);
  return address === '' ? { condition: defined } : { condition: defined, conditionText: address };
}

function parseText(element: Element): StanzaErrorText {
  checkAttributes(element, ['xml:lang']);
  const text = simpleContent(element);
  const lang = attributeOf(element, 'xml:lang');
  return lang === undefined ? { text } : { text, lang };
}

export function parseStanzaError(element: Element): StanzaError {
  if (localNameOf(element) !== 'error') throw parseFailure(element, 'wrong-element', 'expected <error/>');
  if (!isStanzaErrorElement(element)) {
    throw parseFailure(
      element,
      'wrong-namespace',
      'expected the stanza namespace (jabber:client or jabber:component:accept)',
    );
  }
  const type = enumAttribute(element, 'type', STANZA_ERROR_TYPES);
  const by = attributeOf(element, 'by');
  const [first, ...rest] = elementOnlyChildren(element);
  if (first === undefined || namespaceOf(first) !== NS.stanzas || localNameOf(first) === 'text') {
    throw parseFailure(
      element,
      'missing-child',
      'a defined condition must be the first child (RFC 6120 §8.3.2)',
    );
  }
  let error: StanzaError = { type, ...parseCondition(first), ...(by === undefined ? {} : { by }) };
  for (const child of rest) {
    const isText = namespaceOf(child) === NS.stanzas && localNameOf(child) === 'text';
    if (isText && error.text !== undefined) {
      throw parseFailure(element, 'duplicate-child', 'at most one <text/> is allowed');
    } else if (isText && error.applicationCondition !== undefined) {
      throw parseFailure(element, 'child-order', '<text/> must precede the application-specific condition');
    } else if (isText) {
      error = { ...error, text: parseText(child) };
    } else if (namespaceOf(child) === NS.stanzas) {
      throw parseFailure(element, 'unexpected-child', `<${clarkNameOf(child)}>: one defined condition only`);
    } else if (error.applicationCondition === undefined) {
      error = { ...error, applicationCondition: child };
    } else {
      throw parseFailure(element, 'duplicate-child', 'at most one application-specific condition is allowed');
    }
  }
  return error;
}

const ERROR_TARGET: BuildTarget = { local: 'error', ns: undefined };

/** <error/> without an xmlns of its own: it takes the namespace of the stanza it is put into. */
export function buildStanzaError(error: StanzaError): Element {
  const conditionTarget: BuildTarget = { local: error.condition, ns: NS.stanzas };
  lexForBuild(ERROR_TARGET, 'type', error.type, lexEnum(STANZA_ERROR_TYPES));
  lexForBuild(conditionTarget, undefined, error.condition, lexEnum(DEFINED_CONDITIONS));
  if (error.conditionText !== undefined && !CONDITIONS_WITH_TEXT.includes(error.condition)) {
    throw buildFailure(conditionTarget, 'unexpected-text', 'only gone and redirect carry character data');
  }
  const application = error.applicationCondition;
  if (application !== undefined && [NS.stanzas, ...STANZA_NAMESPACES].includes(namespaceOf(application))) {
    throw buildFailure(
      ERROR_TARGET,
      'wrong-namespace',
      'an application-specific condition needs its own namespace',
    );
  }
  const { text } = error;
  return xml(
    'error',
    { type: error.type, by: error.by === undefined ? undefined : legalText(ERROR_TARGET, error.by, 'by') },
    xml(
      error.condition,
      { xmlns: NS.stanzas },
      error.conditionText === undefined ? undefined : legalText(conditionTarget, error.conditionText),
    ),
    text === undefined
      ? undefined
      : xml(
          'text',
          {
            xmlns: NS.stanzas,
            'xml:lang':
              text.lang === undefined
                ? undefined
                : legalText({ local: 'text', ns: NS.stanzas }, text.lang, 'xml:lang'),
          },
          legalText({ local: 'text', ns: NS.stanzas }, text.text),
        ),
    application === undefined ? undefined : detachedCopyOf(application),
  );
}
