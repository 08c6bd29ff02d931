/**
 * Checks every case runs on what the SUT sent, whatever the case itself asserted: each element
 * in the agent-api or agent-task namespace that arrived from the gateway's domain must be valid
 * against the normative XML Schemas (#schema). A case that passed its own assertions still
 * fails when the SUT sent an invalid element along the way.
 */
import { xml, type Element } from '@xmpp/xml';
import type { TranscriptEntry } from '../../harness/driver/index.ts';
import { normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';
import { NS_AGENT_API, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { namespaceOf, parseXml, serialize, StanzaParseError } from '../../protocol/stanza/index.ts';
import { validateElements } from '../../protocol/xsd/validator.ts';
import { RequirementViolation } from './verdicts.ts';

/** Registry ID of the requirement that every protocol element validates against the schemas. */
export const SCHEMA_REQUIREMENT = 'schema.base-structures-valid';

const OUR_NAMESPACES: readonly string[] = [NS_AGENT_API, NS_AGENT_TASK];

function fromGateway(entry: TranscriptEntry, gatewayJid: string): boolean {
  if (entry.kind !== 'stanza' || entry.direction !== 'received' || entry.xml === undefined) return false;
  const from = /^<[^>]*\sfrom=(["'])([^"']*)\1/.exec(entry.xml)?.[2];
  if (from === undefined) return false;
  try {
    return normalizeBareJid(parseJid(from).domainpart) === gatewayJid;
  } catch {
    return false;
  }
}

/** The outermost elements in our namespaces, each standing alone with its namespace declared. */
function protocolElements(stanza: Element): Element[] {
  const found: Element[] = [];
  const visit = (element: Element): void => {
    for (const child of element.children) {
      if (typeof child === 'string') continue;
      const namespace = namespaceOf(child);
      if (namespace !== undefined && OUR_NAMESPACES.includes(namespace)) {
        found.push(xml(child.name, { ...child.attrs, xmlns: namespace }, ...child.children));
      } else {
        visit(child);
      }
    }
  };
  visit(stanza);
  return found;
}

/** Throws a RequirementViolation naming the first invalid element the gateway sent. */
export async function checkGatewayElements(
  entries: readonly TranscriptEntry[],
  gatewayJid: string,
): Promise<void> {
  const sent: { readonly stanzaXml: string; readonly elementXml: string }[] = [];
  for (const entry of entries) {
    if (!fromGateway(entry, gatewayJid) || entry.xml === undefined) continue;
    let stanza: Element;
    try {
      stanza = parseXml(entry.xml);
    } catch (error) {
      if (error instanceof StanzaParseError) continue; // the driver already reports malformed stanzas
      throw error;
    }
    for (const element of protocolElements(stanza))
      sent.push({ stanzaXml: entry.xml, elementXml: serialize(element) });
  }
  if (sent.length === 0) return;
  const results = await validateElements(sent.map((item) => item.elementXml));
  results.forEach((result, index) => {
    if (result.valid) return;
    const item = sent[index];
    if (item === undefined) return;
    const errors = result.errors.map((error) => error.message).join('; ');
    throw new RequirementViolation(
      SCHEMA_REQUIREMENT,
      `every agent-api/agent-task element the gateway sends is valid against the normative XML Schema`,
      item.stanzaXml,
      `${SCHEMA_REQUIREMENT}: the gateway sent an element its schema rejects (${result.failure}: ${errors})`,
    );
  });
}
