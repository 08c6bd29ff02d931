/**
 * earl.jsonld: the run as W3C EARL 1.0 assertions, the format W3C test suites collect
 * implementation reports in. One earl:Assertion per case: assertedBy the suite and about the
 * SUT (both DOAP projects), the case as an earl:TestCase linked to the requirements it checks
 * and to the spec anchor, and an earl:TestResult whose outcome is the case outcome itself (our
 * outcomes are EARL's, suites/framework/outcome.ts). The outcome is what happened, whatever
 * the baseline says; earl:info adds when the baseline expects the failure or is stale about it.
 *
 * Caller cases (docs/caller.md) are asserted the same way about the caller under test: its own
 * subject node when the run also judged a gateway, the SUT's node when it judged only the caller.
 * earl:info names the assessments they count toward, never called spec profiles.
 *
 * The JSON-LD context is inline, not a URL: a report must expand the same way offline, years
 * later, without anyone hosting a context document.
 */
import { ASSESSMENT_LABEL } from '../../suites/registry/assessments.ts';
import type { RunResult } from '../run-result.ts';
import {
  caseWarnings,
  failureDetails,
  isCallerCase,
  lastAttempt,
  outcomeLabel,
  type ReportedCase,
} from './case-story.ts';
import type { ReportContext } from './report-context.ts';
import type { ReportFile } from './report-file.ts';
import { caseIri, requirementIri, specAnchorUrl } from './spec-links.ts';
import { excusedBy, staleBaselineMessage } from './verdict-words.ts';

export const EARL = 'http://www.w3.org/ns/earl#';
export const DCT = 'http://purl.org/dc/terms/';
export const DOAP = 'http://usefulinc.com/ns/doap#';

export const EARL_CONTEXT = {
  earl: EARL,
  dct: DCT,
  doap: DOAP,
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  'earl:assertedBy': { '@type': '@id' },
  'earl:subject': { '@type': '@id' },
  'earl:test': { '@type': '@id' },
  'earl:outcome': { '@type': '@id' },
  'earl:mode': { '@type': '@id' },
  'dct:date': { '@type': 'xsd:dateTime' },
  'dct:source': { '@type': '@id' },
  'dct:isPartOf': { '@type': '@id', '@container': '@set' },
  'doap:homepage': { '@type': '@id' },
} as const;

type Node = Record<string, unknown>;

const SUITE_NODE = '_:agentconf';
const SUBJECT_NODE = '_:subject';
const CALLER_NODE = '_:caller-under-test';

function project(id: string, types: string[], name: string, version?: string, homepage?: string): Node {
  return {
    '@id': id,
    '@type': [...types, 'doap:Project'],
    'doap:name': name,
    ...(version === undefined
      ? {}
      : { 'doap:release': { '@type': 'doap:Version', 'doap:revision': version } }),
    ...(homepage === undefined ? {} : { 'doap:homepage': homepage }),
  };
}

function resultDescription(result: ReportedCase): string {
  const details = failureDetails(result);
  if (result.outcome === 'passed') return 'passed';
  if (result.outcome === 'inapplicable' || result.outcome === 'untested')
    return result.reason ?? result.outcome;
  return [`${outcomeLabel(result)}: ${result.reason ?? ''}`.trim(), ...details].join('\n');
}

function assertion(result: ReportedCase, run: RunResult, subjectId: string, suiteId: string): Node {
  const notes = caseWarnings(result).map((finding) => `warning: ${finding.requirement}: ${finding.message}`);
  if (isCallerCase(result)) {
    notes.push(`assessments (${ASSESSMENT_LABEL}): ${result.case.assessments.join(', ')}`);
  }
  const baseline = excusedBy(run, result);
  if (baseline !== undefined) notes.push(`baseline: ${baseline} (an expected failure)`);
  if (run.staleBaseline.includes(result.case.id)) notes.push(staleBaselineMessage(run, result.case.id));
  return {
    '@type': 'earl:Assertion',
    'earl:assertedBy': suiteId,
    'earl:subject': subjectId,
    'earl:test': caseIri(result.case.id),
    'earl:mode': 'earl:automatic',
    'earl:result': {
      '@type': 'earl:TestResult',
      'earl:outcome': `earl:${result.outcome}`,
      'dct:description': resultDescription(result),
      'dct:date': lastAttempt(result)?.transcript.startedAt ?? run.startedAt,
      'earl:info': [
        `case seed ${String(result.seed)}; replay: agentconf run --seed ${String(run.seed)} --grep ${result.case.id}`,
        ...notes,
      ].join('\n'),
    },
  };
}

/** The SUT node and, when the run judged a caller beside a gateway, the caller's own node. */
function subjects(result: RunResult): { nodes: Node[]; gatewayId: string; callerId: string } {
  const { subject, caller } = result;
  const gatewayId = subject.homepage ?? SUBJECT_NODE;
  const sut = project(gatewayId, ['earl:TestSubject'], subject.name, subject.version, subject.homepage);
  const gatewayNode = { ...sut, 'doap:description': `XMPP Agent Gateway at ${subject.gatewayJid}` };
  if (caller === undefined) return { nodes: [gatewayNode], gatewayId, callerId: gatewayId };
  const callerDescription = `Caller under test (${caller.kind}), judged against the suite's fake target`;
  // A SUT file with only a caller: the SUT is the caller.
  if (subject.gatewayJid === '') {
    return { nodes: [{ ...sut, 'doap:description': callerDescription }], gatewayId, callerId: gatewayId };
  }
  const callerNode = project(CALLER_NODE, ['earl:TestSubject'], caller.name);
  return {
    nodes: [gatewayNode, { ...callerNode, 'doap:description': callerDescription }],
    gatewayId,
    callerId: CALLER_NODE,
  };
}

export function earlDocument(result: RunResult, context: ReportContext): Node {
  const suiteId = context.suite.homepage ?? SUITE_NODE;
  const { nodes: subjectNodes, gatewayId, callerId } = subjects(result);
  const cases: readonly ReportedCase[] = [...result.cases, ...(result.callerCases ?? [])];
  const requirements = new Map<string, Node>();
  const tests: Node[] = [];
  for (const caseResult of cases) {
    for (const id of caseResult.case.requirements) {
      if (requirements.has(id)) continue;
      const entry = context.requirement(id);
      requirements.set(id, {
        '@id': requirementIri(id),
        '@type': 'earl:TestRequirement',
        'dct:title': id,
        ...(entry === undefined ? {} : { 'dct:description': `${entry.level}: ${entry.summary}` }),
        'dct:source': specAnchorUrl(entry?.anchor ?? caseResult.case.section),
      });
    }
    tests.push({
      '@id': caseIri(caseResult.case.id),
      '@type': 'earl:TestCase',
      'dct:title': caseResult.case.id,
      'dct:description': caseResult.case.statement,
      'dct:isPartOf': caseResult.case.requirements.map(requirementIri),
      'dct:source': specAnchorUrl(caseResult.case.section),
    });
  }
  return {
    '@context': EARL_CONTEXT,
    '@graph': [
      {
        ...project(
          suiteId,
          ['earl:Assertor', 'earl:Software'],
          context.suite.name,
          context.suite.version,
          context.suite.homepage,
        ),
        'doap:description': `Conformance suite for the ${result.specRevision} revision of the XMPP Agent Gateway ProtoXEP.`,
      },
      ...subjectNodes,
      ...requirements.values(),
      ...tests,
      ...cases.map((caseResult) =>
        assertion(caseResult, result, isCallerCase(caseResult) ? callerId : gatewayId, suiteId),
      ),
    ],
  };
}

export function earlReport(result: RunResult, context: ReportContext): ReportFile {
  return { path: 'earl.jsonld', content: `${JSON.stringify(earlDocument(result, context), null, 2)}\n` };
}
