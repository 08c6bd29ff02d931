/**
 * Build-side helpers: values go through the same lexical rules the parsers enforce, so that
 * everything a builder emits parses back to the value it was given. Violations throw
 * StanzaBuildError; nothing invalid reaches the wire by accident. Negative tests that must send
 * a malformed element build a valid one and edit its attributes afterwards.
 */
import type { XmppDateTime } from '../datetime.ts';
import type { Element } from '@xmpp/xml';
import { StanzaBuildError, StanzaParseError } from './errors.ts';
import type { StanzaRule } from './errors.ts';
import { clarkName } from './element-access.ts';
import type { Lexical } from './lexical.ts';
import { lexDateTime, lexNonNegativeInteger } from './lexical.ts';
import { describeCharAt, firstIllegalXmlChar } from '../xml/xml-chars.ts';

export interface BuildTarget {
  readonly local: string;
  readonly ns: string | undefined;
}

export function buildFailure(
  target: BuildTarget,
  rule: StanzaRule,
  detail: string,
  attribute?: string,
): StanzaBuildError {
  return new StanzaBuildError({
    element: clarkName(target.local, target.ns),
    rule,
    detail,
    ...(attribute === undefined ? {} : { attribute }),
  });
}

export function lexForBuild<T>(
  target: BuildTarget,
  attribute: string | undefined,
  text: string,
  lex: (text: string) => Lexical<T>,
): string {
  const result = lex(text);
  if (!result.ok) throw buildFailure(target, result.rule, result.detail, attribute);
  return text;
}

/** Free text (JSON, a reason, a name) that XML 1.0 must be able to carry (#json-encoding). */
export function legalText(target: BuildTarget, text: string, attribute?: string): string {
  const illegal = firstIllegalXmlChar(text);
  if (illegal !== -1) {
    throw buildFailure(
      target,
      'illegal-xml-character',
      `${describeCharAt(text, illegal)} at index ${illegal} cannot be carried by XML 1.0`,
      attribute,
    );
  }
  return text;
}

/** A revision or other xs:nonNegativeInteger held as a safe JavaScript integer. */
export function integerText(target: BuildTarget, attribute: string | undefined, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw buildFailure(
      target,
      'invalid-integer',
      `${String(value)} is not a non-negative safe integer`,
      attribute,
    );
  }
  return lexForBuild(target, attribute, String(value), lexNonNegativeInteger);
}

export function dateTimeText(
  target: BuildTarget,
  attribute: string | undefined,
  value: XmppDateTime,
): string {
  return lexForBuild(target, attribute, value.text, lexDateTime);
}

export function booleanText(value: boolean): 'true' | 'false' {
  return value ? 'true' : 'false';
}

/**
 * Re-reads a built element with its parser, so that a builder whose rules are structural (forms,
 * search) can never emit what the parser refuses. Parse failures become build failures.
 */
export function validateBuilt(element: Element, parse: (element: Element) => unknown): Element {
  try {
    parse(element);
  } catch (error) {
    if (error instanceof StanzaParseError) throw new StanzaBuildError(error, { cause: error });
    throw error;
  }
  return element;
}
