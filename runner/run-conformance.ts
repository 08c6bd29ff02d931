/**
 * Runs the selected cases against a started session, in suite order: one at a time by default
 * (cases share the role callers, and a gateway is judged on one conversation at a time so its
 * transcript reads plainly), or with `jobs` above 1 the cases that may run alongside others
 * several at once, each on callers of its own (runner/case-concurrency.ts, case-schedule.ts);
 * and assembles the RunResult.
 */
import { xml } from '@xmpp/xml';
import { Transcript } from '../harness/driver/index.ts';
import { NS } from '../protocol/namespaces.ts';
import { secondReplyViolations } from '../suites/framework/second-replies.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import type { ConformanceCase, Suite } from '../suites/framework/case.ts';
import type { CallerPool } from '../suites/framework/context.ts';
import { AttemptBudget } from '../suites/framework/budget.ts';
import { caseSeed, SeededRandom } from '../suites/framework/seeded-random.ts';
import {
  applicability,
  runCase,
  verdictOf,
  type CaseResult,
  type RunCaseOptions,
} from '../suites/framework/run-case.ts';
import {
  DeferredWireChecks,
  MIN_CREDENTIAL_LENGTH,
  REDACTED_SECRET,
  WIRE_CHECK_REQUIREMENTS,
} from '../suites/framework/wire-checks.ts';
import { CannotTell, type RequirementViolation } from '../suites/framework/verdicts.ts';
import { preflight, type PreflightFinding } from '../suites/framework/preflight.ts';
import {
  profileVerdicts,
  staleBaselineEntries,
  unknownBaselineEntries,
  type Baseline,
  type VerdictOptions,
} from './profile-verdicts.ts';
import { knownProfileGaps, profileMusts } from '../suites/registry/profile-coverage.ts';
import { committedRegistry } from '../suites/registry/registry.ts';
import type { RunResult } from './run-result.ts';
import type { ProfileId } from '../protocol/profiles.ts';
import type { RunSession } from './run-session.ts';
import type { Pace } from './request-pacing.ts';
import { recognisePreflightConstraints, recogniseResourceConstraints } from './resource-constraints.ts';
import { selectCases, type CaseSelection } from './select-cases.ts';
import { clearAttemptBlocks, clearedOrWhy } from './attempt-blocks.ts';
import {
  describeLeftover,
  SETTLE_BOUND_MS,
  startsTasks,
  TaskLeftovers,
  type TaskLeftover,
} from './task-leftovers.ts';
import { remoteServerFacts, runServersOf } from './server-stack.ts';
import { companyOf, ROLES_ALONE, ROLES_NOT_BESIDE_READERS, type Company } from './case-concurrency.ts';
import { runSchedule } from './case-schedule.ts';

/** A case the run did not start because the gateway had gone: undecided, with the reason. */
function notRun(testCase: ConformanceCase, runSeed: number, reason: string): CaseResult {
  return {
    case: testCase,
    outcome: 'cantTell',
    seed: caseSeed(runSeed, testCase.id),
    flaky: false,
    reason: `not run: ${reason.split('\n')[0] ?? reason}`,
    attempts: [],
  };
}

export interface RunProgress {
  /** The launched gateway exited on its own: said once; the cases after it are not run. */
  gatewayExited(message: string): void;
  /** What the preflight found missing, before any case runs (nothing is printed when all is well). */
  preflight(findings: readonly PreflightFinding[]): void;
  sectionStarted(section: string, title: string, cases: number): void;
  caseFinished(result: CaseResult): void;
  sectionFinished(section: string, results: readonly CaseResult[]): void;
  /** Cases that passed but failed the run's batched schema checks (decided after the last case). */
  schemaFailures(results: readonly CaseResult[]): void;
  /** Failed cases whose failure was a resource-constraint answer, left undecided (resource-constraints.ts). */
  resourceConstraints?(results: readonly CaseResult[]): void;
  /** The run was interrupted (SIGINT): said once; the cases after it are not run. */
  interrupted?(reason: string): void;
}

/** A request to stop the run early (SIGINT): `reason` once asked, `requested` resolving then. */
export interface RunInterrupt {
  readonly reason: string | undefined;
  readonly requested: Promise<string>;
}

export interface RunConformanceOptions {
  readonly runId: string;
  readonly session: RunSession;
  readonly config: SutConfig;
  readonly suites: readonly Suite[];
  readonly selection: CaseSelection;
  readonly seed: number;
  readonly strict: boolean;
  /** `--deep`: every adversarial case's budget raised (suites/framework/budget.ts). */
  readonly deep?: boolean;
  readonly baseline?: Baseline;
  readonly suiteVersion: string;
  readonly specRevision: string;
  readonly progress: RunProgress;
  /** Per-case limit when the case names none (default: the SUT's task timeout plus the reply timeout). */
  readonly defaultTimeoutMs?: number;
  /** The pace the session's callers keep (request-pacing.ts), for the reasons and the result. */
  readonly pace?: Pace;
  /** Stops the run between cases, or during one (that case is then not run). */
  readonly interrupt?: RunInterrupt;
  /** How many cases may run at once (`--jobs`); 1, the default, runs them one after another. */
  readonly jobs?: number;
}

/** Passed cases during which the gateway sent a schema-invalid element fail with that violation. */
function withWireViolations(
  results: readonly CaseResult[],
  violations: ReadonlyMap<string, RequirementViolation>,
): CaseResult[] {
  return results.map((result) => {
    const violation = violations.get(result.case.id);
    const last = result.attempts.at(-1);
    if (violation === undefined || result.outcome !== 'passed' || last === undefined) return result;
    const failedAttempt = {
      ...last,
      outcome: 'failed' as const,
      violation: {
        requirement: violation.requirement,
        expected: violation.expected,
        received: violation.received,
        message: violation.message,
      },
      reason: violation.message,
    };
    return {
      ...result,
      outcome: 'failed',
      reason: violation.message,
      attempts: [...result.attempts.slice(0, -1), failedAttempt],
    };
  });
}

/**
 * A passed case that left a promise unawaited which rejected after its report was written ends
 * as that rejection says (suites/framework/evidence.ts): nothing a case started fails unseen.
 */
function withLateRejections(
  results: readonly CaseResult[],
  late: ReadonlyMap<string, unknown>,
): CaseResult[] {
  return results.map((result) => {
    const last = result.attempts.at(-1);
    if (!late.has(result.case.id) || result.outcome !== 'passed' || last === undefined) return result;
    const verdict = verdictOf(late.get(result.case.id));
    const reason = `the case left a promise unawaited that rejected after it ended: ${verdict.reason}`;
    return {
      ...result,
      outcome: verdict.outcome,
      reason,
      attempts: [...result.attempts.slice(0, -1), { ...last, ...verdict, reason }],
    };
  });
}

/**
 * A round trip to the gateway from every open caller: a reply it sent before answering this one
 * (a second reply to the last case's last request, say) has arrived once the answer is in, since
 * the gateway's stanzas to one client travel one ordered path. Recorded apart from every case.
 */
async function awaitStragglers(session: RunSession): Promise<void> {
  session.driver.useTranscript(new Transcript('after the last case'));
  const online = session.driver.callers.filter((caller) => caller.status === 'online');
  await Promise.all(
    online.map((caller) =>
      caller.iq(session.facts.gatewayJid, 'get', xml('ping', { xmlns: NS.ping })).catch(() => undefined),
    ),
  );
}

/** Whether the selection included any MUST case of the profile. */
function selectedAny(results: readonly CaseResult[], profile: ProfileId): boolean {
  return results.some((result) => result.case.level === 'MUST' && result.case.profiles.includes(profile));
}

/** Why the run stops judging: the launched gateway gone (abortedBy) or a stop asked (interruptedBy). */
class RunStops {
  abortedBy: string | undefined;
  interruptedBy: string | undefined;
  readonly #session: RunSession;
  readonly #progress: RunProgress;
  readonly #interrupt: RunInterrupt | undefined;

  constructor(session: RunSession, progress: RunProgress, interrupt: RunInterrupt | undefined) {
    this.#session = session;
    this.#progress = progress;
    this.#interrupt = interrupt;
  }

  /** Why the next case must not run, if anything; each reason is said once. */
  beforeCase(): string | undefined {
    const gone = this.#session.gatewayExit();
    if (gone !== undefined && this.abortedBy === undefined && this.interruptedBy === undefined) {
      this.abortedBy = gone;
      this.#progress.gatewayExited(gone);
    }
    const asked = this.#interrupt?.reason;
    if (asked !== undefined) this.interrupted(asked);
    return this.interruptedBy ?? this.abortedBy;
  }

  interrupted(reason: string): void {
    if (this.interruptedBy !== undefined) return;
    this.interruptedBy = reason;
    this.#progress.interrupted?.(reason);
  }
}

/**
 * Builds each attempt's context: its own transcript (the component secret redacted), the role
 * callers recording into it, a seeded random source, the world and the gateway's controls; what
 * the gateway sent is handed to the run's batched wire checks once the case's own checks passed.
 */
function attemptPreparer(
  session: RunSession,
  deep: boolean,
  wireChecks: DeferredWireChecks,
  redactions: readonly { secret: string; label: string }[],
  leftovers: TaskLeftovers,
  jobs: number,
): RunCaseOptions['prepare'] {
  const remoteServer = remoteServerFacts(session.federation);
  return (testCase, seed, warn, attempt) => {
    let left: readonly TaskLeftover[] = [];
    let blocksLeft: readonly string[] = [];
    const transcript = new Transcript(testCase.id, { redactions });
    const company = jobs > 1 ? companyOf(testCase) : 'none';
    const pool = refusingRoles(session.callers.forAttempt(transcript, { own: company === 'any' }), company);
    const budget = new AttemptBudget(deep);
    return {
      transcript,
      budget,
      context: {
        budget,
        sut: session.facts,
        callers: pool,
        random: new SeededRandom(seed),
        attempt,
        ...(session.world === undefined ? {} : { world: session.world }),
        ...(session.sutControl === undefined ? {} : { sutControl: session.sutControl }),
        ...(session.ledger === undefined ? {} : { ledger: session.ledger }),
        remoteServer,
        warn: (requirement, message) => {
          transcript.note(`warning: ${requirement}: ${message}`);
          warn({ requirement, message });
        },
      },
      verify: () => {
        wireChecks.record(testCase.id, transcript.entries);
        return Promise.resolve();
      },
      // Settled before the siblings close: a task's events go to the resource that invoked it.
      dispose: async () => {
        const note = (text: string): void => {
          transcript.note(text);
        };
        [left, blocksLeft] = await Promise.all([
          leftovers.settleAttempt(testCase.id, pool.used(), note),
          clearAttemptBlocks(
            transcript.entries,
            (owner) => session.callers.ownerCaller(owner),
            session.facts.gatewayJid,
          ),
        ]);
        for (const why of blocksLeft) note(`clean-up: ${why}`);
        await pool.release();
      },
      leftover: () => leftAsReason(left, blocksLeft),
    };
  };
}

/**
 * An attempt running alongside others may not act as a role whose acts other cases would see
 * (case-concurrency.ts, ROLES_ALONE), nor one beside them as a role that changes what they read
 * (ROLES_NOT_BESIDE_READERS): the case cannot tell, naming its wrong declaration as a suite defect.
 */
function refusingRoles<Pool extends CallerPool>(pool: Pool, company: Company): Pool {
  if (company === 'none') return pool;
  const roles = company === 'any' ? ROLES_ALONE : ROLES_NOT_BESIDE_READERS;
  const fix =
    company === 'any' ? 'declare it alongside: false' : 'declare it alongside: false to run it alone';
  const refused = Object.fromEntries(
    roles.map((role) => [
      role,
      () =>
        // A defect of the suite's declaration, not the gateway's: never a failure of it.
        Promise.reject(
          new CannotTell(
            `suite defect: the case ${company === 'any' ? 'declares it may run alongside others' : 'runs beside read-only cases'}, yet acts as the ${role}: ${fix}`,
          ),
        ),
    ]),
  );
  return { ...pool, ...refused };
}

function leftAsReason(left: readonly TaskLeftover[], blocksLeft: readonly string[]): string | undefined {
  const parts = [
    ...(left.length === 0
      ? []
      : [
          `left ${left.map(describeLeftover).join('; ')}: later task cases cannot start from a known gateway state`,
        ]),
    ...blocksLeft.map((why) => `left a block it could not remove: ${why}`),
  ];
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * A task case starts only when no task the run's earlier cases left is outstanding: one that
 * still is makes it cantTell naming the leftover, whatever the case would have blamed.
 */
async function fromKnownState(
  testCase: ConformanceCase,
  caseOptions: RunCaseOptions,
  options: RunConformanceOptions,
  leftovers: TaskLeftovers,
): Promise<CaseResult | undefined> {
  if (leftovers.outstanding.length === 0 || !startsTasks(testCase)) return undefined;
  if (applicability(testCase, caseOptions.sut, caseOptions.blockers) !== undefined) return undefined;
  const transcript = new Transcript(`${testCase.id}: tasks left by earlier cases`);
  options.session.driver.useTranscript(transcript);
  const outstanding = await leftovers.recheck((text) => transcript.note(text));
  if (outstanding.length === 0) return undefined;
  return {
    case: testCase,
    outcome: 'cantTell',
    seed: caseSeed(options.seed, testCase.id),
    flaky: false,
    reason: `not run: the gateway is not in a known state: ${outstanding.map(describeLeftover).join('; ')}`,
    attempts: [],
  };
}

/**
 * One case, unless a stop is asked while it runs: its verdict would then come from a run being
 * torn down, so it counts as not run (the session's stop ends what it still does).
 */
async function runOrInterrupt(
  testCase: ConformanceCase,
  caseOptions: RunCaseOptions,
  options: RunConformanceOptions,
  stops: RunStops,
  leftovers: TaskLeftovers,
): Promise<CaseResult> {
  const blocked = await fromKnownState(testCase, caseOptions, options, leftovers);
  if (blocked !== undefined) return blocked;
  const running = runCase(testCase, caseOptions);
  running.catch(() => undefined);
  const interrupted = options.interrupt?.requested.then((reason) => ({ interrupted: reason }));
  const settled = await (interrupted === undefined ? running : Promise.race([running, interrupted]));
  if (!('interrupted' in settled)) return settled;
  stops.interrupted(settled.interrupted);
  return notRun(testCase, options.seed, settled.interrupted);
}

/**
 * The batched checks decided after the last case: a passed case during which the gateway sent a
 * schema-invalid element or a second reply fails with that violation; a failure that was the
 * gateway's resource-constraint answer is left undecided.
 */
async function afterTheLastCase(
  session: RunSession,
  caseResults: readonly CaseResult[],
  wireChecks: DeferredWireChecks,
  options: RunConformanceOptions,
  late: ReadonlyMap<string, unknown>,
): Promise<CaseResult[]> {
  const { progress } = options;
  const violations = await wireChecks.violations();
  const caseIds = new Set(caseResults.map((result) => result.case.id));
  for (const [caseId, violation] of secondReplyViolations(session.driver.secondReplies(), caseIds)) {
    if (!violations.has(caseId)) violations.set(caseId, violation);
  }
  const results = withWireViolations(withLateRejections(caseResults, late), violations);
  const schemaFailures = results.filter(
    (result) => violations.has(result.case.id) && result.outcome === 'failed',
  );
  if (schemaFailures.length > 0) progress.schemaFailures(schemaFailures);
  const constrained = recogniseResourceConstraints(results, session.facts.gatewayJid, options.pace);
  if (constrained.recognised.length > 0) progress.resourceConstraints?.(constrained.recognised);
  return constrained.results;
}

/** The operator checklist as the result records it: each item with whether the SUT file confirms it. */
function confirmedChecklist(session: RunSession): Pick<RunResult, 'fixtureChecklist'> {
  const checklist = session.fixtureChecklist;
  if (checklist === undefined) return {};
  return {
    fixtureChecklist: checklist.items.map((item) => ({
      ...item,
      confirmed: !checklist.unconfirmed.some((open) => open.id === item.id),
    })),
  };
}

/**
 * A claimed profile must pass; one without a decided case passes the run only when the
 * selection (--grep, --profile) deliberately left its cases out, and such a run is labelled
 * PARTIAL wherever it is reported.
 */
function runPassed(
  profiles: RunResult['profiles'],
  results: readonly CaseResult[],
  partial: boolean,
): boolean {
  return profiles.every(
    (profile) =>
      profile.verdict === 'passed' ||
      profile.verdict === 'not-claimed' ||
      (profile.verdict === 'not-assessed' && partial && !selectedAny(results, profile.profile)),
  );
}

interface JudgedCases {
  readonly results: readonly CaseResult[];
  readonly findings: readonly PreflightFinding[];
  readonly stops: RunStops;
  readonly startedAt: Date;
  readonly started: number;
}

/**
 * What each profile's cases must decide between them (the registry's testable MUSTs of it, less
 * the wire checks every case runs and the suite's known gaps), and those known gaps.
 */
function requirementsToDecide(): Pick<VerdictOptions, 'mustDecide' | 'knownGaps'> {
  const known = knownProfileGaps();
  const gapsOf = (profile: ProfileId): string[] =>
    known.filter((gap) => gap.profile === profile).map((gap) => gap.requirement);
  const musts = profileMusts(committedRegistry(), WIRE_CHECK_REQUIREMENTS);
  return {
    mustDecide: new Map(
      [...musts].map(
        ([profile, ids]) => [profile, ids.filter((id) => !gapsOf(profile).includes(id))] as const,
      ),
    ),
    knownGaps: new Map([...musts.keys()].map((profile) => [profile, gapsOf(profile)] as const)),
  };
}

/** The gateway judged, as the reports name it. */
function subjectOf(config: SutConfig, session: RunSession): RunResult['subject'] {
  return {
    name: config.name,
    ...(config.version === undefined ? {} : { version: config.version }),
    ...(config.homepage === undefined ? {} : { homepage: config.homepage }),
    gatewayJid: session.facts.gatewayJid,
    profiles: [...session.facts.profiles],
    features: [...session.facts.features].sort(),
  };
}

/** The RunResult: the cases, the verdict per profile and of the run, and what it ran against. */
function runResultOf(options: RunConformanceOptions, judged: JudgedCases): RunResult {
  const { session, config } = options;
  const { results, findings, stops } = judged;
  const claimed = session.facts.profiles;
  const totalCases = options.suites.reduce((sum, suite) => sum + suite.cases.length, 0);
  const partial = results.length < totalCases || stops.interruptedBy !== undefined;
  const profiles = profileVerdicts(results, {
    claimed,
    strict: options.strict,
    ...requirementsToDecide(),
    partial,
    blockers: findings.filter((finding) => finding.kind === 'missing'),
    ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
  });
  const staleBaseline = staleBaselineEntries(results, options.baseline);
  const unknownBaseline = unknownBaselineEntries(
    options.suites.flatMap((suite) => suite.cases.map((testCase) => testCase.id)),
    options.baseline,
  );
  return {
    runId: options.runId,
    startedAt: judged.startedAt.toISOString(),
    durationMs: performance.now() - judged.started + session.setupMs,
    setupMs: session.setupMs,
    seed: options.seed,
    strict: options.strict,
    deep: options.deep === true,
    suiteVersion: options.suiteVersion,
    specRevision: options.specRevision,
    provider: session.federation.provider,
    servers: runServersOf(session.federation),
    subject: subjectOf(config, session),
    cases: [...results],
    ...(stops.abortedBy === undefined ? {} : { abortedBy: stops.abortedBy }),
    ...(stops.interruptedBy === undefined ? {} : { interrupted: stops.interruptedBy }),
    ...(options.pace === undefined ? {} : { pace: options.pace }),
    selection: {
      grep: [...(options.selection.grep ?? [])],
      profiles: [...(options.selection.profiles ?? [])],
      selectedCases: results.length,
      totalCases,
    },
    partial,
    preflight: [...findings],
    fixtures: config.fixtures,
    ...confirmedChecklist(session),
    profiles,
    baseline: Object.fromEntries(options.baseline?.expectedFailures ?? []),
    staleBaseline,
    unknownBaseline,
    passed:
      stops.interruptedBy === undefined &&
      runPassed(profiles, results, partial) &&
      staleBaseline.length === 0 &&
      unknownBaseline.length === 0,
  };
}

/** What the gateway lacks for a claimed profile, asked once before any case (suites/framework/preflight.ts). */
async function preflightFindings(options: RunConformanceOptions): Promise<PreflightFinding[]> {
  const { session } = options;
  const asked = await preflight({
    caller: await session.callers.callerOf('local'),
    gatewayJid: session.facts.gatewayJid,
    claimed: session.facts.profiles,
    gatewayFeatures: session.facts.features,
    ...(session.world === undefined ? {} : { world: session.world }),
  });
  const findings = recognisePreflightConstraints(asked, options.pace);
  options.progress.preflight(findings);
  return findings;
}

/**
 * Every selected case through the schedule (case-schedule.ts), its progress told in declaration
 * order: a section starts before anything runs or once the section before it has finished (so
 * a sequential run tells it as its first case starts), and finishes with its last result.
 */
async function runSections(
  options: RunConformanceOptions,
  jobs: number,
  run: (testCase: ConformanceCase, company: Company) => Promise<CaseResult>,
): Promise<CaseResult[]> {
  const { progress } = options;
  const sections = selectCases(options.suites, options.selection);
  const order = sections.flatMap(({ cases }, section) =>
    cases.map((testCase, index) => ({ section, testCase, last: index === cases.length - 1 })),
  );
  const started = (section: number): void => {
    const selected = sections[section];
    if (selected !== undefined) {
      progress.sectionStarted(selected.suite.section, selected.suite.title, selected.cases.length);
    }
  };
  let sectionResults: CaseResult[] = [];
  started(0);
  return runSchedule(
    order.map(({ testCase }) => {
      const company = companyOf(testCase);
      return { company, start: () => run(testCase, company) };
    }),
    jobs,
    (result, index) => {
      sectionResults.push(result);
      progress.caseFinished(result);
      const { section, last } = order[index] ?? { section: -1, last: false };
      if (!last) return;
      progress.sectionFinished(sections[section]?.suite.section ?? '', sectionResults);
      sectionResults = [];
      started(section + 1);
    },
  );
}

export async function runConformance(options: RunConformanceOptions): Promise<RunResult> {
  const { session, progress } = options;
  const startedAt = new Date();
  const started = performance.now();
  // The component secret is the one credential the harness knows the gateway holds: no
  // transcript records it (so no report carries it), and a stanza that had it fails the run.
  const secret = session.federation.component.secret;
  const wireChecks = new DeferredWireChecks(session.facts.gatewayJid, [secret]);
  const redactions = secret.length >= MIN_CREDENTIAL_LENGTH ? [{ secret, label: REDACTED_SECRET }] : [];
  // Each account starts the run without the gateway's blocks an earlier run may have left.
  session.callers.onFirstLogin(async (caller) => {
    const why = await clearedOrWhy(caller, session.facts.gatewayJid);
    if (why !== undefined) throw new CannotTell(why);
  });
  const jobs = options.jobs ?? 1;
  const findings = await preflightFindings(options);
  const late = new Map<string, unknown>();
  const leftovers = new TaskLeftovers((owner) => session.callers.ownerCaller(owner), {
    boundMs: Math.min(SETTLE_BOUND_MS, session.facts.taskTimeoutMs),
  });
  const caseOptions: RunCaseOptions = {
    sut: session.facts,
    runSeed: options.seed,
    defaultTimeoutMs: options.defaultTimeoutMs ?? session.facts.taskTimeoutMs + session.facts.replyTimeoutMs,
    blockers: new Map(findings.map((finding) => [finding.profile, finding.message] as const)),
    prepare: attemptPreparer(session, options.deep === true, wireChecks, redactions, leftovers, jobs),
    lateRejection: (caseId, reason) => {
      if (!late.has(caseId)) late.set(caseId, reason);
    },
  };
  const stops = new RunStops(session, progress, options.interrupt);
  const caseResults = await runSections(options, jobs, async (testCase, company) => {
    // The schedule starts a case alone only once every case beside others has ended.
    if (company === 'none') await session.callers.closeIdleOwn();
    const stopReason = stops.beforeCase();
    return stopReason === undefined
      ? runOrInterrupt(testCase, caseOptions, options, stops, leftovers)
      : Promise.resolve(notRun(testCase, options.seed, stopReason));
  });
  // Closed gracefully, the readers' callers take in what was still on its way to them, each into
  // the transcript of the case it was handed to last, before the round trips below.
  await session.callers.closeIdleOwn();
  if (stops.interruptedBy === undefined) await awaitStragglers(session);
  const results = await afterTheLastCase(session, caseResults, wireChecks, options, late);
  return runResultOf(options, { results, findings, stops, startedAt, started });
}
