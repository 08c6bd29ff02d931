/**
 * The whole outcome of one conformance run: what every report (terminal table, JUnit, Allure,
 * EARL, conformance statement, interop matrix) is generated from, and nothing else.
 */
import type { ProfileId } from '../protocol/profiles.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { PreflightFinding } from '../suites/framework/preflight.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import type { ProfileVerdict } from './profile-verdicts.ts';
import type { Pace } from './request-pacing.ts';
import type { CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import type { AssessmentVerdict } from './assessment-verdicts.ts';
import type { RunServers } from './server-stack.ts';

export interface RunSubject {
  readonly name: string;
  readonly version?: string;
  readonly homepage?: string;
  readonly gatewayJid: string;
  /** Claimed profiles with the ones they build on. */
  readonly profiles: readonly ProfileId[];
  /** What the gateway advertised in disco#info at the start of the run. */
  readonly features: readonly string[];
}

export interface RunResult {
  readonly runId: string;
  /** ISO 8601 wall-clock start. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** Of which: federation and gateway start-up. */
  readonly setupMs: number;
  readonly seed: number;
  readonly strict: boolean;
  /** Run with --deep: the adversarial cases spent their deep budgets. */
  readonly deep: boolean;
  readonly suiteVersion: string;
  readonly specRevision: string;
  readonly provider: string;
  /** Which server implementation served each role of the federation. */
  readonly servers: RunServers;
  readonly subject: RunSubject;
  readonly cases: readonly CaseResult[];
  /** What was asked to run: --grep patterns, --profile filters, and how many cases that left. */
  readonly selection: {
    readonly grep: readonly string[];
    readonly profiles: readonly ProfileId[];
    readonly selectedCases: number;
    readonly totalCases: number;
  };
  /** Why the run stopped judging (the launched gateway exited on its own); the rest is cantTell. */
  readonly abortedBy?: string;
  /** The run was interrupted (e.g. "interrupted (SIGINT)"): the cases after it were not run. */
  readonly interrupted?: string;
  /** The pace the run kept to the gateway's documented rate (request-pacing.ts), when it kept one. */
  readonly pace?: Pace;
  /** Fewer cases ran than the suites hold: the verdicts speak for the selection only. */
  readonly partial: boolean;
  /** Missing required features (the claimed profile fails) and untestable claims, found before any case. */
  readonly preflight: readonly PreflightFinding[];
  /** How the SUT's fixtures were provided (docs/sut.md), which decides what the cases can know. */
  readonly fixtures: SutConfig['fixtures'];
  /**
   * With "admin-iq": the operator checklist (what Administrative Provisioning cannot express,
   * runner/admin-fixtures.ts), each item with whether the SUT file confirms it.
   */
  readonly fixtureChecklist?: readonly {
    readonly id: string;
    readonly text: string;
    readonly confirmed: boolean;
  }[];
  readonly profiles: readonly ProfileVerdict[];
  /** The baseline the run was judged with (case ID → why it is expected to fail); {} without one. */
  readonly baseline: Readonly<Record<string, string>>;
  /** Baseline entries whose case now passes: the baseline must be updated. */
  readonly staleBaseline: readonly string[];
  /** Baseline entries naming no case. */
  readonly unknownBaseline: readonly string[];
  /**
   * Every claimed profile passed (of the selection, when partial), the baseline is current, and
   * every assessment run passed.
   */
  readonly passed: boolean;
  /** The caller under test the SUT file declares, when the run judged one (docs/caller.md). */
  readonly caller?: { readonly kind: 'mcp' | 'gateway-tool'; readonly name: string };
  /** The caller cases run (suites/caller/), in suite order. */
  readonly callerCases?: readonly CallerCaseResult[];
  /** The caller's assessments: not spec profiles, shown beside them (runner/assessment-verdicts.ts). */
  readonly assessments?: readonly AssessmentVerdict[];
}
