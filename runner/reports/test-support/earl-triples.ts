/**
 * An EARL report as RDF triples for the tests: jsonld expands it with a document loader that
 * serves nothing (any URL it asks for is recorded and refused, so a report that needs the
 * network fails), then converts to N-Quads, parsed here into subject/predicate/object.
 */
import jsonld from 'jsonld';

export interface Triple {
  readonly subject: string;
  readonly predicate: string;
  /** IRIs and blank nodes as is; literals as "value" or "value"^^datatype. */
  readonly object: string;
}

const TERM = /<([^>]*)>|(_:\S+)|"((?:[^"\\]|\\.)*)"(?:\^\^<([^>]*)>|@[A-Za-z-]+)?/g;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function unescapeLiteral(text: string): string {
  return text.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, escape: string) => {
    if (escape.startsWith('u') || escape.startsWith('U'))
      return String.fromCodePoint(parseInt(escape.slice(1), 16));
    return ESCAPES[escape] ?? escape;
  });
}

/** The triples of an N-Quads document (default graph only: the report has no named graphs). */
export function parseNQuads(text: string): Triple[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const terms = [...line.matchAll(TERM)].map((match) => {
        if (match[1] !== undefined) return match[1];
        if (match[2] !== undefined) return match[2];
        const value = unescapeLiteral(match[3] ?? '');
        return match[4] === undefined ? `"${value}"` : `"${value}"^^${match[4]}`;
      });
      const [subject, predicate, object, ...rest] = terms;
      if (subject === undefined || predicate === undefined || object === undefined || rest.length > 0) {
        throw new Error(`not a default-graph triple: ${line}`);
      }
      return { subject, predicate, object };
    });
}

export function offlineLoader(requested: string[]) {
  return (url: string) => {
    requested.push(url);
    return Promise.reject(new Error(`the EARL report must not need ${url}`));
  };
}

/** Expands in safe mode (a term that would be dropped is an error) and returns the triples. */
export async function earlTriples(document: unknown): Promise<{ triples: Triple[]; requested: string[] }> {
  const requested: string[] = [];
  const options = { documentLoader: offlineLoader(requested), safe: true };
  const expanded = await jsonld.expand(document, options);
  if (expanded.length === 0) throw new Error('the EARL report expands to nothing');
  const nquads = await jsonld.toRDF(expanded, { ...options, format: 'application/n-quads' });
  return { triples: parseNQuads(nquads), requested };
}
