/**
 * Runs the selected cases against a started session, one at a time in suite order (cases
 * share the role callers, and a gateway is judged on one conversation at a time so its
 * transcript reads plainly), and assembles the RunResult.
 */
import { xml } from '@xmpp/xml';
import { Transcript } from '../harness/driver/index.ts';
import { NS } from '../protocol/namespaces.ts';
import { secondReplyViolations } from '../suites/framework/second-replies.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import type { ConformanceCase, Suite } from '../suites/framework/case.ts';
import { AttemptBudget } from '../suites/framework/budget.ts';
import { caseSeed, SeededRandom } from '../suites/framework/seeded-random.ts';
import { runCase, type CaseResult } from '../suites/framework/run-case.ts';
import {
  DeferredWireChecks,
  MIN_CREDENTIAL_LENGTH,
  REDACTED_SECRET,
} from '../suites/framework/wire-checks.ts';
import type { RequirementViolation } from '../suites/framework/verdicts.ts';
import { preflight, type PreflightFinding } from '../suites/framework/preflight.ts';
import {
  profileVerdicts,
  staleBaselineEntries,
  unknownBaselineEntries,
  type Baseline,
} from './profile-verdicts.ts';
import type { RunResult } from './run-result.ts';
import type { ProfileId } from '../protocol/profiles.ts';
import type { RunSession } from './run-session.ts';
import type { Pace } from './request-pacing.ts';
import { recognisePreflightConstraints, recogniseResourceConstraints } from './resource-constraints.ts';
import { selectCases, type CaseSelection } from './select-cases.ts';

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

export async function runConformance(options: RunConformanceOptions): Promise<RunResult> {
  const { session, config, progress } = options;
  const startedAt = new Date();
  const started = performance.now();
  let results: CaseResult[] = [];
  // The component secret is the one credential the harness knows the gateway holds: no
  // transcript records it (so no report carries it), and a stanza that had it fails the run.
  const secret = session.federation.component.secret;
  const wireChecks = new DeferredWireChecks(session.facts.gatewayJid, [secret]);
  const redactions = secret.length >= MIN_CREDENTIAL_LENGTH ? [{ secret, label: REDACTED_SECRET }] : [];
  const defaultTimeoutMs =
    options.defaultTimeoutMs ?? session.facts.taskTimeoutMs + session.facts.replyTimeoutMs;
  const asked = await preflight({
    caller: await session.callers.callerOf('local'),
    gatewayJid: session.facts.gatewayJid,
    claimed: session.facts.profiles,
    gatewayFeatures: session.facts.features,
    ...(session.world === undefined ? {} : { world: session.world }),
  });
  const findings = recognisePreflightConstraints(asked, options.pace);
  progress.preflight(findings);
  const blockers = new Map(findings.map((finding) => [finding.profile, finding.message] as const));
  const selected = selectCases(options.suites, options.selection);
  let abortedBy: string | undefined;
  let interruptedBy: string | undefined;
  const interruptNow = (reason: string): void => {
    if (interruptedBy !== undefined) return;
    interruptedBy = reason;
    progress.interrupted?.(reason);
  };
  for (const { suite, cases } of selected) {
    progress.sectionStarted(suite.section, suite.title, cases.length);
    const sectionResults: CaseResult[] = [];
    for (const testCase of cases) {
      const gone = session.gatewayExit();
      if (gone !== undefined && abortedBy === undefined && interruptedBy === undefined) {
        abortedBy = gone;
        progress.gatewayExited(gone);
      }
      const asked = options.interrupt?.reason;
      if (asked !== undefined) interruptNow(asked);
      const stopReason = interruptedBy ?? abortedBy;
      if (stopReason !== undefined) {
        const result = notRun(testCase, options.seed, stopReason);
        results.push(result);
        sectionResults.push(result);
        progress.caseFinished(result);
        continue;
      }
      const running = runCase(testCase, {
        sut: session.facts,
        runSeed: options.seed,
        defaultTimeoutMs,
        blockers,
        prepare: (_, seed, warn) => {
          const transcript = new Transcript(testCase.id, { redactions });
          const pool = session.callers.forAttempt(transcript);
          const budget = new AttemptBudget(options.deep === true);
          return {
            transcript,
            budget,
            context: {
              budget,
              sut: session.facts,
              callers: pool,
              random: new SeededRandom(seed),
              ...(session.world === undefined ? {} : { world: session.world }),
              ...(session.sutControl === undefined ? {} : { sutControl: session.sutControl }),
              ...(session.ledger === undefined ? {} : { ledger: session.ledger }),
              warn: (requirement, message) => {
                transcript.note(`warning: ${requirement}: ${message}`);
                warn({ requirement, message });
              },
            },
            verify: () => {
              wireChecks.record(testCase.id, transcript.entries);
              return Promise.resolve();
            },
            dispose: () => pool.release(),
          };
        },
      });
      // An interrupt during the case ends the wait for it: its verdict would come from a run being
      // torn down, so it counts as not run (the session's stop ends what it still does).
      running.catch(() => undefined);
      const interrupted = options.interrupt?.requested.then((reason) => ({ interrupted: reason }));
      const settled = await (interrupted === undefined ? running : Promise.race([running, interrupted]));
      if ('interrupted' in settled) {
        interruptNow(settled.interrupted);
        const result = notRun(testCase, options.seed, settled.interrupted);
        results.push(result);
        sectionResults.push(result);
        progress.caseFinished(result);
        continue;
      }
      const result = settled;
      results.push(result);
      sectionResults.push(result);
      progress.caseFinished(result);
    }
    progress.sectionFinished(suite.section, sectionResults);
  }
  if (interruptedBy === undefined) await awaitStragglers(session);
  const violations = await wireChecks.violations();
  const caseIds = new Set(results.map((result) => result.case.id));
  for (const [caseId, violation] of secondReplyViolations(session.driver.secondReplies(), caseIds)) {
    if (!violations.has(caseId)) violations.set(caseId, violation);
  }
  results = withWireViolations(results, violations);
  const schemaFailures = results.filter(
    (result) => violations.has(result.case.id) && result.outcome === 'failed',
  );
  if (schemaFailures.length > 0) progress.schemaFailures(schemaFailures);
  const constrained = recogniseResourceConstraints(results, session.facts.gatewayJid, options.pace);
  results = constrained.results;
  if (constrained.recognised.length > 0) progress.resourceConstraints?.(constrained.recognised);
  const claimed = session.facts.profiles;
  const totalCases = options.suites.reduce((sum, suite) => sum + suite.cases.length, 0);
  const partial = results.length < totalCases || interruptedBy !== undefined;
  const profiles = profileVerdicts(results, {
    claimed,
    strict: options.strict,
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
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - started + session.setupMs,
    setupMs: session.setupMs,
    seed: options.seed,
    strict: options.strict,
    deep: options.deep === true,
    suiteVersion: options.suiteVersion,
    specRevision: options.specRevision,
    provider: session.federation.provider,
    subject: {
      name: config.name,
      ...(config.version === undefined ? {} : { version: config.version }),
      ...(config.homepage === undefined ? {} : { homepage: config.homepage }),
      gatewayJid: session.facts.gatewayJid,
      profiles: [...claimed],
      features: [...session.facts.features].sort(),
    },
    cases: results,
    ...(abortedBy === undefined ? {} : { abortedBy }),
    ...(interruptedBy === undefined ? {} : { interrupted: interruptedBy }),
    ...(options.pace === undefined ? {} : { pace: options.pace }),
    selection: {
      grep: [...(options.selection.grep ?? [])],
      profiles: [...(options.selection.profiles ?? [])],
      selectedCases: results.length,
      totalCases,
    },
    partial,
    preflight: findings,
    fixtures: config.fixtures,
    ...(session.fixtureChecklist === undefined
      ? {}
      : {
          fixtureChecklist: session.fixtureChecklist.items.map((item) => ({
            ...item,
            confirmed: !session.fixtureChecklist?.unconfirmed.some((open) => open.id === item.id),
          })),
        }),
    profiles,
    baseline: Object.fromEntries(options.baseline?.expectedFailures ?? []),
    staleBaseline,
    unknownBaseline,
    // A claimed profile must pass; one without a decided case passes the run only when the
    // selection (--grep, --profile) deliberately left its cases out, and such a run is labelled
    // PARTIAL wherever it is reported.
    passed:
      interruptedBy === undefined &&
      profiles.every(
        (profile) =>
          profile.verdict === 'passed' ||
          profile.verdict === 'not-claimed' ||
          (profile.verdict === 'not-assessed' && partial && !selectedAny(results, profile.profile)),
      ) &&
      staleBaseline.length === 0 &&
      unknownBaseline.length === 0,
  };
}
