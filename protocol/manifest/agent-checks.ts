/**
 * The rules on the manifest's `agent` object that its schema cannot express (#manifest):
 * `agent.jid` is a bare JID (#namespaces, interp-25) and the two informational URIs
 * are lowercase-`https` absolute URIs with a host and no userinfo.
 */
import { JidError, normalizeBareJid } from '../jid/jid.ts';
import { isJsonObject, type JsonValue } from '../json/json-value.ts';
import { httpsUriViolation, type HttpsUriRule } from './https-uri.ts';
import type { Violation } from './schema-violations.ts';

const URI_MESSAGES: Readonly<Record<HttpsUriRule, string>> = {
  'not-absolute': 'must be an absolute URI with a scheme',
  'bad-scheme': 'has a malformed scheme',
  'invalid-character':
    'contains a character RFC 3986 does not allow there (non-ASCII must be percent-encoded)',
  'bad-percent-encoding': 'has a "%" not followed by two hex digits',
  'bad-ip-literal': 'has a malformed bracketed IP literal',
  'bad-port': 'has a port that is not all digits',
  'scheme-not-https': 'must use the https scheme',
  'scheme-not-lowercase': 'must write the https scheme in lowercase',
  'no-authority': 'must have an authority ("https://host")',
  userinfo: 'must not carry userinfo before the host',
  'empty-host': 'must have a non-empty host',
  'port-range': 'has a port above 65535',
  fragment: 'must not have a fragment (RFC 3986 absolute-URI, RFC 9110 https-URI)',
};

export function agentViolations(manifest: JsonValue): Violation[] {
  if (!isJsonObject(manifest)) return [];
  const agent = manifest['agent'];
  if (!isJsonObject(agent)) return [];
  const violations: Violation[] = [];
  const jid = agent['jid'];
  if (typeof jid === 'string') {
    try {
      // Normalizing, not just parsing: case mapping can push a part past its octet limit, and
      // the endpoint identifier is the normalized form (#namespaces).
      normalizeBareJid(jid);
    } catch (error) {
      if (!(error instanceof JidError)) throw error;
      violations.push({ rule: `jid:${error.rule}`, path: '/agent/jid', message: error.message });
    }
  }
  for (const member of ['homepage', 'avatarUrl']) {
    const uri = agent[member];
    if (typeof uri !== 'string') continue;
    const rule = httpsUriViolation(uri);
    if (rule !== undefined) {
      violations.push({ rule: `uri:${rule}`, path: `/agent/${member}`, message: URI_MESSAGES[rule] });
    }
  }
  return violations;
}
