/**
 * Stanza codecs for the XMPP Agent Gateway: strict XML parsing and serialization, the
 * urn:xmpp:agent-api:0 and urn:xmpp:agent-task:0 elements, and the foreign protocols they
 * travel with (XEP-0004, 0030, 0055, 0059, 0300, RFC 6120 errors, IQ and message envelopes).
 * Parsers take an Element and return a value or throw StanzaParseError; builders take a value
 * and return an Element or throw StanzaBuildError.
 */
export { parseXml, type ParseXmlOptions } from '../xml/parse-xml.ts';
export { DEFAULT_MAX_XML_DEPTH, XmlSyntaxError, type XmlSyntaxRule } from '../xml/xml-syntax-error.ts';
export * from './xml-serialize.ts';
export * from './errors.ts';
export * from './element-access.ts';
export * from './hash.ts';
export * from './agent-admin.ts';
export * from './provisioning-requests.ts';
export * from './agent-manifest.ts';
export * from './agent-schema.ts';
export * from './task-invoke.ts';
export * from './task-input.ts';
export * from './task-cancel.ts';
export * from './task-event.ts';
export * from './task-recovery.ts';
export * from './rsm.ts';
export * from './data-form.ts';
export * from './info-forms.ts';
export * from './disco-info.ts';
export * from './disco-items.ts';
export * from './search.ts';
export * from './stanza-error.ts';
export * from './envelope.ts';
