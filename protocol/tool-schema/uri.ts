/**
 * URI-reference resolution for `$id`, `$ref` and `$dynamicRef` (#schemas). The WHATWG URL parser
 * resolves RFC 3986 references for the hierarchical and `urn:` identifiers schemas use; a reference
 * it cannot resolve is reported as unresolved, which the policy treats as a rejection, never as a
 * licence to guess.
 */

export interface SplitUri {
  /** The absolute URI without its fragment: which document (schema resource) is meant. */
  readonly resource: string;
  /** The decoded fragment, or undefined when there is none (an empty fragment is ''). */
  readonly fragment: string | undefined;
}

export function resolveUri(reference: string, base: string): SplitUri | undefined {
  let href: string;
  try {
    href = new URL(reference, base).href;
  } catch {
    return undefined;
  }
  const hash = href.indexOf('#');
  if (hash === -1) return { resource: href, fragment: undefined };
  try {
    return { resource: href.slice(0, hash), fragment: decodeURIComponent(href.slice(hash + 1)) };
  } catch {
    return undefined;
  }
}
