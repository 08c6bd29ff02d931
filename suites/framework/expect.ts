/**
 * Assertions that speak the spec. Each names the requirement it enforces and, on failure,
 * throws a RequirementViolation carrying what was expected and the stanza that came back, so
 * the report can show both next to the transcript.
 *
 * Every verifier takes its arguments in one order: what came back (the exchange, the replies, or
 * a value read from one), the requirement, then the allowed answers or what is expected; after
 * those, the reply's XML to show when the first argument is a value read from it, and last the
 * context, for the verifiers that may only warn.
 *
 * A verifier that holds records one check of its requirement (evidence.ts): what a pass rests on.
 */
import { Element } from '@xmpp/xml';
import type { IqExchange } from '../../harness/driver/index.ts';
import { NS } from '../../protocol/namespaces.ts';
import {
  extensionForms,
  isElementNode,
  localNameOf,
  namespaceOf,
  parseDiscoInfo,
  parseDiscoItems,
  serialize,
  setAttribute,
  StanzaParseError,
  parseXml,
  DEFINED_CONDITIONS,
  type DataForm,
  type DefinedCondition,
  type DiscoInfo,
  type DiscoItems,
  type FormField,
  type StanzaError,
  type StanzaErrorType,
} from '../../protocol/stanza/index.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import type { CaseContext } from './context.ts';
import { checkHeld } from './evidence.ts';
import { CannotTell, RequirementViolation } from './verdicts.ts';

/** Fails `requirement` unless `holds`; `received` and `expected` are shown side by side. */
export function expectThat(
  received: string,
  requirement: RequirementId,
  expected: string,
  holds: boolean,
): void {
  if (!holds) throw new RequirementViolation(requirement, expected, received);
  checkHeld(requirement);
}

/** The reply must be an IQ result; returns its payload (undefined for an empty result). */
export function expectResult(
  exchange: IqExchange,
  requirement: RequirementId,
  expected = 'an IQ result',
): Element | undefined {
  if (exchange.parsed.type !== 'result') {
    throw new RequirementViolation(requirement, expected, exchange.reply.xml);
  }
  checkHeld(requirement);
  return exchange.parsed.payload;
}

/** The reply must be an IQ result whose payload is `{namespace}name`; returns the payload. */
export function expectResultPayload(
  exchange: IqExchange,
  requirement: RequirementId,
  namespace: string,
  name: string,
): Element {
  const expected = `an IQ result carrying <${name} xmlns='${namespace}'/>`;
  const payload = expectResult(exchange, requirement, expected);
  if (payload === undefined || localNameOf(payload) !== name || namespaceOf(payload) !== namespace) {
    throw new RequirementViolation(requirement, expected, exchange.reply.xml);
  }
  return payload;
}

/**
 * The reply must be an IQ error with one of `conditions` (several when the spec or an
 * interpretation allows alternatives) and, when given, the error type.
 */
export function expectError(
  exchange: IqExchange,
  requirement: RequirementId,
  conditions: DefinedCondition | readonly DefinedCondition[],
  type?: StanzaErrorType,
): void {
  const allowed: readonly DefinedCondition[] = typeof conditions === 'string' ? [conditions] : conditions;
  const expected = `an IQ error with <${allowed.join('/> or <')}/>${type === undefined ? '' : ` of type '${type}'`}`;
  const { parsed } = exchange;
  if (parsed.type !== 'error') throw new RequirementViolation(requirement, expected, exchange.reply.xml);
  if (!allowed.includes(parsed.error.condition) || (type !== undefined && parsed.error.type !== type)) {
    throw new RequirementViolation(requirement, expected, exchange.reply.xml);
  }
  checkHeld(requirement);
}

function sortedCopy(element: Element, omit: readonly string[]): Element {
  const copy = new Element(element.name);
  for (const name of Object.keys(element.attrs).sort()) {
    const value = element.attrs[name];
    if (value !== undefined && !omit.includes(name)) setAttribute(copy, name, value);
  }
  for (const child of element.children)
    copy.children.push(isElementNode(child) ? sortedCopy(child, []) : child);
  return copy;
}

/**
 * The element serialized with every element's attributes in name order, leaving out the
 * element's own attributes named in `omit`. Attribute order carries no meaning in XML and
 * servers re-serialize what they route (Prosody's order varies from stanza to stanza), so
 * "byte-identical" replies are compared in this form.
 */
export function comparableXml(element: Element, omit: readonly string[] = []): string {
  return serialize(sortedCopy(element, omit));
}

/** The request's payload (the IQ's one child) in comparable form, when the exchange recorded it. */
function requestPayloadBytes(exchange: IqExchange): string | undefined {
  try {
    const payload = parseXml(exchange.requestXml).children.find(isElementNode);
    return payload === undefined ? undefined : comparableXml(payload);
  } catch {
    return undefined;
  }
}

/**
 * What an error reply says, in comparable form: its <error/> element, and the echoed request
 * payload (#errors: MAY be included) as the children beside it.
 */
interface ErrorShape {
  readonly error: string;
  readonly echo: string | undefined;
}

function errorShape(exchange: IqExchange): ErrorShape | undefined {
  const { element } = exchange.reply;
  if (element === undefined || exchange.parsed.type !== 'error') return undefined;
  // The stanza's own <error/> (in the stream's content namespace, inherited by the child).
  const children = element.children.filter(isElementNode);
  const errors = children.filter((child) => localNameOf(child) === 'error');
  const echoed = children.filter((child) => localNameOf(child) !== 'error');
  const [error] = errors;
  if (errors.length !== 1 || error === undefined) return undefined;
  return {
    error: comparableXml(error),
    echo: echoed.length === 0 ? undefined : echoed.map((child) => comparableXml(child)).join(''),
  };
}

/**
 * Why two error replies can be told apart, or undefined when they cannot: another <error/>
 * element, or an echo of the request in one and not the other (interp-19). An echo is compared
 * byte for byte only when the two requests carried the same payload: an echo of requests that
 * differ differs by right (#errors lets a responder include the request).
 */
function errorDifference(first: IqExchange, second: IqExchange): string | undefined {
  const a = errorShape(first);
  const b = errorShape(second);
  if (a === undefined || b === undefined) return 'not two error replies with one <error/> each';
  if (a.error !== b.error) return 'the <error/> elements differ';
  if ((a.echo === undefined) !== (b.echo === undefined))
    return 'one echoes the request and the other does not';
  const sameRequest =
    requestPayloadBytes(first) !== undefined && requestPayloadBytes(first) === requestPayloadBytes(second);
  if (sameRequest && a.echo !== b.echo) return 'the same request is echoed differently';
  return undefined;
}

/**
 * Two error replies must carry identical <error/> elements, attribute order aside, and both echo
 * the request or neither (e.g. a hidden and a missing object: anything that differs tells the
 * caller which one exists). Echoes of different requests are not compared.
 */
export function expectSameErrorPayload(
  [first, second]: readonly [IqExchange, IqExchange],
  requirement: RequirementId,
): void {
  const difference = errorDifference(first, second);
  if (difference !== undefined) {
    throw new RequirementViolation(
      requirement,
      `two error replies with identical <error/> elements, both echoing the request or neither; the first was:\n${first.reply.xml}`,
      second.reply.xml,
      `${requirement}: the two error replies differ (${difference})`,
    );
  }
  checkHeld(requirement);
}

/**
 * A positive control: before a case passes on a refusal, the same request, well-formed and
 * authorized, must succeed. Otherwise the refusal proves nothing (a gateway that refuses
 * everything would pass), and the case cannot tell: returns the result's payload, or throws
 * CannotTell naming `what` was tried and what came back.
 */
export function requirePositiveControl(exchange: IqExchange, what: string): Element | undefined {
  if (exchange.parsed.type === 'result') return exchange.parsed.payload;
  const { condition } = exchange.parsed.error;
  throw new CannotTell(
    `the positive control failed: ${what} got <${condition}/>, so a refusal here cannot be told from a gateway that refuses such requests whatever they hold`,
  );
}

/**
 * Reads a payload with a protocol codec; a payload the codec rejects violates `requirement`
 * (the SUT sent something malformed where the requirement demands a specific structure).
 */
export function expectParsed<T>(
  payload: Element,
  requirement: RequirementId,
  parse: (element: Element) => T,
  replyXml: string,
): T {
  try {
    const parsed = parse(payload);
    checkHeld(requirement);
    return parsed;
  } catch (error) {
    if (!(error instanceof StanzaParseError)) throw error;
    throw new RequirementViolation(
      requirement,
      `a well-formed <${payload.name}/>: ${error.message}`,
      replyXml,
      `${requirement}: the reply's <${payload.name}/> is malformed (${error.message})`,
    );
  }
}

/** The reply must be an IQ result carrying <name xmlns=namespace/> that `parse` accepts. */
export function expectParsedResult<T>(
  exchange: IqExchange,
  requirement: RequirementId,
  namespace: string,
  name: string,
  parse: (element: Element) => T,
): T {
  return expectParsed(
    expectResultPayload(exchange, requirement, namespace, name),
    requirement,
    parse,
    exchange.reply.xml,
  );
}

/**
 * The error type RFC 6120 gives each condition, as interp-42 reads it: another type is only
 * warned about (a SHOULD finding: --strict fails it); a missing or invalid type never parses.
 * service-unavailable is `cancel`: `wait` only for a transient outage, which the case must
 * declare (ErrorTypeOptions.transientOutage).
 */
export const EXPECTED_ERROR_TYPES: Readonly<Partial<Record<DefinedCondition, readonly StanzaErrorType[]>>> = {
  'bad-request': ['modify'],
  'not-acceptable': ['modify'],
  'jid-malformed': ['modify'],
  conflict: ['cancel'],
  'item-not-found': ['cancel'],
  'not-allowed': ['cancel'],
  'service-unavailable': ['cancel'],
  forbidden: ['auth'],
  'resource-constraint': ['wait'],
  'unexpected-request': ['wait', 'modify'],
  'feature-not-implemented': ['cancel', 'modify'],
};

/** The types interp-42 also allows where the case says the service is out for a while. */
const TRANSIENT_OUTAGE_TYPES: Readonly<Partial<Record<DefinedCondition, readonly StanzaErrorType[]>>> = {
  'service-unavailable': ['cancel', 'wait'],
};

export interface ErrorTypeOptions {
  /**
   * The request meets a transient outage (the gateway restarting, a backend down for a while):
   * interp-42 then accepts service-unavailable typed `wait` as well as `cancel`. Everywhere
   * else `wait` is a finding on the case's requirement.
   */
  readonly transientOutage?: boolean;
}

/** Say so where a case expects a transient outage: `expectStanzaError(…, context, TRANSIENT_OUTAGE)`. */
export const TRANSIENT_OUTAGE: ErrorTypeOptions = { transientOutage: true };

/**
 * The reply must be an IQ error with one of `conditions`; an error type other than the one
 * interp-42 expects for that condition (with `options`) is a warning on `requirement`. Returns
 * the error.
 */
export function expectStanzaError(
  exchange: IqExchange,
  requirement: RequirementId,
  conditions: DefinedCondition | readonly DefinedCondition[],
  context: Pick<CaseContext, 'warn'>,
  options: ErrorTypeOptions = {},
): StanzaError {
  expectError(exchange, requirement, conditions);
  if (exchange.parsed.type !== 'error') throw new Error('unreachable: expectError passed a result');
  const { error } = exchange.parsed;
  const types =
    (options.transientOutage === true ? TRANSIENT_OUTAGE_TYPES[error.condition] : undefined) ??
    EXPECTED_ERROR_TYPES[error.condition];
  if (types !== undefined && !types.includes(error.type)) {
    const outage =
      error.condition === 'service-unavailable' && error.type === 'wait' && options.transientOutage !== true
        ? ': wait only for a transient outage, and nothing here is one'
        : '';
    context.warn(
      requirement,
      `<${error.condition}/> came with type '${error.type}'; RFC 6120 gives it ${types.map((type) => `'${type}'`).join(' or ')} (interp-42)${outage}`,
    );
  }
  return error;
}

/** One of several requests whose replies must not tell their targets apart. */
export interface ComparedReply {
  /** What the case calls this target in messages, e.g. "hidden vault@agents.example". */
  readonly label: string;
  readonly exchange: IqExchange;
  /** The address the request went to. */
  readonly to: string;
}

/**
 * The replies must be indistinguishable (#errors, interp-19): all results or all errors. Results
 * must be equal apart from the stanza id and the sender, in comparable form; errors must carry
 * the same <error/> element and all echo the request or none (the echo itself is compared only
 * between identical requests: requests that differ may be echoed as they are). Each reply must
 * come from the address asked; a reply from another address, used alike for all, is only warned
 * about, and senders that differ otherwise fail.
 */
export function expectIndistinguishable(
  replies: readonly [ComparedReply, ComparedReply, ...ComparedReply[]],
  requirement: RequirementId,
  context: Pick<CaseContext, 'warn'>,
): void {
  const [first] = replies;
  const senderOf = ({ exchange, to }: ComparedReply): string => {
    const { from } = exchange.reply;
    return from === undefined ? '' : from === to ? '(the address asked)' : from;
  };
  const bodyOf = ({ exchange }: ComparedReply): string => {
    const { element } = exchange.reply;
    return element === undefined ? exchange.reply.xml : comparableXml(element, ['id', 'from']);
  };
  const describe = (): string =>
    replies.map((reply) => `${reply.label} (to ${reply.to}):\n${reply.exchange.reply.xml}`).join('\n');
  const differenceFrom = (reply: ComparedReply): string | undefined => {
    if (senderOf(reply) !== senderOf(first)) return 'they come from different addresses';
    const kinds = [first.exchange.parsed.type, reply.exchange.parsed.type];
    if (kinds[0] !== kinds[1]) return 'one is a result and the other an error';
    if (reply.exchange.parsed.type === 'error') return errorDifference(first.exchange, reply.exchange);
    return bodyOf(reply) === bodyOf(first) ? undefined : 'the results differ';
  };
  for (const reply of replies.slice(1)) {
    const difference = differenceFrom(reply);
    if (difference === undefined) checkHeld(requirement);
    if (difference !== undefined) {
      throw new RequirementViolation(
        requirement,
        `the same reply for ${first.label} and ${reply.label}: the same result, or the same <error/> with the request echoed in both or neither (the sender may differ only as the address asked)`,
        describe(),
        `${requirement}: the replies for ${first.label} and ${reply.label} differ (${difference})`,
      );
    }
  }
  const sender = senderOf(first);
  if (sender !== '(the address asked)') {
    context.warn(
      requirement,
      `the replies come from ${sender || '(no from)'} instead of the address asked (interp-19)`,
    );
  }
}

/** The reply must be a disco#info result; returns it parsed (a malformed one violates `requirement`). */
export function expectDiscoInfo(exchange: IqExchange, requirement: RequirementId): DiscoInfo {
  const payload = expectResultPayload(exchange, requirement, NS.discoInfo, 'query');
  return expectParsed(payload, requirement, parseDiscoInfo, exchange.reply.xml);
}

/** The reply must be a disco#items result; returns it parsed (a malformed one violates `requirement`). */
export function expectDiscoItems(exchange: IqExchange, requirement: RequirementId): DiscoItems {
  const payload = expectResultPayload(exchange, requirement, NS.discoItems, 'query');
  return expectParsed(payload, requirement, parseDiscoItems, exchange.reply.xml);
}

/** disco#info must show an identity of this category and type. */
export function expectIdentity(
  info: DiscoInfo,
  requirement: RequirementId,
  category: string,
  type: string,
  replyXml: string,
): void {
  expectThat(
    replyXml,
    requirement,
    `an <identity category='${category}' type='${type}'/>`,
    info.identities.some((identity) => identity.category === category && identity.type === type),
  );
}

/** disco#info must list every one of `features`. */
export function expectFeatures(
  info: DiscoInfo,
  requirement: RequirementId,
  features: readonly string[],
  replyXml: string,
): void {
  const missing = features.filter((feature) => !info.features.includes(feature));
  expectThat(
    replyXml,
    requirement,
    missing.map((feature) => `<feature var='${feature}'/>`).join('\n'),
    missing.length === 0,
  );
}

/** disco#info must carry exactly one XEP-0128 form with this FORM_TYPE; returns it. */
export function expectExtensionForm(
  info: DiscoInfo,
  requirement: RequirementId,
  formType: string,
  replyXml: string,
): DataForm {
  const forms = extensionForms(info, formType);
  const [form] = forms;
  if (form === undefined || forms.length > 1) {
    throw new RequirementViolation(
      requirement,
      `exactly one extension form <x xmlns='jabber:x:data' type='result'/> with FORM_TYPE ${formType}`,
      replyXml,
    );
  }
  expectThat(replyXml, requirement, `the ${formType} form of type 'result'`, form.type === 'result');
  return form;
}

/** The field named `name`, if the form has it. */
export function formField(form: DataForm, name: string): FormField | undefined {
  return form.fields.find((field) => field.var === name);
}

/** The form must have the field `name` with exactly one value; returns that value. */
export function expectFormField(
  form: DataForm,
  requirement: RequirementId,
  name: string,
  replyXml: string,
): string {
  const field = formField(form, name);
  const [value] = field?.values ?? [];
  if (field === undefined || value === undefined || field.values.length !== 1) {
    throw new RequirementViolation(requirement, `the field ${name} with one <value/>`, replyXml);
  }
  checkHeld(requirement);
  return value;
}

/**
 * A form field's text: several values joined with LF, CRLF read as LF (interp-20, for
 * text-multi descriptions); undefined when the field is absent.
 */
export function formText(form: DataForm, name: string): string | undefined {
  const field = formField(form, name);
  return field?.values.join('\n').replaceAll('\r\n', '\n');
}

/**
 * An XEP-0004 boolean as the suite reads it (interp-20): 1/0 are what responders write,
 * true/false are read with `canonical` false so the case can warn; anything else is undefined.
 */
export function formBoolean(
  value: string,
): { readonly value: boolean; readonly canonical: boolean } | undefined {
  switch (value) {
    case '1':
      return { value: true, canonical: true };
    case '0':
      return { value: false, canonical: true };
    case 'true':
      return { value: true, canonical: false };
    case 'false':
      return { value: false, canonical: false };
    default:
      return undefined;
  }
}

/**
 * The reply must be an IQ error, whatever its condition (an IQ nobody handles, RFC 6120 §8.4);
 * as with expectStanzaError, a type other than the one interp-42 gives the condition is only
 * warned about. Returns the error.
 */
export function expectAnyStanzaError(
  exchange: IqExchange,
  requirement: RequirementId,
  context: Pick<CaseContext, 'warn'>,
  options: ErrorTypeOptions = {},
): StanzaError {
  if (exchange.parsed.type !== 'error') {
    throw new RequirementViolation(requirement, 'an IQ error (any condition)', exchange.reply.xml);
  }
  return expectStanzaError(exchange, requirement, DEFINED_CONDITIONS, context, options);
}

/**
 * The reply must not carry any of `planted`: markers the request hid in attacker-controlled
 * JSON, which a responder must not reflect (#errors, #json-encoding). With `maxBytes`, the reply
 * must also stay that small: a bounded diagnostic, not a copy of a large request.
 */
export function expectNotReflected(
  exchange: IqExchange,
  requirement: RequirementId,
  planted: readonly string[],
  maxBytes?: number,
): void {
  const { xml } = exchange.reply;
  const echoed = planted.filter((marker) => xml.includes(marker));
  const size = Buffer.byteLength(xml, 'utf8');
  const bounded = maxBytes === undefined || size <= maxBytes;
  if (echoed.length > 0 || !bounded) {
    throw new RequirementViolation(
      requirement,
      `a reply that does not reflect the request's JSON (none of ${planted.join(', ')})${maxBytes === undefined ? '' : ` and stays within ${String(maxBytes)} bytes`}`,
      echoed.length > 0 ? xml : `${String(size)} bytes: ${xml.slice(0, 2000)}…`,
      `${requirement}: the reply ${echoed.length > 0 ? `reflects ${echoed.join(', ')}` : `is ${String(size)} bytes long`}`,
    );
  }
  checkHeld(requirement);
}
