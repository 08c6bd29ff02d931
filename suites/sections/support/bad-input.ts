/**
 * Bad-input generators (issue 14, item 5): JSON texts a gateway must refuse, each with the
 * conditions the spec allows for it (#json-encoding, #errors, interp-10, interp-11), and
 * XSD-guided mutants of valid request elements (xsd-model.ts) that break what the normative
 * schema requires. Both are fast-check arbitraries sampled with a seed drawn from the case's
 * random source, so a run replays from its printed seed.
 *
 * The judging side (sendBadInputs) sends each input, requires an IQ error with an allowed
 * condition (a result or silence fails), checks that the error does not carry the canary the
 * input planted (a MUST for a limit rejection, #json-encoding; a SHOULD elsewhere, #errors),
 * counts outcomes per request type for the transcript, and pings the gateway afterwards.
 */
import fc from 'fast-check';
import { xml, type Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { IqTimeout } from '../../../harness/driver/index.ts';
import { NS } from '../../../protocol/namespaces.ts';
import {
  DEFINED_CONDITIONS,
  childElementsOf,
  detachedCopyOf,
  localNameOf,
  namespaceOf,
  serialize,
  type DefinedCondition,
} from '../../../protocol/stanza/index.ts';
import { XsdValidator } from '../../../protocol/xsd/validator.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectNotReflected, expectStanzaError, expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { xsdElement, type XsdAttribute, type XsdModel } from './xsd-model.ts';

/** A diagnostic is "bounded" when the whole error reply stays this small (as json-encoding.ts). */
export const MAX_ERROR_REPLY_BYTES = 4096;

/** What one generated input must get. */
export interface BadInput {
  /** The flaw's family, for the counts (e.g. `duplicate-member`, `missing-attribute`). */
  readonly flaw: string;
  /** One line: what exactly is wrong. */
  readonly what: string;
  /** The conditions the spec allows; a result is allowed only with `mayAccept`. */
  readonly conditions: readonly DefinedCondition[];
  /** The requirement a result (or another condition) violates. */
  readonly requirement: RequirementId;
  /** Valid input a gateway may also admit (interp-10: 9007199254740993, 1e-400). */
  readonly mayAccept?: boolean;
  /** Valid input a gateway must admit (-0). */
  readonly mustAccept?: boolean;
  /**
   * The conditions are #errors' recommendations, not a requirement: another condition is a
   * warning on `requirement`; only a result or no answer fails.
   */
  readonly recommendedOnly?: boolean;
}

export interface BadJson extends BadInput {
  readonly text: string;
}

export interface BadElement extends BadInput {
  readonly element: Element;
  /** Where it goes, when not where the element it was derived from went. */
  readonly to?: string;
}

/** A seed for fast-check drawn from the case's random source. */
export function fcSeed(context: CaseContext): number {
  return context.random.int(0, 0x7fffffff);
}

/** `count` samples of `arbitrary`, reproducible from the case seed. */
export function sampleOf<T>(context: CaseContext, arbitrary: fc.Arbitrary<T>, count: number): T[] {
  return fc.sample(arbitrary, { seed: fcSeed(context), numRuns: count });
}

// ---------------------------------------------------------------------------------------------
// JSON

/** Where a generated value goes: `wrap` embeds an inner JSON text where any value is allowed. */
export interface JsonSlot {
  readonly wrap: (inner: string) => string;
  /** Violations of I-JSON: the requirement a refusal other than not-acceptable violates. */
  readonly ijsonRequirement: RequirementId;
  /** Syntax errors: the requirement a result violates. */
  readonly syntaxRequirement: RequirementId;
  /** Documented limits to probe just past (SUT config `limits`); absent: not probed. */
  readonly maxDepth?: number;
  readonly maxStringLength?: number;
  /** Include valid numbers a gateway may or must admit (only where admitting costs nothing). */
  readonly edgeNumbers?: boolean;
  /**
   * Conditions also allowed where the text cannot be read far enough to authorize the sender (a
   * self-registrant's claim is inside the manifest): forbidden before resource-constraint or a
   * syntax error is the authorization-first answer (#json-encoding, interp-42).
   */
  readonly unreadableClaim?: readonly DefinedCondition[];
}

/** Member names and short strings: printable ASCII and some non-ASCII, XML-legal, no quotes or backslashes. */
const word = fc.stringMatching(/^[a-zA-Z0-9 _.é€]{1,8}$/);

/** `\uXXXX` of every character: the same member name spelled differently. */
function escapedAll(text: string): string {
  let escaped = '';
  for (let index = 0; index < text.length; index += 1) {
    escaped += `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  return escaped;
}

const jsonString = (text: string): string => JSON.stringify(text);

/** An I-JSON violation around `canary` (RFC 7493 via RFC 8785): not-acceptable, nothing else (interp-11). */
function ijsonFlaws(canary: string): fc.Arbitrary<{ flaw: string; what: string; inner: string }> {
  const duplicate = fc
    .tuple(word, fc.boolean(), fc.integer({ min: 0, max: 2 }))
    .map(([name, escaped, place]) => {
      const second = escaped ? `"${escapedAll(name)}"` : jsonString(name);
      const members = [`${jsonString(name)}:1`, `${jsonString('canary')}:${jsonString(canary)}`];
      members.splice(place === 0 ? 1 : 2, 0, `${second}:2`);
      return {
        flaw: 'duplicate-member',
        what: `the member name ${JSON.stringify(name)} twice${escaped ? ' (once \\u-escaped)' : ''}`,
        inner: `{${members.join(',')}}`,
      };
    });
  const surrogate = fc
    .tuple(
      fc.constantFrom('\\ud800', '\\udbff', '\\udc00', '\\udfff', '\\ud83d\\u0041', '\\ude00\\ud83d'),
      fc.boolean(),
    )
    .map(([escape, inName]) => ({
      flaw: 'lone-surrogate',
      what: `a lone surrogate escape ${escape} in a ${inName ? 'member name' : 'string'}`,
      inner: inName ? `{"${canary}${escape}":0}` : `{"canary":${jsonString(canary)},"s":"x${escape}y"}`,
    }));
  const overflow = fc
    .constantFrom(
      '1e400',
      '-1e400',
      '1.7976931348623159e308',
      '2E308',
      '123456789e99999',
      `1${'0'.repeat(400)}`,
    )
    .map((number) => ({
      flaw: 'overflow',
      what: `a number beyond any double (${number.length > 30 ? `${number.slice(0, 12)}… ${String(number.length)} digits` : number})`,
      inner: `{"canary":${jsonString(canary)},"n":[${number}]}`,
    }));
  return fc.oneof(duplicate, surrogate, overflow);
}

/** Ways to break JSON syntax, applied to a whole valid text or to the inner value. */
const SYNTAX_INNER: readonly { what: string; inner: (canary: string) => string }[] = [
  { what: 'a trailing comma', inner: (c) => `[${jsonString(c)},]` },
  { what: 'single quotes', inner: (c) => `{'canary':'${c}'}` },
  { what: 'an unquoted member name', inner: (c) => `{canary:${jsonString(c)}}` },
  { what: 'NaN', inner: (c) => `[${jsonString(c)},NaN]` },
  { what: 'Infinity', inner: (c) => `[${jsonString(c)},-Infinity]` },
  { what: 'a leading zero', inner: (c) => `[${jsonString(c)},012]` },
  { what: 'a leading plus', inner: (c) => `[${jsonString(c)},+1]` },
  { what: 'a bare fraction', inner: (c) => `[${jsonString(c)},.5]` },
  { what: 'a dangling decimal point', inner: (c) => `[${jsonString(c)},1.]` },
  { what: 'a comment', inner: (c) => `[${jsonString(c)} /* note */]` },
  { what: 'an invalid escape', inner: (c) => `["${c}\\x41"]` },
  { what: 'a short \\u escape', inner: (c) => `["${c}\\u12"]` },
  { what: 'a raw tab inside a string', inner: (c) => `["${c}\ttab"]` },
  { what: 'a raw line feed inside a string', inner: (c) => `["${c}\nLF"]` },
  { what: 'a missing colon', inner: (c) => `{"canary" ${jsonString(c)}}` },
  { what: 'a missing comma', inner: (c) => `[${jsonString(c)} 1]` },
  { what: 'an unclosed string', inner: (c) => `["${c}]` },
  { what: 'undefined', inner: (c) => `[${jsonString(c)},undefined]` },
  { what: 'True instead of true', inner: (c) => `[${jsonString(c)},True]` },
];

function syntaxFlaws(slot: JsonSlot, canary: string): fc.Arbitrary<{ what: string; text: string }> {
  const inner = fc
    .constantFrom(...SYNTAX_INNER)
    .map(({ what, inner: build }) => ({ what, text: slot.wrap(build(canary)) }));
  const valid = slot.wrap(`{"canary":${jsonString(canary)}}`);
  // Any proper prefix of an object text is unfinished; the canary sits early, so most cut after it.
  const truncated = fc.integer({ min: 1, max: valid.length - 1 }).map((cut) => ({
    what: `the text cut after ${String(cut)} of ${String(valid.length)} characters`,
    text: valid.slice(0, cut),
  }));
  const trailing = fc.constantFrom(' x', ' {}', ',', ' "canary"', ']').map((tail) => ({
    what: `trailing data ${JSON.stringify(tail.trim())} after the value`,
    text: `${valid}${tail}`,
  }));
  const empty = fc.constantFrom('', '   ', '\n').map((text) => ({
    what: `no value at all (${JSON.stringify(text)})`,
    text,
  }));
  return fc.oneof(
    { arbitrary: inner, weight: 4 },
    { arbitrary: truncated, weight: 2 },
    { arbitrary: trailing, weight: 1 },
    { arbitrary: empty, weight: 1 },
  );
}

/** Nested arrays `depth` deep around the canary. */
function nested(depth: number, canary: string): string {
  return `${'['.repeat(depth - 1)}[${jsonString(canary)}]${']'.repeat(depth - 1)}`;
}

/**
 * Every bad JSON text for `slot`: I-JSON violations (not-acceptable), syntax errors (bad-request
 * or not-acceptable, interp-11), nesting and strings just past the documented limits
 * (resource-constraint), and with `edgeNumbers` the valid numbers interp-10 lets a gateway admit
 * or refuse (9007199254740993, 1e-400) or makes it admit (-0).
 */
export function badJsonFamilies(
  slot: JsonSlot,
  canary: string,
): { arbitrary: fc.Arbitrary<BadJson>; weight: number }[] {
  const ijson = ijsonFlaws(canary).map(({ flaw, what, inner }): BadJson => ({
    flaw,
    what,
    text: slot.wrap(inner),
    conditions: ['not-acceptable'],
    requirement: slot.ijsonRequirement,
  }));
  const syntax = syntaxFlaws(slot, canary).map(({ what, text }): BadJson => ({
    flaw: 'syntax',
    what,
    text,
    conditions: ['bad-request', 'not-acceptable', ...(slot.unreadableClaim ?? [])],
    requirement: slot.syntaxRequirement,
  }));
  const arbitraries: { arbitrary: fc.Arbitrary<BadJson>; weight: number }[] = [
    { arbitrary: ijson, weight: 3 },
    { arbitrary: syntax, weight: 3 },
  ];
  const { maxDepth, maxStringLength } = slot;
  if (maxDepth !== undefined) {
    // Past the limit however a gateway counts the levels the wrapper adds.
    const depth = fc.integer({ min: maxDepth + 1, max: maxDepth + 16 }).map((levels): BadJson => ({
      flaw: 'depth',
      what: `arrays nested ${String(levels)} deep (documented limit ${String(maxDepth)})`,
      text: slot.wrap(nested(levels, canary)),
      conditions: ['resource-constraint', ...(slot.unreadableClaim ?? [])],
      requirement: 'json-encoding.documented-limits',
    }));
    arbitraries.push({ arbitrary: depth, weight: 1 });
  }
  if (maxStringLength !== undefined) {
    const long = fc.integer({ min: 1, max: 64 }).map((over): BadJson => ({
      flaw: 'string-length',
      what: `a string ${String(maxStringLength + over)} characters long (documented limit ${String(maxStringLength)})`,
      text: slot.wrap(jsonString(`${canary}${'x'.repeat(maxStringLength + over - canary.length)}`)),
      conditions: ['resource-constraint', ...(slot.unreadableClaim ?? [])],
      requirement: 'json-encoding.documented-limits',
    }));
    arbitraries.push({ arbitrary: long, weight: 1 });
  }
  if (slot.edgeNumbers === true) {
    const edge = fc
      .constantFrom(
        { number: '9007199254740993', must: false },
        { number: '1e-400', must: false },
        { number: '-0', must: true },
        { number: '-0.0e5', must: true },
      )
      .map(({ number, must }): BadJson => ({
        flaw: 'edge-number',
        what: `the number ${number} (${must ? 'valid: must be admitted' : 'admitted or refused, interp-10'})`,
        text: slot.wrap(`{"canary":${jsonString(canary)},"n":${number}}`),
        conditions: ['not-acceptable'],
        requirement: slot.ijsonRequirement,
        ...(must ? { mustAccept: true } : { mayAccept: true }),
      }));
    arbitraries.push({ arbitrary: edge, weight: 1 });
  }
  return arbitraries;
}

/** Every family of badJsonFamilies, weighted. */
export function badJsonArbitrary(slot: JsonSlot, canary: string): fc.Arbitrary<BadJson> {
  return fc.oneof(...badJsonFamilies(slot, canary));
}

/**
 * `count` bad texts for `slot`: one of each family first (so even the smallest budget meets every
 * kind of flaw), then draws from all of them.
 */
export function sampleBadJson(
  context: CaseContext,
  slot: JsonSlot,
  canary: string,
  count: number,
): BadJson[] {
  const families = badJsonFamilies(slot, canary);
  const firsts = families.slice(0, count).map(({ arbitrary }) => sampleOf(context, arbitrary, 1)[0]);
  const rest =
    count > families.length ? sampleOf(context, fc.oneof(...families), count - families.length) : [];
  return context.random.shuffle([...firsts.filter((input) => input !== undefined), ...rest]);
}

// ---------------------------------------------------------------------------------------------
// XSD-guided element mutants

/** What a mutant is judged against, beside the XSD. */
export interface MutantPolicy {
  /** The conditions a malformed request of this type may get. */
  readonly conditions: readonly DefinedCondition[];
  readonly requirement: RequirementId;
  readonly recommendedOnly?: boolean;
}

const IDENTIFIER_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-';

/** Values outside a simple type; each a fast-check arbitrary, so the runs vary with the seed. */
function invalidValues(model: XsdModel, type: string): fc.Arbitrary<string> | undefined {
  switch (type) {
    case 'xs:nonNegativeInteger':
      return fc.oneof(
        fc.integer({ min: -1_000_000, max: -1 }).map(String),
        fc.constantFrom('x', '1.5', '', '1e3', '0x10', 'one', '- 1'),
      );
    case 'xs:dateTime':
      return fc.constantFrom(
        '2026-13-01T00:00:00Z',
        '2026-07-27 19:15:00Z',
        'tomorrow',
        '',
        '2026-02-30T25:61:00Z',
        '20260727T191500Z',
      );
    case 'xs:boolean':
      return fc.constantFrom('yes', 'TRUE', '2', '');
    case 'xs:string':
      return undefined;
    default:
      break;
  }
  const simple = model.simpleTypes.get(type);
  if (simple === undefined) return undefined;
  if (simple.enumeration !== undefined) {
    const allowed = simple.enumeration;
    return fc.oneof(
      fc.constantFrom(...allowed).map((value) => value.toUpperCase()),
      fc.constantFrom(...allowed).map((value) => ` ${value}`),
      fc.stringMatching(/^[a-z_]{1,10}$/).filter((value) => !allowed.includes(value)),
    );
  }
  if (simple.pattern !== undefined) {
    // The two grammars the schemas use: [A-Za-z0-9._~-]{min,max}.
    const bounds = /\{(\d+),(\d+)\}$/.exec(simple.pattern);
    const min = Number(bounds?.[1] ?? 1);
    const max = Number(bounds?.[2] ?? 64);
    const valid = (length: number): fc.Arbitrary<string> =>
      fc
        .array(
          fc.integer({ min: 0, max: IDENTIFIER_CHARS.length - 1 }).map((at) => IDENTIFIER_CHARS.charAt(at)),
          { minLength: length, maxLength: length },
        )
        .map((chars) => chars.join(''));
    const arbitraries = [
      fc.integer({ min: max + 1, max: max + 40 }).chain(valid),
      fc
        .tuple(
          fc.integer({ min: Math.max(min, 1), max: Math.min(max, 40) }).chain(valid),
          fc.constantFrom(' ', '/', 'é', '+', '@', '%', '#', ':', '*', '\u00a0'),
        )
        .map(([text, bad]) => {
          const at = Math.floor(text.length / 2);
          return `${text.slice(0, at)}${bad}${text.slice(at + 1)}`;
        }),
    ];
    if (min > 1) arbitraries.push(fc.integer({ min: 1, max: min - 1 }).chain(valid));
    arbitraries.push(fc.constant(''));
    return fc.oneof(...arbitraries);
  }
  if (simple.minLength !== undefined && simple.minLength > 0) return fc.constant('');
  return undefined;
}

/** JIDs no preparation accepts (RFC 7622): XSD-valid (xs:string), protocol-invalid. */
const INVALID_JIDS = fc.constantFrom(
  '',
  '@agents.example',
  'a@b@agents.example',
  'agentconf@',
  `${'x'.repeat(1100)}@agents.example`,
  'agent conf@agents.example',
  'agentconf@agents..example',
  '/resource',
);

/** Where a mutant changed the element: an attribute of it, or of one of its children. */
interface Site {
  readonly path: readonly number[];
  readonly attribute: XsdAttribute;
  readonly model: XsdModel;
  readonly element: string;
}

function childAt(root: Element, path: readonly number[]): Element {
  let element = root;
  for (const index of path) {
    const next = childElementsOf(element)[index];
    if (next === undefined) throw new Error('mutant path out of range');
    element = next;
  }
  return element;
}

function mutate(base: Element, path: readonly number[], change: (element: Element) => void): Element {
  const copy = detachedCopyOf(base);
  change(childAt(copy, path));
  return copy;
}

/**
 * Mutants of `base` (a valid request element of urn:xmpp:agent-api:0 or agent-task:0) guided by
 * its XSD declaration: a required attribute left out, an attribute value outside its type, a
 * fixed value changed, a JID attribute no preparation accepts, a required child left out, a
 * typed optional child with an invalid value.
 */
export function elementMutants(base: Element, policy: MutantPolicy): fc.Arbitrary<BadElement> {
  const namespace = namespaceOf(base) ?? '';
  const { model, element: declaration } = xsdElement(namespace, localNameOf(base));
  const arbitraries: fc.Arbitrary<BadElement>[] = [];
  const judged = (
    flaw: string,
    what: string,
    element: Element,
    conditions = policy.conditions,
  ): BadElement => ({
    flaw,
    what,
    element,
    conditions,
    requirement: policy.requirement,
    ...(policy.recommendedOnly === true ? { recommendedOnly: true } : {}),
  });
  const sites: Site[] = declaration.attributes.map((attribute) => ({
    path: [],
    attribute,
    model,
    element: declaration.name,
  }));
  for (const child of declaration.children) {
    const present = childElementsOf(base).findIndex((node) => localNameOf(node) === child.name);
    if (child.element === undefined || present === -1) continue;
    for (const attribute of child.element.attributes)
      sites.push({ path: [present], attribute, model, element: child.element.name });
  }
  for (const site of sites) {
    const { attribute, path } = site;
    const label = `<${site.element}/> ${attribute.name}`;
    if (attribute.required) {
      arbitraries.push(
        fc.constant(
          judged(
            'missing-attribute',
            `${label} left out`,
            mutate(base, path, (element) => {
              element.attrs = Object.fromEntries(
                Object.entries(element.attrs).filter(([name]) => name !== attribute.name),
              );
            }),
          ),
        ),
      );
    }
    if (attribute.fixed !== undefined) {
      arbitraries.push(
        fc.constantFrom('text/plain', '', 'application/xml', 'application/schema+json').map((value) =>
          judged(
            'fixed-attribute',
            `${label}='${value}' (fixed '${String(attribute.fixed)}')`,
            mutate(base, path, (element) => {
              element.attrs[attribute.name] = value;
            }),
          ),
        ),
      );
      continue;
    }
    const invalid = invalidValues(model, attribute.type);
    if (invalid !== undefined) {
      arbitraries.push(
        invalid.map((value) =>
          judged(
            'invalid-attribute',
            `${label}=${JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${String(value.length)})` : value)} (not ${attribute.type})`,
            mutate(base, path, (element) => {
              element.attrs[attribute.name] = value;
            }),
          ),
        ),
      );
    } else if (attribute.name === 'jid') {
      arbitraries.push(
        INVALID_JIDS.map((value) =>
          judged(
            'invalid-jid',
            `${label}=${JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${String(value.length)})` : value)} (no JID)`,
            mutate(base, path, (element) => {
              element.attrs[attribute.name] = value;
            }),
            [...new Set<DefinedCondition>([...policy.conditions, 'jid-malformed', 'item-not-found'])],
          ),
        ),
      );
    }
  }
  declaration.children.forEach((child) => {
    const name = child.name ?? `a ${String(child.anyNamespace)} element`;
    const present = childElementsOf(base)
      .map((node, index) => ({ node, index }))
      .filter(({ node }) =>
        child.name === undefined
          ? namespaceOf(node) === child.anyNamespace
          : localNameOf(node) === child.name,
      );
    const first = present[0];
    if (child.minOccurs >= 1 && first !== undefined) {
      arbitraries.push(
        fc.constant(
          judged(
            'missing-child',
            `<${declaration.name}/> without <${name}/>`,
            mutate(base, [], (element) => {
              element.children = element.children.filter(
                (node) => node !== childElementsOf(element)[first.index],
              );
            }),
          ),
        ),
      );
    }
    const textType = child.element?.textType;
    const invalidText = textType === undefined ? undefined : invalidValues(model, textType);
    if (child.name !== undefined && invalidText !== undefined) {
      arbitraries.push(
        invalidText.map((value) =>
          judged(
            'invalid-text',
            `<${child.name ?? ''}>${value}</${child.name ?? ''}> (not ${String(textType)})`,
            mutate(base, [], (element) => {
              element.children = element.children.filter(
                (node) => typeof node === 'string' || localNameOf(node) !== child.name,
              );
              element.children.push(xml(child.name ?? '', {}, value));
            }),
          ),
        ),
      );
    }
  });
  if (arbitraries.length === 0) throw new Error(`nothing of <${declaration.name}/> can be broken`);
  return fc.oneof(...arbitraries);
}

let validator: XsdValidator | undefined;

/**
 * The mutants the normative XSD rejects, and how many it accepted (a mutant the schema allows is
 * never sent as malformed; only the invalid-jid ones are XSD-valid by design and kept).
 */
export async function xsdInvalidOnly(
  mutants: readonly BadElement[],
): Promise<{ kept: BadElement[]; dropped: number }> {
  validator ??= new XsdValidator();
  const results = await validator.validateAll(mutants.map((mutant) => serialize(mutant.element)));
  const kept = mutants.filter(
    (mutant, index) => mutant.flaw === 'invalid-jid' || results[index]?.valid === false,
  );
  return { kept, dropped: mutants.length - kept.length };
}

// ---------------------------------------------------------------------------------------------
// Judging

/** Outcome counts per request type, for the transcript note. */
export class BadInputCounts {
  readonly #counts = new Map<string, Map<string, number>>();

  add(requestType: string, outcome: string): void {
    const perType = this.#counts.get(requestType) ?? new Map<string, number>();
    perType.set(outcome, (perType.get(outcome) ?? 0) + 1);
    this.#counts.set(requestType, perType);
  }

  get total(): number {
    let total = 0;
    for (const perType of this.#counts.values()) for (const count of perType.values()) total += count;
    return total;
  }

  toString(): string {
    return [...this.#counts]
      .map(([type, perType]) => {
        const sum = [...perType.values()].reduce((a, b) => a + b, 0);
        const parts = [...perType].map(([outcome, count]) => `${outcome} ${String(count)}`).join(', ');
        return `${type}: ${String(sum)} (${parts})`;
      })
      .join('; ');
  }
}

/** Sends one bad input; a reply that never comes is a violation of `requirement`, not a harness error. */
export async function exchangeOrSilence(
  send: () => Promise<IqExchange>,
  requirement: RequirementId,
  what: string,
): Promise<IqExchange> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof IqTimeout) {
      throw new RequirementViolation(
        requirement,
        `an answer within the reply timeout to a request with ${what}`,
        'no answer',
        `${requirement}: no answer to a request with ${what}`,
      );
    }
    throw error;
  }
}

/**
 * Judges the reply to one bad input: an error with an allowed condition (a result only where the
 * input may be admitted), and no reflection of `canary` — a violation for resource-constraint
 * (#json-encoding, MUST NOT reflect), a warning elsewhere (#errors, SHOULD omit).
 */
export function judgeBadInput(
  context: CaseContext,
  exchange: IqExchange,
  input: BadInput,
  canary: string | undefined,
  counts: BadInputCounts,
  requestType: string,
): void {
  const where = `${requestType} with ${input.what}`;
  if (exchange.parsed.type === 'result') {
    counts.add(requestType, 'result');
    expectThat(
      exchange.reply.xml,
      input.requirement,
      `${where}: ${input.conditions.map((condition) => `<${condition}/>`).join(' or ')}`,
      input.mayAccept === true || input.mustAccept === true,
    );
    return;
  }
  if (input.mustAccept === true) {
    throw new RequirementViolation(input.requirement, `${where}: admitted (it is valid)`, exchange.reply.xml);
  }
  const condition = exchange.parsed.error.condition;
  counts.add(requestType, condition);
  if (!input.conditions.includes(condition) && input.recommendedOnly === true) {
    // #errors' table recommends; an IQ error of another condition still refuses the request.
    expectStanzaError(exchange, input.requirement, condition, context);
    context.warn(
      input.requirement,
      `${where} got <${condition}/>, not what #errors recommends (${input.conditions.join(', ')})`,
    );
  } else {
    expectStanzaError(exchange, input.requirement, input.conditions, context);
  }
  if (canary === undefined) return;
  if (condition === 'resource-constraint') {
    expectNotReflected(exchange, 'json-encoding.no-reflection', [canary], MAX_ERROR_REPLY_BYTES);
  } else if (exchange.reply.xml.includes(canary)) {
    context.warn('errors.no-payload-echo', `the error for ${where} reflects the rejected input`);
  }
}

/** The gateway must still answer an XEP-0199 ping (and so still be there) after the bad inputs. */
export async function expectStillAnswers(
  caller: Caller,
  gateway: string,
  requirement: RequirementId,
  after: string,
): Promise<void> {
  const exchange = await exchangeOrSilence(
    () => caller.exchangeIq(gateway, 'get', xml('ping', { xmlns: NS.ping })),
    requirement,
    `a ping after ${after}`,
  );
  expectThat(
    exchange.reply.xml,
    requirement,
    `an empty result to a ping after ${after} (XEP-0199): the gateway still answers`,
    exchange.parsed.type === 'result',
  );
}

/** Every defined condition, for a request the spec only requires to be refused. */
export const ANY_ERROR: readonly DefinedCondition[] = DEFINED_CONDITIONS;

/** Sends each input and judges its reply; returns the exchanges of those admitted. */
export async function sendAll<T extends BadJson | BadElement>(
  context: CaseContext,
  inputs: readonly T[],
  requestType: string,
  counts: BadInputCounts,
  canary: string | undefined,
  send: (input: T) => Promise<IqExchange>,
): Promise<{ input: T; exchange: IqExchange }[]> {
  const admitted: { input: T; exchange: IqExchange }[] = [];
  for (const input of inputs) {
    const exchange = await exchangeOrSilence(() => send(input), input.requirement, input.what);
    judgeBadInput(context, exchange, input, canary, counts, requestType);
    if (exchange.parsed.type === 'result') admitted.push({ input, exchange });
  }
  return admitted;
}

/** The counts to the transcript, and their total as the case's iteration count (conformance.json). */
export function note(caller: Caller, context: CaseContext, counts: BadInputCounts, extra = ''): void {
  context.budget.ran(counts.total);
  caller.transcript.note(
    `bad-input: ${String(counts.total)} inputs (seed ${String(context.random.seed)}): ${counts.toString()}${extra}`,
  );
}
