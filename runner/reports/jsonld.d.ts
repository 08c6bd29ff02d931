/**
 * The subset of jsonld 9 (which ships no types) that the EARL report test uses. Not
 * @types/jsonld 1.5.15: it describes jsonld 1.5, whose options have no `safe` (jsonld 6+) and
 * whose document loader is callback-style.
 */
declare module 'jsonld' {
  export interface RemoteDocument {
    contextUrl: string | null;
    documentUrl: string;
    document: unknown;
  }
  export interface JsonLdOptions {
    documentLoader?: (url: string) => Promise<RemoteDocument>;
    safe?: boolean;
    format?: 'application/n-quads';
  }
  interface JsonLd {
    expand(input: unknown, options?: JsonLdOptions): Promise<Record<string, unknown>[]>;
    toRDF(input: unknown, options: JsonLdOptions & { format: 'application/n-quads' }): Promise<string>;
  }
  const jsonld: JsonLd;
  export default jsonld;
}
