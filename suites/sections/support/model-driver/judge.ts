/**
 * Holds a real reply against the model's answer set (suites/model/expectation.ts): the reply is
 * matched against every alternative and gets the best verdict one of them gives it — 'pass',
 * 'warn' (a permitted answer the spec frowns on), or 'fail' when it lies outside all of them.
 * Pages go through the model's own judgePage; results are read with the protocol parsers, so a
 * reply that does not parse matches no result alternative.
 */
import type { Element } from '@xmpp/xml';
import type { IqExchange } from '../../../../harness/driver/index.ts';
import {
  parseDiscoInfo,
  parseDiscoItems,
  parseManifest,
  parseRegistration,
  parseSchema,
  parseSearchResults,
  type DataForm,
  type DiscoInfo,
  type RegistrationVersion,
  type RsmResponse,
} from '../../../../protocol/stanza/index.ts';
import {
  judgePage,
  type Alternative,
  type Expectation,
  type ModelAnswer,
  type ObservedPage,
  type RegisteredVersion,
} from '../../../model/index.ts';
import { NS_AGENT_API } from '../../../../protocol/namespaces.ts';
import { ENDPOINT_IDENTITY, ERROR_TYPES, TOOL_IDENTITY } from '../../../model/index.ts';

/** How the items of a page-shaped result are read: directory JIDs, tool nodes or search hits. */
export type PageKind = 'jids' | 'nodes' | 'search';

export interface Judgement {
  readonly verdict: 'pass' | 'warn' | 'fail';
  /** The alternative the reply matched best; absent on 'fail'. */
  readonly matched?: Alternative;
  /** Why the reply matched no alternative (one line per alternative), or what a warning is about. */
  readonly reasons: readonly string[];
  /**
   * What kind of wrong a failed reply is, so the violation names the requirement it breaks rather
   * than the first the operation touches: something shown that the requester may not see, a count
   * that is off, or the right items in the wrong order.
   */
  readonly kind?: 'disclosed' | 'count' | 'order';
}

function failureKind(expected: Expectation, exchange: IqExchange, pageKind: PageKind): Judgement['kind'] {
  if (exchange.parsed.type === 'error') return undefined;
  const pages = expected.alternatives.flatMap((alternative) =>
    alternative.answer.kind === 'page' ? [alternative.answer.page] : [],
  );
  if (pages.length === 0) return expected.unauthorized ? 'disclosed' : undefined;
  const page = observedPage(exchange.parsed.payload, pageKind);
  if (typeof page === 'string') return undefined;
  const known = new Set(pages.flatMap((candidate) => candidate.fullSet));
  if (page.items.some((item) => !known.has(item))) return 'disclosed';
  const count = page.set?.count;
  if (count !== undefined && !pages.some((candidate) => candidate.fullSet.length === count)) return 'count';
  return 'order';
}

function setOf(rsm: RsmResponse | undefined): ObservedPage['set'] {
  if (rsm === undefined) return undefined;
  return {
    ...(rsm.first === undefined ? {} : { first: rsm.first.uid }),
    ...(rsm.first?.index === undefined ? {} : { firstIndex: rsm.first.index }),
    ...(rsm.last === undefined ? {} : { last: rsm.last }),
    ...(rsm.count === undefined ? {} : { count: rsm.count }),
  };
}

function formItemJid(item: readonly { readonly var?: string; readonly values: readonly string[] }[]): string {
  return item.find((field) => field.var === 'jid')?.values[0] ?? '';
}

/** The page a result carries, or a reason it carries none. */
export function observedPage(payload: Element | undefined, kind: PageKind): ObservedPage | string {
  if (payload === undefined) return 'a result without a payload';
  try {
    if (kind === 'search') {
      const results = parseSearchResults(payload);
      const items =
        results.kind === 'legacy'
          ? results.items.map((item) => item.jid)
          : results.kind === 'form'
            ? results.form.items.map(formItemJid)
            : [];
      const set = setOf('rsm' in results ? results.rsm : undefined);
      return set === undefined ? { items } : { items, set };
    }
    const result = parseDiscoItems(payload);
    const items = result.items.map((item) => (kind === 'jids' ? item.jid : (item.node ?? '')));
    const set = setOf(result.rsm);
    return set === undefined ? { items } : { items, set };
  } catch (problem) {
    return `an unreadable result (${problem instanceof Error ? problem.message : String(problem)})`;
  }
}

function formValues(forms: readonly DataForm[]): Set<string> {
  return new Set(forms.flatMap((form) => form.fields.flatMap((field) => field.values)));
}

function infoOf(payload: Element | undefined): DiscoInfo | string {
  if (payload === undefined) return 'a result without a payload';
  try {
    return parseDiscoInfo(payload);
  } catch (problem) {
    return `an unreadable disco#info (${problem instanceof Error ? problem.message : String(problem)})`;
  }
}

function missing(
  info: DiscoInfo,
  type: string,
  values: readonly string[],
  features: readonly string[],
): string[] {
  const shown = formValues(info.forms);
  return [
    ...(info.identities.some((identity) => identity.type === type) ? [] : [`no identity of type ${type}`]),
    ...values
      .filter((value) => !shown.has(value))
      .map((value) => `no form field with ${JSON.stringify(value)}`),
    ...features
      .filter((feature) => !info.features.includes(feature))
      .map((feature) => `no feature ${feature}`),
  ];
}

/** Problems of a provisioning result: its child, and for a <registration/> the versions it lists. */
function provisionedProblems(
  answer: ModelAnswer & { kind: 'provisioned' },
  payload: Element | undefined,
): string[] {
  if (payload?.name !== answer.element || payload.attrs['xmlns'] !== NS_AGENT_API)
    return [`no <${answer.element} xmlns='${NS_AGENT_API}'/>`];
  if (answer.versions === undefined) return [];
  let listed: readonly RegistrationVersion[];
  try {
    listed = parseRegistration(payload).versions;
  } catch (problem) {
    return [`an unreadable registration (${problem instanceof Error ? problem.message : String(problem)})`];
  }
  const line = (version: RegisteredVersion): string =>
    `${version.id}${version.active ? ' (active)' : ''} ${version.hash}`;
  const expected = answer.versions.map(line).toSorted();
  const shown = listed
    .map((version) => line({ id: version.id, active: version.active, hash: version.hash.value }))
    .toSorted();
  return JSON.stringify(expected) === JSON.stringify(shown)
    ? []
    : [`versions ${JSON.stringify(shown)}, not ${JSON.stringify(expected)}`];
}

/** Problems of a result against one non-error answer; empty when it matches. */
function resultProblems(answer: ModelAnswer, payload: Element | undefined, pageKind: PageKind): string[] {
  switch (answer.kind) {
    case 'page': {
      const page = observedPage(payload, pageKind);
      if (typeof page === 'string') return [page];
      const judged = judgePage(answer.page, page);
      return judged.verdict === 'fail' ? [...judged.problems] : [];
    }
    case 'endpoint-info':
    case 'tool-info':
    case 'identity': {
      const info = infoOf(payload);
      if (typeof info === 'string') return [info];
      if (answer.kind === 'endpoint-info')
        return missing(
          info,
          ENDPOINT_IDENTITY.type,
          [answer.version, answer.manifestHash],
          ENDPOINT_IDENTITY.features,
        );
      if (answer.kind === 'tool-info')
        return missing(
          info,
          TOOL_IDENTITY.type,
          [answer.name, answer.inputSchemaHash],
          TOOL_IDENTITY.features,
        );
      return missing(info, answer.type, [], answer.features);
    }
    case 'manifest': {
      if (payload === undefined) return ['no <manifest/>'];
      try {
        const manifest = parseManifest(payload);
        return [
          ...(manifest.version === answer.version
            ? []
            : [`version ${manifest.version}, not ${answer.version}`]),
          ...(manifest.hash.value === answer.hash ? [] : [`hash ${manifest.hash.value}, not ${answer.hash}`]),
          ...(manifest.json === answer.canonical ? [] : ['JSON other than the canonical manifest bytes']),
        ];
      } catch (problem) {
        return [`an unreadable manifest (${problem instanceof Error ? problem.message : String(problem)})`];
      }
    }
    case 'schema': {
      if (payload === undefined) return ['no <schema/>'];
      try {
        const schema = parseSchema(payload);
        return [
          ...(schema.schemaHash.value === answer.schemaHash
            ? []
            : [`schema hash ${schema.schemaHash.value}`]),
          ...(schema.manifestHash.value === answer.manifestHash
            ? []
            : [`manifest hash ${schema.manifestHash.value}`]),
        ];
      } catch (problem) {
        return [`an unreadable schema (${problem instanceof Error ? problem.message : String(problem)})`];
      }
    }
    case 'provisioned':
      return provisionedProblems(answer, payload);
    default:
      return [`a result, where the model expects ${describeAnswer(answer)}`];
  }
}

/** One line a failure message can print for an alternative. */
export function describeAnswer(answer: ModelAnswer): string {
  switch (answer.kind) {
    case 'error':
      return `<${answer.condition}/>`;
    case 'page': {
      const { page } = answer;
      const run = page.anchor === 'start' ? 'first' : 'last';
      return `a page of the ${run} ${page.minItems}..${page.maxItems} of ${JSON.stringify(page.candidates)} (count ${page.fullSet.length})`;
    }
    case 'endpoint-info':
      return `endpoint disco#info of ${answer.jid} version ${answer.version} hash ${answer.manifestHash}`;
    case 'tool-info':
      return `tool disco#info of ${answer.name} (input schema hash ${answer.inputSchemaHash})`;
    case 'identity':
      return `disco#info with identity ${answer.type} and features ${answer.features.join(', ')}`;
    case 'manifest':
      return `manifest version ${answer.version} hash ${answer.hash}`;
    case 'provisioned':
      return answer.versions === undefined
        ? `<${answer.element}/>`
        : `<${answer.element}/> listing ${JSON.stringify(answer.versions.map((version) => `${version.id}${version.active ? ' (active)' : ''}`))}`;
    case 'schema':
      return `${answer.direction} schema of ${answer.tool} hash ${answer.schemaHash}`;
    default:
      return answer.kind;
  }
}

export function describeExpectation(expected: Expectation): string {
  const alternatives = expected.alternatives.map(
    (alternative) =>
      `${describeAnswer(alternative.answer)}${alternative.verdict === 'warn' ? ` (warn: ${alternative.note ?? ''})` : ''}`,
  );
  return `${expected.operation}: one of\n  - ${alternatives.length === 0 ? '(no answer is acceptable)' : alternatives.join('\n  - ')}`;
}

/** The best verdict an IQ reply gets against the expectation. */
export function judgeReply(expected: Expectation, exchange: IqExchange, pageKind: PageKind): Judgement {
  const reasons: string[] = [];
  let warned: Alternative | undefined;
  for (const alternative of expected.alternatives) {
    const { answer } = alternative;
    let problems: string[];
    if (exchange.parsed.type === 'error') {
      const { condition, type } = exchange.parsed.error;
      const types = answer.kind === 'error' ? (ERROR_TYPES[answer.condition] ?? [type]) : [];
      problems =
        answer.kind !== 'error'
          ? [`<${condition}/>, where the model allows ${describeAnswer(answer)}`]
          : answer.condition !== condition
            ? [`<${condition}/>, not <${answer.condition}/>`]
            : [];
      if (problems.length === 0 && !types.includes(type)) {
        // interp-42: the condition decides; another error type than RFC 6120's is a SHOULD finding.
        warned ??= {
          ...alternative,
          verdict: 'warn',
          note: `error type ${type}, not ${types.join(' or ')} (interp-42)`,
        };
        continue;
      }
    } else {
      problems =
        answer.kind === 'error'
          ? [`a result, not <${answer.condition}/>`]
          : resultProblems(answer, exchange.parsed.payload, pageKind);
    }
    if (problems.length === 0) {
      if (alternative.verdict === 'pass') return { verdict: 'pass', matched: alternative, reasons: [] };
      warned ??= alternative;
    } else reasons.push(...problems);
  }
  if (warned !== undefined)
    return { verdict: 'warn', matched: warned, reasons: [warned.note ?? 'permitted with a warning'] };
  const kind = failureKind(expected, exchange, pageKind);
  return kind === undefined ? { verdict: 'fail', reasons } : { verdict: 'fail', reasons, kind };
}
