/**
 * Finds the root element's namespace before xmllint runs, so a batch can be routed to the right
 * schema (or answered 'unknown-namespace'). Read with the one XML reader up to the root start
 * tag; well-formedness of the rest is libxml2's job.
 */
import { NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';
import { SaxCore } from '../xml/sax-core.ts';
import type { XsdError, XsdFailure, XsdSchemaId } from './xsd-result.ts';

export type RootScan =
  | { readonly ok: true; readonly namespace: string | null; readonly localName: string }
  | { readonly ok: false; readonly failure: XsdFailure; readonly error: XsdError };

/** Which normative schema governs a namespace, if any. */
export function schemaForNamespace(namespace: string | null): XsdSchemaId | undefined {
  if (namespace === NS_AGENT_API) return 'agent-api';
  if (namespace === NS_AGENT_TASK) return 'agent-task';
  return undefined;
}

export function scanRootElement(xml: string): RootScan {
  const text = xml.startsWith('\uFEFF') ? xml.slice(1) : xml;
  const refuse = (failure: XsdFailure, message: string, offset: number): RootScan => ({
    ok: false,
    failure,
    error: { line: text.slice(0, offset).split('\n').length, message },
  });
  // Comments and PIs may come before the root here: only a DTD is refused.
  const core = new SaxCore({ maxDepth: Infinity, guard: { restricted: false } });
  for (const read of [() => core.write(text), () => core.end()]) {
    const { events, failure } = read();
    for (const event of events) {
      if (event.kind === 'doctype') {
        // Restricted XML (RFC 6120 §11.1): stanzas never carry a DTD, and refusing it here
        // keeps entity expansion out of the validator.
        return refuse('invalid', 'document type declarations are not allowed in XMPP (RFC 6120 §11.1)', event.start);
      }
      if (event.kind === 'open') {
        const { uri, local } = event.tag;
        return { ok: true, namespace: uri === '' ? null : uri, localName: local };
      }
    }
    if (failure !== undefined) return refuse('not-well-formed', failure.detail, failure.offset);
  }
  return refuse('not-well-formed', 'expected the root element', text.length);
}
