/**
 * Where reports point a reader for a requirement: the spec's section anchors are our requirement
 * keys. The ProtoXEP has no XEP number yet (its shortname is NOT_YET_ASSIGNED), so the address is
 * the XSF inbox location its file name implies; when it is published elsewhere, change it here.
 */
export const SPEC_TITLE = 'XMPP Agent Gateway';
export const SPEC_URL = 'https://xmpp.org/extensions/inbox/xmpp-agent-gateway.html';

export function specAnchorUrl(anchor: string): string {
  return `${SPEC_URL}#${encodeURIComponent(anchor)}`;
}

/** Stable IRIs for our own things in linked-data reports (the project already names schemas urn:agentconf:…). */
export function caseIri(caseId: string): string {
  return `urn:agentconf:case:${encodeURIComponent(caseId)}`;
}

export function requirementIri(requirementId: string): string {
  return `urn:agentconf:requirement:${encodeURIComponent(requirementId)}`;
}
