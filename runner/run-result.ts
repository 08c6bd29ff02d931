/**
 * The whole outcome of one conformance run: what every report (terminal table, JUnit, Allure,
 * EARL, conformance statement, interop matrix) is generated from, and nothing else.
 */
import type { ProfileId } from '../protocol/profiles.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { ProfileVerdict } from './profile-verdicts.ts';

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
  readonly suiteVersion: string;
  readonly specRevision: string;
  readonly provider: string;
  readonly subject: RunSubject;
  readonly cases: readonly CaseResult[];
  readonly profiles: readonly ProfileVerdict[];
  /** Baseline entries whose case now passes: the baseline must be updated. */
  readonly staleBaseline: readonly string[];
  /** Baseline entries naming no case. */
  readonly unknownBaseline: readonly string[];
  /** Every claimed profile passed and the baseline is current. */
  readonly passed: boolean;
}
