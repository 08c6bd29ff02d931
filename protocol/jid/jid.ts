/**
 * JIDs as the gateway and the suite need them: endpoint identifiers are normalized bare JIDs
 * (#namespaces), `agent.jid` must carry no resource (interp-25), and the directory
 * orders by normalized bare JID (interp-15).
 *
 * Structure follows RFC 7622 §3.1-§3.2: the resourcepart starts at the first `/`, the
 * localpart ends at the first `@` before it, each part is 1-1023 octets of UTF-8.
 *
 * Not full PRECIS. Normalization is: strip one trailing domain dot (RFC 7622 §3.2), NFC, then
 * `toLowerCase()` of localpart and domainpart; resourceparts are only NFC-normalized. For ASCII
 * that is exactly RFC 7622 preparation. For other text it approximates it and differs where:
 * - UsernameCaseMapped (RFC 8265 §3.3) applies width mapping first and Unicode Default Case
 *   Folding, so fullwidth `Ａ` and `ß`, final `ς`, Cherokee letters prepare differently;
 * - IDNA2008/UTS #46 domain mapping is not applied (no A-label ⇄ U-label conversion, so
 *   `xn--` and Unicode spellings of one domain compare unequal);
 * - PRECIS-disallowed code points (symbols, compatibility characters, unassigned code points)
 *   and the bidi rule are not rejected;
 * - IPv6 literals are compared as written after lowercasing, not as addresses.
 * Mixed-case and IDN fixtures are therefore WARN-only in ordering tests (interp-15).
 */
import { isXmlLegalText } from '../identifiers.ts';
import { isIpv6Address } from '../manifest/rfc3986.ts';

export type JidRule =
  | 'lone-surrogate'
  | 'empty-localpart'
  | 'empty-domainpart'
  | 'empty-resourcepart'
  | 'localpart-too-long'
  | 'domainpart-too-long'
  | 'resourcepart-too-long'
  | 'localpart-character'
  | 'domainpart-character'
  | 'domainpart-label'
  | 'ip-literal'
  | 'resourcepart-character'
  | 'resource-present';

export class JidError extends Error {
  override readonly name = 'JidError';
  constructor(readonly rule: JidRule) {
    // The rejected text is not echoed: JIDs reach us from untrusted stanzas and manifests.
    super(`not a valid JID (${rule})`);
  }
}

export interface Jid {
  readonly localpart: string | undefined;
  readonly domainpart: string;
  readonly resourcepart: string | undefined;
}

export interface BareJid {
  readonly localpart: string | undefined;
  readonly domainpart: string;
}

/** RFC 7622 §3.1: every part is at most 1023 octets once encoded as UTF-8. */
const MAX_PART_OCTETS = 1023;
/** RFC 7622 §3.3.1 forbids these in a localpart; PRECIS IdentifierClass forbids spaces and controls. */
const LOCALPART_FORBIDDEN = /["&'/:<>@\s\p{Cc}]/u;
/** FreeformClass (RFC 8264 §4.3) admits spaces but never controls. */
const RESOURCEPART_FORBIDDEN = /\p{Cc}/u;
/**
 * ASCII in a label is limited to letters, digits and hyphen (RFC 5890 §2.3.1 LDH); an all-ASCII
 * label also has the LDH shape and DNS length. Labels with other text are taken as U-labels.
 */
const NON_LDH_ASCII = /(?![A-Za-z0-9-])[\x00-\x7f]/;
const LDH_SHAPE = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const ALL_ASCII = /^[\x00-\x7f]*$/;
const MAX_ASCII_LABEL_OCTETS = 63;

function hasLoneSurrogate(text: string): boolean {
  // With the u flag a paired surrogate is one astral code point; only a lone one is Cs.
  return /\p{Cs}/u.test(text);
}

function octets(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function checkLength(part: string, empty: JidRule, tooLong: JidRule): void {
  if (part === '') throw new JidError(empty);
  if (octets(part) > MAX_PART_OCTETS) throw new JidError(tooLong);
}

function checkLocalpart(localpart: string): void {
  checkLength(localpart, 'empty-localpart', 'localpart-too-long');
  if (LOCALPART_FORBIDDEN.test(localpart) || !isXmlLegalText(localpart)) {
    throw new JidError('localpart-character');
  }
}

function checkResourcepart(resourcepart: string): void {
  checkLength(resourcepart, 'empty-resourcepart', 'resourcepart-too-long');
  if (RESOURCEPART_FORBIDDEN.test(resourcepart) || !isXmlLegalText(resourcepart)) {
    throw new JidError('resourcepart-character');
  }
}

/** Checks a domainpart whose trailing label separator, if any, has already been removed. */
function checkDomainpart(domainpart: string): void {
  checkLength(domainpart, 'empty-domainpart', 'domainpart-too-long');
  if (domainpart.startsWith('[')) {
    // RFC 7622 §3.2 admits IPv6 only in the bracketed IP-literal form of RFC 3986.
    if (!domainpart.endsWith(']') || !isIpv6Address(domainpart.slice(1, -1))) {
      throw new JidError('ip-literal');
    }
    return;
  }
  if (/[\s\p{Cc}]/u.test(domainpart) || !isXmlLegalText(domainpart)) {
    throw new JidError('domainpart-character');
  }
  // Dotted IPv4 addresses are LDH labels too, so they need no separate branch.
  for (const label of domainpart.split('.')) {
    if (label === '') throw new JidError('domainpart-label');
    if (NON_LDH_ASCII.test(label)) throw new JidError('domainpart-character');
    if (ALL_ASCII.test(label) && (!LDH_SHAPE.test(label) || label.length > MAX_ASCII_LABEL_OCTETS)) {
      throw new JidError('domainpart-label');
    }
  }
}

function stripTrailingDot(domainpart: string): string {
  return domainpart.endsWith('.') ? domainpart.slice(0, -1) : domainpart;
}

/** Splits and checks a JID; the parts are returned as written (apart from a final domain dot). */
export function parseJid(text: string): Jid {
  if (hasLoneSurrogate(text)) throw new JidError('lone-surrogate');
  const slash = text.indexOf('/');
  const beforeResource = slash === -1 ? text : text.slice(0, slash);
  const resourcepart = slash === -1 ? undefined : text.slice(slash + 1);
  const at = beforeResource.indexOf('@');
  const localpart = at === -1 ? undefined : beforeResource.slice(0, at);
  const domainpart = stripTrailingDot(at === -1 ? beforeResource : beforeResource.slice(at + 1));
  if (localpart !== undefined) checkLocalpart(localpart);
  checkDomainpart(domainpart);
  if (resourcepart !== undefined) checkResourcepart(resourcepart);
  return { localpart, domainpart, resourcepart };
}

/** A JID that must be bare, such as an endpoint identifier or `agent.jid`. */
export function parseBareJid(text: string): BareJid {
  const jid = parseJid(text);
  if (jid.resourcepart !== undefined) throw new JidError('resource-present');
  return { localpart: jid.localpart, domainpart: jid.domainpart };
}

function caseMapped(part: string): string {
  return part.normalize('NFC').toLowerCase();
}

/** The comparison form of a bare JID's parts; mapping can lengthen text, so limits are rechecked. */
function normalizeParts(jid: BareJid): BareJid {
  const localpart = jid.localpart === undefined ? undefined : caseMapped(jid.localpart);
  const domainpart = caseMapped(jid.domainpart);
  if (localpart !== undefined) checkLocalpart(localpart);
  checkDomainpart(domainpart);
  return { localpart, domainpart };
}

function formatBare(jid: BareJid): string {
  return jid.localpart === undefined ? jid.domainpart : `${jid.localpart}@${jid.domainpart}`;
}

/** The normalized string form of a bare JID; throws JidError when it is invalid or has a resource. */
export function normalizeBareJid(text: string): string {
  return formatBare(normalizeParts(parseBareJid(text)));
}

/** The normalized bare JID of any JID, dropping a resourcepart (e.g. an authenticated stanza sender). */
export function bareJidOf(text: string): string {
  const jid = parseJid(text);
  return formatBare(normalizeParts({ localpart: jid.localpart, domainpart: jid.domainpart }));
}

/** The normalized full JID: bare parts normalized, the resourcepart only NFC-normalized (OpaqueString). */
export function normalizeJid(text: string): string {
  const jid = parseJid(text);
  const bare = formatBare(normalizeParts({ localpart: jid.localpart, domainpart: jid.domainpart }));
  if (jid.resourcepart === undefined) return bare;
  const resourcepart = jid.resourcepart.normalize('NFC');
  checkResourcepart(resourcepart);
  return `${bare}/${resourcepart}`;
}

/**
 * Endpoint-identifier equality (#namespaces). Invalid text and full JIDs are equal to nothing,
 * so an untrusted address can never match a stored endpoint by failing to parse.
 */
export function bareJidEquals(a: string, b: string): boolean {
  try {
    return normalizeBareJid(a) === normalizeBareJid(b);
  } catch (error) {
    if (error instanceof JidError) return false;
    throw error;
  }
}
