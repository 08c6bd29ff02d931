/**
 * A RunResult made by hand for the report tests: one case of every kind a report must tell
 * apart (passed with a SHOULD warning, failed with a violation and a transcript, flaky,
 * inapplicable, untested) over two claimed profiles and one unclaimed, with fixed clocks so
 * every report renders the same bytes each time. Verdicts come from the runner's own
 * profileVerdicts, so the reports are tested against the numbers a real run would carry.
 */
import { Transcript } from '../../../harness/driver/index.ts';
import { profileVerdicts } from '../../profile-verdicts.ts';
import type { RunResult } from '../../run-result.ts';
import type { ProfileId } from '../../../protocol/profiles.ts';
import type { ConformanceCase } from '../../../suites/framework/case.ts';
import type { AttemptReport, CaseResult, Finding } from '../../../suites/framework/run-case.ts';

export const SYNTHETIC_RUN_SEED = 424242;
export const SYNTHETIC_STARTED_AT = '2026-11-29T10:00:00.000Z';
const STARTED_AT_MS = Date.parse(SYNTHETIC_STARTED_AT);

export const CASE_IDS = {
  passed: 'gateway-info.identity-local',
  failed: 'gateway-info.claimed-profiles-advertised',
  flaky: 'list-agents.rsm-paging-flaky',
  inapplicable: 'search.legacy-nick-field',
  untested: 'messaging.chat-not-task',
} as const;

/** What the failed case's violation says it received; carries XML and characters XML must escape. */
export const FAILED_RECEIVED =
  "<iq type='result' from='agents.example'><query xmlns='http://jabber.org/protocol/disco#info'><feature var='urn:xmpp:agent-directory:0'/></query></iq>";
export const FAILED_EXPECTED = "<feature var='jabber:iq:search'/> (profile jabber-search) & nothing else missing";

function testCase(
  id: string,
  fields: Pick<ConformanceCase, 'requirements' | 'profiles' | 'level' | 'statement'> &
    Partial<Pick<ConformanceCase, 'features' | 'interpretations'>>,
): ConformanceCase {
  const section = id.slice(0, id.indexOf('.'));
  // Never called: the results are already decided.
  const run = (): Promise<void> => Promise.reject(new Error('synthetic cases do not run'));
  return { id, section, ...fields, run };
}

/** A transcript with a deterministic clock: each entry 1.5 ms after the previous one. */
function transcript(title: string, offsetMs: number, build: (t: Transcript) => void): Transcript {
  let tick = 0;
  const t = new Transcript(title, { now: () => (tick += 1.5), wallClock: () => STARTED_AT_MS + offsetMs });
  build(t);
  return t;
}

function discoExchange(t: Transcript, reply: string): void {
  const jid = 'bob@server.example/agentconf-1';
  t.record({ kind: 'status', jid, text: 'online' });
  t.record({
    kind: 'stanza',
    direction: 'sent',
    jid,
    xml: "<iq id='iq-1' type='get' to='agents.example'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>",
  });
  t.record({ kind: 'stanza', direction: 'received', jid, xml: reply });
}

function attempt(
  t: Transcript,
  outcome: AttemptReport['outcome'],
  durationMs: number,
  extra: Partial<Pick<AttemptReport, 'violation' | 'reason'>> & { warnings?: Finding[] } = {},
): AttemptReport {
  if (extra.reason !== undefined) t.note(`verdict: ${outcome}: ${extra.reason}`);
  return {
    outcome,
    durationMs,
    ...(extra.violation === undefined ? {} : { violation: extra.violation }),
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    warnings: extra.warnings ?? [],
    transcript: t.toJSON(),
    transcriptText: t.toText(),
  };
}

function syntheticCases(allPass: boolean): CaseResult[] {
  const passedWarning: Finding = {
    requirement: 'list-agents.item-name',
    message: 'the directory item for weather@agents.example has no name attribute',
  };
  const passed: CaseResult = {
    case: testCase(CASE_IDS.passed, {
      requirements: ['gateway-info.identity'],
      profiles: ['core-directory', 'jabber-search'],
      level: 'MUST',
      statement: 'The gateway identifies itself as automation/agent-gateway to a caller on its own server.',
    }),
    outcome: 'passed',
    seed: 1001,
    flaky: false,
    attempts: [
      attempt(
        transcript(CASE_IDS.passed, 0, (t) => {
          discoExchange(
            t,
            "<iq type='result' from='agents.example' id='iq-1'><query xmlns='http://jabber.org/protocol/disco#info'><identity category='automation' type='agent-gateway'/></query></iq>",
          );
          t.note(`warning: ${passedWarning.requirement}: ${passedWarning.message}`);
        }),
        'passed',
        12.5,
        { warnings: [passedWarning] },
      ),
    ],
  };
  const violation = {
    requirement: 'gateway-info.features',
    expected: FAILED_EXPECTED,
    received: FAILED_RECEIVED,
    message: 'gateway-info.features: a claimed profile has no feature in disco#info',
  };
  const failingTranscript = (offset: number) =>
    transcript(CASE_IDS.failed, offset, (t) => {
      discoExchange(t, FAILED_RECEIVED);
      // A raw control character on the wire must survive into XML reports as something visible.
      t.record({ kind: 'raw', direction: 'sent', jid: 'bob@server.example/agentconf-1', xml: 'junk\u0001<' });
    });
  const failed: CaseResult = allPass
    ? {
        case: testCase(CASE_IDS.failed, {
          requirements: ['gateway-info.features'],
          profiles: ['core-directory'],
          level: 'MUST',
          statement: 'Every claimed profile is backed by its feature in the gateway’s disco#info.',
        }),
        outcome: 'passed',
        seed: 1002,
        flaky: false,
        attempts: [attempt(failingTranscript(20), 'passed', 8)],
      }
    : {
        case: testCase(CASE_IDS.failed, {
          requirements: ['gateway-info.features', 'schema.base-structures-valid'],
          profiles: ['core-directory'],
          level: 'MUST',
          statement: 'Every claimed profile is backed by its feature in the gateway’s disco#info.',
          interpretations: ['interp-01'],
        }),
        outcome: 'failed',
        seed: 1002,
        flaky: false,
        reason: violation.message,
        attempts: [
          attempt(failingTranscript(20), 'failed', 9, { violation, reason: violation.message }),
          attempt(failingTranscript(40), 'failed', 7.25, { violation, reason: violation.message }),
        ],
      };
  const flakyReason = 'IqTimeout: no reply to iq-2 within 10000 ms';
  const flaky: CaseResult = {
    case: testCase(CASE_IDS.flaky, {
      requirements: ['list-agents.rsm-paging'],
      profiles: ['core-directory'],
      level: 'MUST',
      statement: 'The directory pages its items with RSM.',
    }),
    outcome: allPass ? 'passed' : 'cantTell',
    seed: 1003,
    flaky: !allPass,
    ...(allPass ? {} : { reason: `flaky: failed, then passed when re-run alone (first attempt: ${flakyReason})` }),
    attempts: allPass
      ? [attempt(transcript(CASE_IDS.flaky, 60, (t) => t.note('paged 3 items')), 'passed', 30)]
      : [
          attempt(
            transcript(CASE_IDS.flaky, 60, (t) => t.note('no reply')),
            'failed',
            10_000,
            { reason: flakyReason },
          ),
          attempt(
            transcript(CASE_IDS.flaky, 10_080, (t) => t.note('paged 3 items')),
            'passed',
            30,
          ),
        ],
  };
  const inapplicable: CaseResult = {
    case: testCase(CASE_IDS.inapplicable, {
      requirements: ['search.legacy-nick'],
      profiles: ['jabber-search'],
      level: 'MUST',
      statement: 'The search form accepts the legacy nick field.',
      features: ['jabber:iq:search#legacy'],
    }),
    outcome: 'inapplicable',
    seed: 1004,
    flaky: false,
    reason: 'the SUT does not advertise jabber:iq:search#legacy',
    attempts: [],
  };
  const untested: CaseResult = {
    case: testCase(CASE_IDS.untested, {
      requirements: ['messaging.chat-not-task'],
      profiles: ['human-messaging'],
      level: 'MUST',
      statement: 'A chat message to an endpoint never starts a task.',
    }),
    outcome: 'untested',
    seed: 1005,
    flaky: false,
    reason: 'the SUT claims none of: human-messaging',
    attempts: [],
  };
  return [passed, failed, flaky, inapplicable, untested];
}

export interface SyntheticRunOptions {
  /** Every case that ran passes (for a second row in the interop matrix). */
  readonly allPass?: boolean;
  readonly subjectName?: string;
  readonly runId?: string;
}

export function syntheticRunResult(options: SyntheticRunOptions = {}): RunResult {
  const cases = syntheticCases(options.allPass === true);
  const claimed: ProfileId[] = ['core-directory', 'jabber-search'];
  const profiles = profileVerdicts(cases, { claimed: new Set(claimed), strict: false });
  return {
    runId: options.runId ?? '2026-11-29T10-00-00-000Z-synth1',
    startedAt: SYNTHETIC_STARTED_AT,
    durationMs: 12_345.6,
    setupMs: 9_000,
    seed: SYNTHETIC_RUN_SEED,
    strict: false,
    suiteVersion: '0.1.0',
    specRevision: '0.0.5',
    provider: 'native',
    subject: {
      name: options.subjectName ?? 'Example Gateway <beta> & co',
      version: '2.1.0',
      homepage: 'https://gateway.example/',
      gatewayJid: 'agents.example',
      profiles: claimed,
      features: ['http://jabber.org/protocol/disco#info', 'urn:xmpp:agent-directory:0'],
    },
    cases,
    profiles,
    staleBaseline: [],
    unknownBaseline: [],
    passed: profiles.every((profile) => profile.verdict !== 'failed'),
  };
}
