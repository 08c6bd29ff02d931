/**
 * The one XML reader (saxes underneath, sax-core.ts) and its views: a streaming reader for XMPP
 * streams, a strict document parser building @xmpp/xml Elements, and a position-keeping document
 * reader for the spec and its examples.
 */
export * from './xml-syntax-error.ts';
export * from './xml-stream-reader.ts';
export * from './parse-xml.ts';
export * from './read-xml.ts';
export * from './xml-query.ts';
