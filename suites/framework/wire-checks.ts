/**
 * Checks every case runs on what the SUT sent, whatever the case itself asserted: each element
 * in the agent-api or agent-task namespace that arrived from the gateway's domain must be valid
 * against the normative XML Schemas (#schema), each lifecycle payload against its event schema,
 * no error text (an IQ error's <text/>, a failure's message and details) may carry a stack
 * trace or source path (#errors), and no stanza may carry the gateway's own credential, the
 * component secret the harness gave it (#security). A case that passed its own assertions still
 * fails when the SUT sent such a thing along the way.
 */
import { xml, type Element } from '@xmpp/xml';
import { secretSpellings, type TranscriptEntry } from '../../harness/driver/index.ts';
import { normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';
import { NS, NS_AGENT_API, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { validateEventPayload } from '../../protocol/events/index.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import {
  localNameOf,
  namespaceOf,
  parseEvent,
  parseXml,
  serialize,
  StanzaParseError,
} from '../../protocol/stanza/index.ts';
import { validateElements, type XsdResult } from '../../protocol/xsd/validator.ts';
import { requirementOfInvalidEvent } from './event-requirement.ts';
import { unsafeTrace } from './safe-text.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import { RequirementViolation } from './verdicts.ts';

/** Every requirement the wire checks enforce on every case (coverage counts them as cited). */
export const WIRE_CHECK_REQUIREMENTS: readonly RequirementId[] = [
  'schema.base-structures-valid',
  'event-json-schemas.payloads-valid',
  'errors.safe-messages',
  'security.no-credentials-in-payloads',
  'errors.one-reply-per-iq',
];

/**
 * Credentials shorter than this are not looked for: a short fixed secret ("secret", say) would
 * match ordinary text. The harness's generated per-run secrets are far longer.
 */
export const MIN_CREDENTIAL_LENGTH = 12;

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
      // An IQ error may carry the original request payload (#errors): that is the requester's
      // element echoed, not one the gateway produced, so the schemas do not judge it here (the
      // SHOULD against echoing attacker-controlled JSON is errors.no-payload-echo's).
      if (isEchoedRequest(element, child)) continue;
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

/** Whether `child` of `parent` is the request payload an IQ error echoes (any child but <error/>). */
function isEchoedRequest(parent: Element, child: Element): boolean {
  return parent.name === 'iq' && parent.attrs['type'] === 'error' && child.name !== 'error';
}

/** One protocol element the gateway sent, with the stanza that carried it. */
export interface SentElement {
  readonly stanzaXml: string;
  readonly elementXml: string;
}

/** A stanza the gateway's domain sent, parsed once for every check that reads it. */
interface GatewayStanza {
  readonly xml: string;
  readonly stanza: Element;
}

/** The stanzas the gateway's domain sent, parsed; a malformed one the driver already reports. */
function gatewayStanzas(entries: readonly TranscriptEntry[], gatewayJid: string): GatewayStanza[] {
  const stanzas: GatewayStanza[] = [];
  for (const entry of entries) {
    if (!fromGateway(entry, gatewayJid) || entry.xml === undefined) continue;
    try {
      stanzas.push({ xml: entry.xml, stanza: parseXml(entry.xml) });
    } catch (error) {
      if (error instanceof StanzaParseError) continue;
      throw error;
    }
  }
  return stanzas;
}

/** Every agent-api/agent-task element in the stanzas the gateway's domain sent. */
export function gatewayElements(entries: readonly TranscriptEntry[], gatewayJid: string): SentElement[] {
  return elementsIn(gatewayStanzas(entries, gatewayJid));
}

function elementsIn(stanzas: readonly GatewayStanza[]): SentElement[] {
  return stanzas.flatMap(({ xml, stanza }) =>
    protocolElements(stanza).map((element) => ({ stanzaXml: xml, elementXml: serialize(element) })),
  );
}

/** The violation for the first element of `sent` its schema rejects, given their results in order. */
function firstViolation(
  sent: readonly SentElement[],
  results: readonly XsdResult[],
): RequirementViolation | undefined {
  for (const [index, result] of results.entries()) {
    const item = sent[index];
    if (result.valid || item === undefined) continue;
    const errors = result.errors.map((error) => error.message).join('; ');
    return new RequirementViolation(
      'schema.base-structures-valid',
      `every agent-api/agent-task element the gateway sends is valid against the normative XML Schema`,
      item.stanzaXml,
      `schema.base-structures-valid: the gateway sent an element its schema rejects (${result.failure}: ${errors})`,
    );
  }
  return undefined;
}

/** Throws a RequirementViolation naming the first invalid element the gateway sent. */
export async function checkGatewayElements(
  entries: readonly TranscriptEntry[],
  gatewayJid: string,
): Promise<void> {
  const sent = gatewayElements(entries, gatewayJid);
  if (sent.length === 0) return;
  const violation = firstViolation(sent, await validateElements(sent.map((item) => item.elementXml)));
  if (violation !== undefined) throw violation;
}

/**
 * The first lifecycle event from the gateway whose JSON payload is not one strict I-JSON text
 * valid against the normative event schema for its type (#event-json-schemas). Events whose
 * XML is malformed are left to the XML Schema check.
 */
export function eventPayloadViolation(
  entries: readonly TranscriptEntry[],
  gatewayJid: string,
): RequirementViolation | undefined {
  return eventViolationIn(gatewayStanzas(entries, gatewayJid));
}

function eventViolationIn(stanzas: readonly GatewayStanza[]): RequirementViolation | undefined {
  for (const { xml, stanza } of stanzas) {
    if (stanza.name !== 'message') continue;
    for (const child of stanza.children) {
      if (
        typeof child === 'string' ||
        localNameOf(child) !== 'event' ||
        namespaceOf(child) !== NS_AGENT_TASK
      ) {
        continue;
      }
      let problem: string | undefined;
      let requirement: RequirementId = 'event-json-schemas.payloads-valid';
      try {
        const event = parseEvent(child);
        const validation = validateEventPayload(event.type, parseStrictJson(event.json));
        if (!validation.ok) {
          requirement = requirementOfInvalidEvent(event.type, validation.violations);
          problem = validation.violations
            .map((violation) => `${violation.path || '/'}: ${violation.message}`)
            .join('; ');
        }
      } catch (error) {
        if (error instanceof StanzaParseError) continue;
        if (!(error instanceof JsonRejection)) throw error;
        problem = `not one I-JSON text: ${error.message}`;
      }
      if (problem !== undefined) {
        return new RequirementViolation(
          requirement,
          'every lifecycle event payload is valid against the normative event schema for its type',
          xml,
          `${requirement}: the gateway sent an event whose payload breaks the schema (${problem})`,
        );
      }
    }
  }
  return undefined;
}

/** The error texts a stanza carries: its <error/>'s <text/>, and a failure's message and details. */
function errorTexts(stanza: Element): string[] {
  const texts: string[] = [];
  const error = stanza.children.find(
    (child): child is Element => typeof child !== 'string' && localNameOf(child) === 'error',
  );
  const text = error?.getChild('text', NS.stanzas)?.getText();
  if (text !== undefined) texts.push(text);
  for (const child of stanza.children) {
    if (typeof child === 'string' || namespaceOf(child) !== NS_AGENT_TASK) continue;
    const failed =
      (localNameOf(child) === 'event' && child.attrs['type'] === 'failed') ||
      (localNameOf(child) === 'task-result' && child.attrs['state'] === 'failed');
    if (!failed) continue;
    try {
      const payload = parseStrictJson(child.getText());
      const failure = isJsonObject(payload) ? payload['error'] : undefined;
      if (!isJsonObject(failure)) continue;
      if (typeof failure['message'] === 'string') texts.push(failure['message']);
      if (failure['details'] !== undefined) texts.push(JSON.stringify(failure['details']));
    } catch (problem) {
      if (!(problem instanceof JsonRejection)) throw problem;
    }
  }
  return texts;
}

/** The first error text from the gateway that carries a stack trace or a source path (#errors). */
export function errorTextViolation(
  entries: readonly TranscriptEntry[],
  gatewayJid: string,
): RequirementViolation | undefined {
  return errorTextViolationIn(gatewayStanzas(entries, gatewayJid));
}

function errorTextViolationIn(stanzas: readonly GatewayStanza[]): RequirementViolation | undefined {
  for (const { xml, stanza } of stanzas) {
    for (const text of errorTexts(stanza)) {
      const trace = unsafeTrace(text);
      if (trace === undefined) continue;
      return new RequirementViolation(
        'errors.safe-messages',
        'error texts without stack traces, source paths or other implementation internals',
        xml,
        `errors.safe-messages: the gateway sent an error text carrying ${trace}`,
      );
    }
  }
  return undefined;
}

/** What a run's transcripts record instead of the component secret (harness/driver/transcript.ts). */
export const REDACTED_SECRET = '[component secret]';

/**
 * The first stanza from the gateway that carries one of `credentials` (#security: no
 * credential in manifests, forms, bodies, task data, progress or error text). The report shows
 * the stanza with the credential replaced, so the run's own artifacts do not leak it either.
 */
export function credentialViolation(
  entries: readonly TranscriptEntry[],
  gatewayJid: string,
  credentials: readonly string[],
): RequirementViolation | undefined {
  const watched = credentials.filter((credential) => credential.length >= MIN_CREDENTIAL_LENGTH);
  if (watched.length === 0) return undefined;
  // The runner's transcripts hold the label where the secret was; other transcripts the secret.
  const forms = [REDACTED_SECRET, ...watched.flatMap(secretSpellings)];
  for (const entry of entries) {
    if (!fromGateway(entry, gatewayJid) || entry.xml === undefined) continue;
    const xmlText = entry.xml;
    if (!forms.some((form) => xmlText.includes(form))) continue;
    const shown = forms.reduce((text, form) => text.replaceAll(form, REDACTED_SECRET), xmlText);
    return new RequirementViolation(
      'security.no-credentials-in-payloads',
      'no credential (the component secret) in anything the gateway sends',
      shown,
      `security.no-credentials-in-payloads: the gateway sent a stanza carrying its component secret (shown replaced)`,
    );
  }
  return undefined;
}

/**
 * The schema checks of a whole run, validated in one batch at the end: one xmllint run costs
 * far more than the documents in it, and a run's cases would otherwise pay it once each. The
 * runner records what each passed case received and, once every case ran, turns the passed
 * cases whose elements fail the schemas into failures with the violation.
 */
export class DeferredWireChecks {
  readonly #gatewayJid: string;
  readonly #pending = new Map<string, SentElement[]>();
  readonly #eventViolations = new Map<string, RequirementViolation>();
  readonly #credentials: readonly string[];

  /** `credentials`: what the gateway must never send, its component secret. */
  constructor(gatewayJid: string, credentials: readonly string[] = []) {
    this.#gatewayJid = gatewayJid;
    this.#credentials = credentials;
  }

  /** Remembers what the gateway sent during a case's final attempt. */
  record(caseId: string, entries: readonly TranscriptEntry[]): void {
    const stanzas = gatewayStanzas(entries, this.#gatewayJid);
    this.#pending.set(caseId, elementsIn(stanzas));
    const eventViolation =
      eventViolationIn(stanzas) ??
      errorTextViolationIn(stanzas) ??
      credentialViolation(entries, this.#gatewayJid, this.#credentials);
    if (eventViolation === undefined) this.#eventViolations.delete(caseId);
    else this.#eventViolations.set(caseId, eventViolation);
  }

  /** Case ID → the first violation during that case: event payloads, error texts, credentials, then XML. */
  async violations(): Promise<Map<string, RequirementViolation>> {
    const cases = [...this.#pending.entries()].filter(([, sent]) => sent.length > 0);
    const all = cases.flatMap(([, sent]) => sent);
    const results = all.length === 0 ? [] : await validateElements(all.map((item) => item.elementXml));
    const found = new Map<string, RequirementViolation>(this.#eventViolations);
    let offset = 0;
    for (const [caseId, sent] of cases) {
      const violation = firstViolation(sent, results.slice(offset, offset + sent.length));
      offset += sent.length;
      if (violation !== undefined && !found.has(caseId)) found.set(caseId, violation);
    }
    return found;
  }
}
