/**
 * Names what stopped a read by our rules (XmlSyntaxRule), with the offset a reader wants to
 * point at: saxes failures arrive as messages, the guard's findings and illegal characters as
 * offsets. Kept apart from the core so that the table of saxes messages reads at once.
 */
import type { GuardFinding } from './markup-guard.ts';
import { describeCharAt } from './xml-chars.ts';
import type { XmlSyntaxRule } from './xml-syntax-error.ts';

export interface CoreFailure {
  readonly rule: XmlSyntaxRule;
  readonly offset: number;
  readonly detail: string;
  /** Set when the guard found restricted XML (only when it watches for it). */
  readonly guard?: GuardFinding | undefined;
}

/** What the core knows when a read stops. */
export interface ReadState {
  /** saxes' position: just past the character it stopped at. */
  readonly position: number;
  /** Offset just past the last markup read, and just past everything read. */
  readonly markupEnd: number;
  readonly written: number;
  /** The start tag under way, if any. */
  readonly tag: { readonly name: string; readonly start: number } | undefined;
  /** The innermost open element, if any. */
  readonly openElement: { readonly name: string; readonly start: number } | undefined;
  readonly rootClosed: boolean;
  markupStart(): number;
  slice(from: number, to: number): string;
  lastIndexOf(needle: string, before: number): number;
}

/** Markup other than tags that the input may end inside, by opener. */
const UNTERMINATED: readonly (readonly [string, string])[] = [
  ['<!--', 'comment'],
  ['<?', 'processing instruction'],
  ['<!DOCTYPE', 'document type declaration'],
];

/** The name in a close tag's text. */
export function closeTagName(closeTag: string): string {
  return /^<\/([^\s>]*)/.exec(closeTag)?.[1] ?? '';
}

export function illegalCharacter(offset: number, state: ReadState): CoreFailure {
  const character = describeCharAt(state.slice(offset, offset + 2), 0);
  return { rule: 'illegal-character', offset, detail: `character not allowed in XML 1.0: ${character}` };
}

export function guardFailure(finding: GuardFinding, state: ReadState, restricted: boolean): CoreFailure {
  // As far as it was read, for naming it.
  const construct = state.slice(finding.start, finding.at + 1);
  const at = { offset: finding.start, guard: restricted ? finding : undefined };
  switch (finding.kind) {
    case 'comment':
      return { ...at, rule: 'restricted-xml', detail: 'comments are not allowed (RFC 6120 §11.1)' };
    case 'processing-instruction':
      return {
        ...at,
        rule: 'restricted-xml',
        detail: 'processing instructions are not allowed (RFC 6120 §11.1)',
      };
    case 'declaration':
      return state.slice(finding.start, finding.start + 9) === '<!DOCTYPE'
        ? { ...at, rule: 'doctype', detail: 'document type declarations are not allowed here' }
        : { ...at, rule: 'malformed-tag', detail: `unexpected '<!' (${construct})` };
    case 'entity-reference':
      return {
        ...at,
        rule: 'undefined-entity',
        detail: `entity ${construct} is not declared (no DTD is read)`,
      };
    case 'malformed-reference':
      return { ...at, rule: 'invalid-reference', detail: "'&' must start a reference ending in ';'" };
  }
}

/** Names a saxes failure by our rules, pointing at the construct it concerns. */
export function saxesFailure(message: string, state: ReadState): CoreFailure {
  const position = state.position;
  const here = Math.max(0, position - 1);
  const tagStart = state.tag?.start ?? state.markupStart();
  const tagName = state.tag?.name ?? '';
  const fail = (rule: XmlSyntaxRule, detail: string, offset = here): CoreFailure => ({
    rule,
    offset,
    detail,
  });
  const prefix = /^unbound namespace prefix: "(.*)"\.$/.exec(message)?.[1];
  if (prefix !== undefined) {
    const qname = tagName.startsWith(`${prefix}:`) ? tagName : `${prefix}:…`;
    return fail('namespace', `namespace prefix in ${qname} is not declared`, tagStart);
  }
  const duplicate = /^duplicate attribute: (.*)\.$/.exec(message)?.[1];
  if (duplicate !== undefined) {
    return fail('duplicate-attribute', `attribute ${duplicate} appears twice in <${tagName}>`, tagStart);
  }
  if (/^(unclosed tag: |unexpected end\.|document must contain a root element\.)/.test(message)) {
    return unfinished(state);
  }
  if (/^(unexpected close tag|unmatched closing tag|weird empty close tag)/.test(message)) {
    const start = state.markupStart();
    const open = state.openElement?.name ?? '';
    return fail(
      'mismatched-end-tag',
      `</${closeTagName(state.slice(start, position))}> closes <${open}>`,
      start,
    );
  }
  switch (message) {
    case 'disallowed character.': {
      // Characters were checked before saxes saw them: this is a '<' in an attribute value.
      const attribute = /([^\s=]+)\s*=\s*["'][^"']*$/.exec(state.slice(tagStart, position))?.[1] ?? '';
      return fail('malformed-attribute', `'<' in the value of ${attribute}`);
    }
    case 'text data outside of root node.':
    case 'documents may contain only one root.':
      return outsideRoot(here, state);
    case 'inappropriately located doctype declaration.':
      return fail('doctype', 'document type declarations are not allowed here');
    case 'malformed comment.':
      return fail('malformed-tag', "'--' is not allowed inside a comment");
    case 'the string "]]>" is disallowed in char data.':
      return fail('cdata-end-in-text', "']]>' is not allowed in character data", position - 3);
    case 'no whitespace between attributes.':
      return fail('malformed-tag', `whitespace must separate attributes in <${tagName}>`);
    case 'attribute without value.':
      return fail('malformed-attribute', `expected '=' after an attribute name in <${tagName}>`);
    case 'unquoted attribute value.':
      return fail('malformed-attribute', `attribute values in <${tagName}> must be quoted`);
    case 'disallowed character in attribute name.':
      return fail('malformed-attribute', `malformed attribute name, or no '=' after it, in <${tagName}>`);
    case 'disallowed character in tag name':
    case 'disallowed character in tag name.':
    case 'forward-slash in opening tag not followed by >.':
      return fail('malformed-tag', 'expected an element name');
    case 'disallowed character in closing tag.':
      return fail('malformed-tag', "end tag is not closed by '>'");
    case 'incorrect syntax.':
      return fail('malformed-tag', "unexpected '<!'", tagStart);
    case 'processing instruction without a target.':
    case 'disallowed character in processing instruction name.':
      return fail('malformed-tag', 'expected a processing-instruction target');
    case 'an XML declaration must be at the start of the document.':
    case 'the XML declaration must appear at the start of the document.':
    case 'processing instructions are not allowed before root.':
      return fail('restricted-xml', 'the XML declaration must come first', tagStart);
    case 'undefined entity.':
    case 'empty entity name.':
    case 'disallowed character in entity name.':
    case 'malformed character entity.':
      return badReference(message, position, state);
    case 'invalid attempt to undefine prefix in XML 1.0':
      return fail('namespace', 'a prefixed namespace declaration must not be empty in XML 1.0', tagStart);
    default:
      if (/namespace|prefix|malformed name/.test(message)) return fail('namespace', message, tagStart);
      // Everything else saxes refuses is inside the XML declaration.
      return fail('xml-declaration', `the XML declaration is malformed: ${message}`, 0);
  }
}

function outsideRoot(offset: number, state: ReadState): CoreFailure {
  return state.rootClosed
    ? { rule: 'trailing-content', offset, detail: 'content after the root element' }
    : { rule: 'no-root', offset, detail: 'expected the root element' };
}

function badReference(message: string, position: number, state: ReadState): CoreFailure {
  const start = state.lastIndexOf('&', position);
  const reference = state.slice(start, position);
  if (message === 'undefined entity.') {
    return { rule: 'undefined-entity', offset: start, detail: `entity ${reference} is not declared` };
  }
  return {
    rule: 'invalid-reference',
    offset: start,
    detail: `${reference} does not reference an XML 1.0 character`,
  };
}

/** The input ended inside something: which thing decides the rule. */
function unfinished(state: ReadState): CoreFailure {
  const tail = state.slice(state.markupEnd, state.written);
  const cdata = tail.indexOf('<![CDATA[');
  if (cdata !== -1) {
    return {
      rule: 'unterminated-cdata',
      offset: state.markupEnd + cdata,
      detail: 'unterminated CDATA section',
    };
  }
  const lt = tail.indexOf('<');
  if (lt !== -1) {
    const markup = tail.slice(lt);
    const unterminated = UNTERMINATED.find(([opener]) => markup.startsWith(opener));
    if (unterminated !== undefined) {
      return {
        rule: 'malformed-tag',
        offset: state.markupEnd + lt,
        detail: `unterminated ${unterminated[1]}`,
      };
    }
    const quotes = markup.match(/["']/g)?.length ?? 0;
    const name = /^<([^\s/>]*)/.exec(markup)?.[1] ?? '';
    return quotes % 2 === 1
      ? {
          rule: 'malformed-attribute',
          offset: state.markupEnd + lt,
          detail: `an attribute value in <${name}> is never closed`,
        }
      : {
          rule: 'malformed-tag',
          offset: state.markupEnd + lt,
          detail: `start tag <${name}> is never closed`,
        };
  }
  const open = state.openElement;
  if (open === undefined)
    return { rule: 'no-root', offset: state.written, detail: 'expected the root element' };
  return { rule: 'unclosed-element', offset: open.start, detail: `<${open.name}> is never closed` };
}
