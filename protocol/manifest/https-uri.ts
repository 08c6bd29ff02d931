/**
 * The application rules for `agent.homepage` and `agent.avatarUrl` (#manifest), which the
 * schema's `format: uri` cannot enforce because `format` is annotation-only in 2020-12.
 *
 * Reading of "absolute URI under RFC 3986": the `absolute-URI` production of RFC 3986 §4.3,
 * which has no fragment; RFC 9110 §4.2.2's `https-URI` has none either. A fragment therefore
 * gets its own rule ('fragment') so a caller can grade it separately from the hard failures.
 */
import { parseUri, type UriSyntaxRule } from './rfc3986.ts';

export type HttpsUriRule =
  | UriSyntaxRule
  | 'scheme-not-https'
  | 'scheme-not-lowercase'
  | 'no-authority'
  | 'userinfo'
  | 'empty-host'
  | 'port-range'
  | 'fragment';

/** Largest TCP port: an RFC 9110 `https` port names one, and RFC 3986 alone would allow any digits. */
const MAX_PORT = 65535;

/** Why the text is not an acceptable manifest HTTPS URI, or undefined when it is one. */
export function httpsUriViolation(text: string): HttpsUriRule | undefined {
  const parsed = parseUri(text);
  if (!parsed.ok) return parsed.rule;
  const { scheme, authority, fragment } = parsed.uri;
  // Schemes compare case-insensitively (RFC 3986 §3.1), but producers must write lowercase.
  if (scheme.toLowerCase() !== 'https') return 'scheme-not-https';
  if (scheme !== 'https') return 'scheme-not-lowercase';
  if (authority === undefined) return 'no-authority';
  // An empty userinfo (`https://@host`) still has the delimiter and is still present.
  if (authority.userinfo !== undefined) return 'userinfo';
  if (authority.host === '') return 'empty-host';
  if (authority.port !== undefined && authority.port !== '' && Number(authority.port) > MAX_PORT) {
    return 'port-range';
  }
  if (fragment !== undefined) return 'fragment';
  return undefined;
}
