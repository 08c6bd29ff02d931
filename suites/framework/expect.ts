/**
 * Assertions that speak the spec. Each names the requirement it enforces and, on failure,
 * throws a RequirementViolation carrying what was expected and the stanza that came back, so
 * the report can show both next to the transcript.
 */
import type { Element } from '@xmpp/xml';
import type { IqExchange } from '../../harness/driver/index.ts';
import {
  localNameOf,
  namespaceOf,
  serialize,
  StanzaParseError,
  type DefinedCondition,
  type StanzaErrorType,
} from '../../protocol/stanza/index.ts';
import { RequirementViolation } from './verdicts.ts';

/** Fails `requirement` unless `holds`; `expected` and `received` are shown side by side. */
export function expectThat(holds: boolean, requirement: string, expected: string, received: string): void {
  if (!holds) throw new RequirementViolation(requirement, expected, received);
}

/** The reply must be an IQ result; returns its payload (undefined for an empty result). */
export function expectResult(
  exchange: IqExchange,
  requirement: string,
  expected = 'an IQ result',
): Element | undefined {
  if (exchange.parsed.type !== 'result') {
    throw new RequirementViolation(requirement, expected, exchange.reply.xml);
  }
  return exchange.parsed.payload;
}

/** The reply must be an IQ result whose payload is `{namespace}name`; returns the payload. */
export function expectResultPayload(
  exchange: IqExchange,
  requirement: string,
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
  requirement: string,
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
}

/** The serialized <error/> child of an error reply: what two replies must share byte for byte. */
function errorBytes(exchange: IqExchange): string | undefined {
  const { element } = exchange.reply;
  if (element === undefined || exchange.parsed.type !== 'error') return undefined;
  // The stanza's own <error/> (in the stream's content namespace, inherited by the child).
  const errors = element.children.filter(
    (child): child is Element => typeof child !== 'string' && localNameOf(child) === 'error',
  );
  return errors.length === 1 && errors[0] !== undefined ? serialize(errors[0]) : undefined;
}

/**
 * Two error replies must carry byte-identical <error/> elements (e.g. a hidden and a missing
 * object: anything that differs tells the caller which one exists).
 */
export function expectSameErrorPayload(first: IqExchange, second: IqExchange, requirement: string): void {
  const a = errorBytes(first);
  const b = errorBytes(second);
  if (a === undefined || b === undefined || a !== b) {
    throw new RequirementViolation(
      requirement,
      `two error replies with identical <error/> elements; the first was:\n${first.reply.xml}`,
      second.reply.xml,
      `${requirement}: the two error replies differ`,
    );
  }
}

/**
 * Reads a payload with a protocol codec; a payload the codec rejects violates `requirement`
 * (the SUT sent something malformed where the requirement demands a specific structure).
 */
export function expectParsed<T>(
  parse: (element: Element) => T,
  payload: Element,
  requirement: string,
  replyXml: string,
): T {
  try {
    return parse(payload);
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
