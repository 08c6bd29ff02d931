/**
 * A small RFC 3986 syntax checker. The manifest's HTTPS URIs (#manifest) and extension member
 * names need real RFC 3986 validation: JSON Schema `format` is annotation-only, and the WHATWG
 * URL parser repairs and normalizes input (it accepts `HTTPS://`, `https:/x`, backslashes and
 * spaces), so it cannot tell a valid URI from one it managed to fix.
 *
 * Scope: the generic syntax of RFC 3986 §3 (ABNF in Appendix A), ASCII only. IRIs (RFC 3987)
 * are not URIs and are rejected; IPv6 zone identifiers (RFC 6874) are not RFC 3986 and are
 * rejected. Nothing is normalized; the caller sees the components exactly as written.
 */

export type UriSyntaxRule =
  | 'not-absolute'
  | 'bad-scheme'
  | 'invalid-character'
  | 'bad-percent-encoding'
  | 'bad-ip-literal'
  | 'bad-port';

export interface UriAuthority {
  /** Present whenever an `@` delimits userinfo, even when the userinfo is empty. */
  readonly userinfo: string | undefined;
  readonly host: string;
  readonly hostKind: 'ip-literal' | 'reg-name';
  /** Present whenever a `:` delimits a port, even when the port is empty. */
  readonly port: string | undefined;
}

export interface UriComponents {
  readonly scheme: string;
  readonly authority: UriAuthority | undefined;
  readonly path: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

export interface UriSyntaxFailure {
  readonly ok: false;
  readonly rule: UriSyntaxRule;
  /** The RFC 3986 component that failed: scheme, userinfo, host, port, path, query or fragment. */
  readonly component: string;
}

export type UriParse = { readonly ok: true; readonly uri: UriComponents } | UriSyntaxFailure;

// RFC 3986 Appendix B: splits any string into the five components without validating them.
const SPLIT = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
/** Character classes of the ABNF rules; `%` is admitted here and checked separately. */
const USERINFO_CHARS = new RegExp(`^[${UNRESERVED}${SUB_DELIMS}:%]*$`);
const REG_NAME_CHARS = new RegExp(`^[${UNRESERVED}${SUB_DELIMS}%]*$`);
const PCHARS = new RegExp(`^[${UNRESERVED}${SUB_DELIMS}:@%]*$`);
const QUERY_CHARS = new RegExp(`^[${UNRESERVED}${SUB_DELIMS}:@/?%]*$`);
const IPV_FUTURE = new RegExp(`^[vV][0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);
/** Every `%` must start a pct-encoded triplet. */
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])';
const IPV4 = new RegExp(`^${DEC_OCTET}(?:\\.${DEC_OCTET}){3}$`);
const H16 = /^[0-9A-Fa-f]{1,4}$/;

export function isIpv4Address(text: string): boolean {
  return IPV4.test(text);
}

/** RFC 3986 IPv6address: eight 16-bit groups, one `::` elision, an optional trailing IPv4. */
export function isIpv6Address(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const elided = halves.length === 2;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  const all = groups.flat();
  let width = 0;
  for (const [index, group] of all.entries()) {
    // ls32 allows a dotted IPv4 only as the address's final 32 bits.
    const isLast = index === all.length - 1 && (!elided || (groups[1]?.length ?? 0) > 0);
    if (isLast && group.includes('.')) {
      if (!isIpv4Address(group)) return false;
      width += 2;
    } else if (H16.test(group)) {
      width += 1;
    } else {
      return false;
    }
  }
  return elided ? width <= 7 : width === 8;
}

function charactersViolation(
  value: string,
  allowed: RegExp,
  component: string,
): UriSyntaxFailure | undefined {
  if (!allowed.test(value)) return { ok: false, rule: 'invalid-character', component };
  if (STRAY_PERCENT.test(value)) return { ok: false, rule: 'bad-percent-encoding', component };
  return undefined;
}

function parseAuthority(
  text: string,
): { readonly ok: true; readonly authority: UriAuthority } | UriSyntaxFailure {
  // userinfo cannot contain `@`, so the last one is the delimiter; extra ones fail its check.
  const at = text.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : text.slice(0, at);
  const hostPort = at === -1 ? text : text.slice(at + 1);
  if (userinfo !== undefined) {
    const bad = charactersViolation(userinfo, USERINFO_CHARS, 'userinfo');
    if (bad !== undefined) return bad;
  }
  let host: string;
  let hostKind: UriAuthority['hostKind'];
  let rest: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close === -1) return { ok: false, rule: 'bad-ip-literal', component: 'host' };
    host = hostPort.slice(0, close + 1);
    hostKind = 'ip-literal';
    const literal = hostPort.slice(1, close);
    if (!isIpv6Address(literal) && !IPV_FUTURE.test(literal)) {
      return { ok: false, rule: 'bad-ip-literal', component: 'host' };
    }
    rest = hostPort.slice(close + 1);
  } else {
    const colon = hostPort.indexOf(':');
    host = colon === -1 ? hostPort : hostPort.slice(0, colon);
    hostKind = 'reg-name';
    rest = colon === -1 ? '' : hostPort.slice(colon);
    const bad = charactersViolation(host, REG_NAME_CHARS, 'host');
    if (bad !== undefined) return bad;
  }
  let port: string | undefined;
  if (rest !== '') {
    if (!rest.startsWith(':')) return { ok: false, rule: 'invalid-character', component: 'host' };
    port = rest.slice(1);
    if (!/^[0-9]*$/.test(port)) return { ok: false, rule: 'bad-port', component: 'port' };
  }
  return { ok: true, authority: { userinfo, host, hostKind, port } };
}

/**
 * Parses an RFC 3986 `URI` (scheme required, fragment allowed). Relative references are
 * reported as 'not-absolute'; callers that also forbid fragments check `fragment` themselves.
 */
export function parseUri(text: string): UriParse {
  const m = SPLIT.exec(text);
  // Appendix B matches every string (the `s` flag lets `.` cross line ends).
  const [, scheme, authorityText, path = '', query, fragment] = m ?? [];
  if (scheme === undefined) return { ok: false, rule: 'not-absolute', component: 'scheme' };
  if (!SCHEME.test(scheme)) return { ok: false, rule: 'bad-scheme', component: 'scheme' };
  let authority: UriAuthority | undefined;
  if (authorityText !== undefined) {
    const parsed = parseAuthority(authorityText);
    if (!parsed.ok) return parsed;
    authority = parsed.authority;
  }
  // With an authority Appendix B leaves path-abempty; without one, any `//` start would have
  // been taken as an authority, so only the segment characters remain to check.
  const segments = charactersViolation(path.replaceAll('/', ''), PCHARS, 'path');
  if (segments !== undefined) return segments;
  if (query !== undefined) {
    const bad = charactersViolation(query, QUERY_CHARS, 'query');
    if (bad !== undefined) return bad;
  }
  if (fragment !== undefined) {
    const bad = charactersViolation(fragment, QUERY_CHARS, 'fragment');
    if (bad !== undefined) return bad;
  }
  return { ok: true, uri: { scheme, authority, path, query, fragment } };
}

const UNRESERVED_CHAR = new RegExp(`^[${UNRESERVED}]$`);

/** RFC 3986 §6.2.2.2: decode percent-encoded unreserved characters, uppercase the other triplets. */
function normalizePercentEncoding(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_triplet, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED_CHAR.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * A comparison form under RFC 3986 §6.2.2 syntax-based normalization (case and percent-encoding
 * only; no dot-segment removal and no scheme-specific rules such as default ports), plus the
 * case-insensitive URN namespace identifier of RFC 8141 §3.1. Two URIs with equal forms are
 * equivalent; unequal forms may still be equivalent under rules we do not apply.
 */
export function uriComparisonForm(uri: UriComponents): string {
  const scheme = uri.scheme.toLowerCase();
  let text = `${scheme}:`;
  if (uri.authority !== undefined) {
    const { userinfo, host, port } = uri.authority;
    text += '//';
    if (userinfo !== undefined) text += `${normalizePercentEncoding(userinfo)}@`;
    // Hosts are case-insensitive once decoded; the hex digits of what stays encoded are uppercase.
    text += normalizePercentEncoding(host)
      .toLowerCase()
      .replace(/%[0-9a-f]{2}/g, (triplet) => triplet.toUpperCase());
    if (port !== undefined) text += `:${port}`;
  }
  let path = normalizePercentEncoding(uri.path);
  if (scheme === 'urn') {
    const colon = path.indexOf(':');
    path = colon === -1 ? path.toLowerCase() : path.slice(0, colon).toLowerCase() + path.slice(colon);
  }
  text += path;
  if (uri.query !== undefined) text += `?${normalizePercentEncoding(uri.query)}`;
  if (uri.fragment !== undefined) text += `#${normalizePercentEncoding(uri.fragment)}`;
  return text;
}
