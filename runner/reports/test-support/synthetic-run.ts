/**
 * A RunResult made by hand for the report tests: one case of every kind a report must tell
 * apart (passed with a SHOULD warning, failed with a violation and a transcript, flaky,
 * inapplicable, untested) over two claimed profiles and one unclaimed, with fixed clocks so
 * every report renders the same bytes each time. Variants add what the verdict model adds: a
 * partial (--grep) run, claimed profiles that are INCOMPLETE, NOT ASSESSED or failed by a
 * preflight finding, a fixtures mode, a baseline with an excused failure and a stale entry.
 * Verdicts come from the runner's own profileVerdicts, so the reports are tested against the
 * numbers a real run would carry.
 */
import { Transcript } from '../../../harness/driver/index.ts';
import { profileVerdicts, staleBaselineEntries } from '../../profile-verdicts.ts';
import type { RunResult } from '../../run-result.ts';
import type { FixtureProvisioning } from '../../../harness/sut/sut-config.ts';
import type { ProfileId } from '../../../protocol/profiles.ts';
import type { PreflightFinding } from '../../../suites/framework/preflight.ts';
import type { RequirementId } from '../../../suites/registry/requirement-ids.ts';
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

/** The cases the `gaps` variant adds, each leaving a claimed profile short of a pass. */
export const GAP_CASE_IDS = {
  /** Core Directory, MUST, cantTell: the fixture world is missing (fixtures "manual"). */
  missingFixture: 'list-agents.hidden-endpoint-absent',
  /** Tool Discovery's only MUST case, inapplicable: the profile is NOT ASSESSED. */
  notAssessed: 'tool-info.progress-declared',
  /** Self Registration, blocked by a 'missing' preflight finding: the profile FAILs. */
  blockedMissing: 'registration-flow.self-register-own-jid',
  /** Administrative Provisioning, blocked by an 'untestable' finding: INCOMPLETE. */
  blockedUntestable: 'registration-flow.admin-activate-version',
} as const;

/** How many cases the suites hold, for the partial variant's "N of M". */
export const SYNTHETIC_TOTAL_CASES = 180;

export const SYNTHETIC_GREP = ['gateway-info', 'list-agents'];

export const PREFLIGHT_MISSING: PreflightFinding = {
  profile: 'self-registration',
  kind: 'missing',
  message:
    'Self Registration is claimed, but the gateway agents.example does not advertise urn:xmpp:agent-api:0#self-register: found instead: urn:solstice:register:1',
};

export const PREFLIGHT_UNTESTABLE: PreflightFinding = {
  profile: 'admin-provisioning',
  kind: 'untestable',
  message:
    'Administrative Provisioning is claimed, but the gateway does not advertise urn:xmpp:agent-api:0#admin; the spec allows local administration instead, which this suite cannot drive',
};

export const MISSING_FIXTURE_REASON =
  'needs the fixture world: give the SUT "fixtures": "world-file" (docs/sut.md), so the suite knows its endpoints and grants';

/** The `baseline` variant's entries: the failed case (still failing) and the passed one (stale). */
export const BASELINE = {
  [CASE_IDS.failed]: 'issue #7: profiles are advertised only after the first registration',
  [CASE_IDS.passed]: 'issue #3: identity missing before 2.1',
} as const;

/** What the failed case's violation says it received; carries XML and characters XML must escape. */
export const FAILED_RECEIVED =
  "<iq type='result' from='agents.example'><query xmlns='http://jabber.org/protocol/disco#info'><feature var='urn:xmpp:agent-directory:0'/></query></iq>";
export const FAILED_EXPECTED =
  "<feature var='jabber:iq:search'/> (profile jabber-search) & nothing else missing";

/** The failed case's first attempt failed differently from its second (the reports keep both). */
export const FIRST_ATTEMPT_VIOLATION = {
  requirement: 'gateway-info.features',
  expected: FAILED_EXPECTED,
  received:
    "<iq type='error' from='agents.example'><error type='wait'><resource-constraint xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>",
  message: 'gateway-info.features: disco#info answered resource-constraint',
};

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
  extra: Partial<Pick<AttemptReport, 'violation' | 'reason' | 'attempt' | 'seed' | 'checks'>> & {
    warnings?: Finding[];
  } = {},
): AttemptReport {
  if (extra.reason !== undefined) t.note(`verdict: ${outcome}: ${extra.reason}`);
  return {
    attempt: extra.attempt ?? 1,
    seed: extra.seed ?? 0,
    outcome,
    durationMs,
    ...(extra.violation === undefined ? {} : { violation: extra.violation }),
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    warnings: extra.warnings ?? [],
    checks: extra.checks ?? (outcome === 'passed' ? 1 : 0),
    decided: [],
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
        { warnings: [passedWarning], seed: 1001 },
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
        attempts: [attempt(failingTranscript(20), 'passed', 8, { seed: 1002 })],
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
          attempt(failingTranscript(20), 'failed', 9, {
            violation: FIRST_ATTEMPT_VIOLATION,
            reason: FIRST_ATTEMPT_VIOLATION.message,
            seed: 1002,
          }),
          attempt(failingTranscript(40), 'failed', 7.25, {
            violation,
            reason: violation.message,
            attempt: 2,
            seed: 2002,
          }),
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
    ...(allPass
      ? {}
      : { reason: `flaky: failed, then passed when re-run alone (first attempt: ${flakyReason})` }),
    attempts: allPass
      ? [
          attempt(
            transcript(CASE_IDS.flaky, 60, (t) => t.note('paged 3 items')),
            'passed',
            30,
            { seed: 1003 },
          ),
        ]
      : [
          attempt(
            transcript(CASE_IDS.flaky, 60, (t) => t.note('no reply')),
            'failed',
            10_000,
            {
              reason: flakyReason,
              seed: 1003,
            },
          ),
          attempt(
            transcript(CASE_IDS.flaky, 10_080, (t) => t.note('paged 3 items')),
            'passed',
            30,
            {
              attempt: 2,
              seed: 2003,
            },
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

/** A case that never ran an attempt (blocked, inapplicable) or ran one that could not decide. */
function gapCase(
  id: string,
  profile: ProfileId,
  requirement: RequirementId,
  statement: string,
  outcome: 'cantTell' | 'inapplicable',
  reason: string,
  seed: number,
  ran: boolean,
): CaseResult {
  return {
    case: testCase(id, { requirements: [requirement], profiles: [profile], level: 'MUST', statement }),
    outcome,
    seed,
    flaky: false,
    reason,
    attempts: ran
      ? [
          attempt(
            transcript(id, 20_000, (t) => t.note('looking for the fixture world')),
            outcome,
            0.5,
            { reason, seed },
          ),
        ]
      : [],
  };
}

/** One case per verdict the default run lacks: INCOMPLETE, NOT ASSESSED, failed by the preflight. */
function gapCases(): CaseResult[] {
  return [
    gapCase(
      GAP_CASE_IDS.missingFixture,
      'core-directory',
      'list-agents.visibility-filter',
      'A hidden endpoint is absent from the directory a stranger lists.',
      'cantTell',
      MISSING_FIXTURE_REASON,
      1006,
      true,
    ),
    gapCase(
      GAP_CASE_IDS.notAssessed,
      'tool-discovery',
      'tool-info.optional-fields',
      'A tool that declares progress advertises it on its node.',
      'inapplicable',
      'the SUT does not advertise urn:xmpp:agent-task:0#progress',
      1007,
      false,
    ),
    gapCase(
      GAP_CASE_IDS.blockedMissing,
      'self-registration',
      'registration-flow.no-fake-self-auth',
      'An account registers an agent under its own bare JID.',
      'cantTell',
      `blocked by the preflight: ${PREFLIGHT_MISSING.message}`,
      1008,
      false,
    ),
    gapCase(
      GAP_CASE_IDS.blockedUntestable,
      'admin-provisioning',
      'registration-flow.admin-operations',
      'The administrator activates a registered version.',
      'cantTell',
      `blocked by the preflight: ${PREFLIGHT_UNTESTABLE.message}`,
      1009,
      false,
    ),
  ];
}

export interface SyntheticRunOptions {
  /** Every case that ran passes (for a second row in the interop matrix). */
  readonly allPass?: boolean;
  readonly subjectName?: string;
  readonly runId?: string;
  /** A --grep run (SYNTHETIC_GREP): the cases here are SYNTHETIC_TOTAL_CASES' selection. */
  readonly partial?: boolean;
  /** The SUT's fixtures mode (default world-file). */
  readonly fixtures?: FixtureProvisioning;
  /**
   * Also claims Tool Discovery (NOT ASSESSED: its one MUST case is inapplicable), Self
   * Registration (FAILED by a 'missing' preflight finding) and Administrative Provisioning
   * (INCOMPLETE: an 'untestable' finding blocks its case), and gives Core Directory a case that
   * cannot tell without the fixture world (INCOMPLETE when nothing of it fails).
   */
  readonly gaps?: boolean;
  /** Judged with BASELINE: the failed case is excused, the passed case's entry is stale. */
  readonly baseline?: boolean;
}

export function syntheticRunResult(options: SyntheticRunOptions = {}): RunResult {
  const gaps = options.gaps === true;
  const cases = [...syntheticCases(options.allPass === true), ...(gaps ? gapCases() : [])];
  const claimed: ProfileId[] = [
    'core-directory',
    'jabber-search',
    ...(gaps ? (['tool-discovery', 'self-registration', 'admin-provisioning'] as const) : []),
  ];
  const preflight = gaps ? [PREFLIGHT_MISSING, PREFLIGHT_UNTESTABLE] : [];
  const baseline: Record<string, string> = options.baseline === true ? { ...BASELINE } : {};
  const profiles = profileVerdicts(cases, {
    claimed: new Set(claimed),
    strict: false,
    blockers: preflight.filter((finding) => finding.kind === 'missing'),
    baseline: { expectedFailures: new Map(Object.entries(baseline)) },
  });
  const staleBaseline = staleBaselineEntries(cases, { expectedFailures: new Map(Object.entries(baseline)) });
  const partial = options.partial === true;
  // The runner's rule (run-conformance.ts): a profile the selection left out does not fail a partial run.
  const selectedMust = (profile: ProfileId) =>
    cases.some((result) => result.case.level === 'MUST' && result.case.profiles.includes(profile));
  return {
    runId: options.runId ?? '2026-11-29T10-00-00-000Z-synth1',
    startedAt: SYNTHETIC_STARTED_AT,
    durationMs: 12_345.6,
    setupMs: 9_000,
    seed: SYNTHETIC_RUN_SEED,
    strict: false,
    deep: false,
    suiteVersion: '0.1.0',
    specRevision: '0.0.5',
    provider: 'native',
    servers: { a: 'prosody', b: 'prosody', hostile: 'prosody' },
    subject: {
      name: options.subjectName ?? 'Example Gateway <beta> & co',
      version: '2.1.0',
      homepage: 'https://gateway.example/',
      gatewayJid: 'agents.example',
      profiles: claimed,
      features: ['http://jabber.org/protocol/disco#info', 'urn:xmpp:agent-directory:0'],
    },
    cases,
    selection: {
      grep: partial ? SYNTHETIC_GREP : [],
      profiles: [],
      selectedCases: cases.length,
      totalCases: partial ? SYNTHETIC_TOTAL_CASES : cases.length,
    },
    partial,
    preflight,
    fixtures: options.fixtures ?? 'world-file',
    profiles,
    baseline,
    staleBaseline,
    unknownBaseline: [],
    passed:
      profiles.every(
        (profile) =>
          profile.verdict === 'passed' ||
          profile.verdict === 'not-claimed' ||
          (profile.verdict === 'not-assessed' && partial && !selectedMust(profile.profile)),
      ) && staleBaseline.length === 0,
  };
}
