/**
 * What XML Schema validation says about one document (#schema). Kept apart from the
 * xmllint plumbing so callers can depend on the verdict shape without loading the engine.
 */

/** The two normative schemas; a document is routed by its root element's namespace. */
export type XsdSchemaId = 'agent-api' | 'agent-task';

/**
 * - 'invalid': well-formed, in one of our namespaces, but the schema rejects it.
 * - 'not-well-formed': libxml2 (or our root scan) could not parse it as XML.
 * - 'unknown-namespace': the root element is not in urn:xmpp:agent-api:0 or
 *   urn:xmpp:agent-task:0, so no normative schema applies. Not a crash, not a pass.
 */
export type XsdFailure = 'invalid' | 'not-well-formed' | 'unknown-namespace';

export interface XsdError {
  /** 1-based line in the submitted text, when the engine reported one. */
  readonly line: number | null;
  readonly message: string;
}

export type XsdResult =
  | { readonly valid: true; readonly schema: XsdSchemaId }
  | { readonly valid: false; readonly failure: XsdFailure; readonly errors: readonly XsdError[] };
