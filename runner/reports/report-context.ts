/**
 * What every format needs beside the RunResult: who judged (the suite, described for EARL's
 * assertedBy) and the registry entries of the requirements the cases cite (their level and our
 * one-line summary), looked up without throwing so a report never dies after a long run.
 */
import { committedRegistry, type Registry, type Requirement } from '../../suites/registry/registry.ts';
import type { RunResult } from '../run-result.ts';

export interface SuiteIdentity {
  readonly name: string;
  readonly version: string;
  readonly homepage?: string;
}

export interface ReportContext {
  readonly suite: SuiteIdentity;
  requirement(id: string): Requirement | undefined;
}

export interface ReportContextOptions {
  readonly registry?: Registry;
  /** The suite's homepage (package.json "homepage"), when the project has one. */
  readonly suiteHomepage?: string;
}

export function reportContext(result: RunResult, options: ReportContextOptions = {}): ReportContext {
  const registry = options.registry ?? committedRegistry();
  const byId = new Map(registry.requirements.map((entry) => [entry.id, entry]));
  return {
    suite: {
      name: 'agentconf',
      version: result.suiteVersion,
      ...(options.suiteHomepage === undefined ? {} : { homepage: options.suiteHomepage }),
    },
    requirement: (id) => byId.get(id),
  };
}
