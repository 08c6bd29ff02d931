// Runs a GitHub Actions job of docs/ci.md the way the runner would, minus the service: each `run:`
// step's script as a file given to the job's shell, in order, in the workspace, with the job's
// env; after a failed step only the `if: always()` steps run. The three actions the jobs use are
// stood in for: checkout is the workspace the caller prepared, upload-artifact and the JUnit
// report are recorded, for the caller to check that their paths hold the files.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { CleanRoot } from '../clean-root/clean-root.ts';
import type { GithubJob } from './ci-doc.ts';

export interface StepOutcome {
  readonly name: string;
  /** Undefined when the step was skipped or is an action. */
  readonly exitCode?: number;
  readonly skipped: boolean;
}

export interface JobOutcome {
  readonly steps: readonly StepOutcome[];
  /** The exit code of each `run:` step that ran, in order. */
  readonly runExitCodes: readonly number[];
  /** Workspace-relative paths the artifact upload ran for (skipped uploads are left out). */
  readonly uploaded: readonly string[];
  /** Workspace-relative JUnit files the report action ran for. */
  readonly junitReports: readonly string[];
}

export interface JobRunOptions {
  /** The checkout, inside the root. */
  readonly workspace: string;
  /** Variables set as the CI service's settings would (over the job's env). */
  readonly env?: Readonly<Record<string, string>>;
  /** Host file receiving every step's output. */
  readonly logFile: string;
}

const ACTIONS = ['actions/checkout@', 'actions/upload-artifact@', 'mikepenz/action-junit-report@'] as const;

export async function runGithubJob(
  root: Pick<CleanRoot, 'run' | 'copyIn'>,
  job: GithubJob,
  options: JobRunOptions,
): Promise<JobOutcome> {
  const scripts = await mkdtemp(join(tmpdir(), 'agentconf-ci-steps-'));
  const steps: StepOutcome[] = [];
  const runExitCodes: number[] = [];
  const uploaded: string[] = [];
  const junitReports: string[] = [];
  let failed = false;
  try {
    for (const [index, step] of job.steps.entries()) {
      if (failed && !step.always) {
        steps.push({ name: step.name, skipped: true });
        continue;
      }
      if (step.uses !== undefined) {
        const action = ACTIONS.find((prefix) => step.uses?.startsWith(prefix));
        if (action === undefined)
          throw new Error(`the step ${step.name} uses ${step.uses}, which no test stands in for`);
        if (action === 'actions/upload-artifact@') uploaded.push(required(step.with, 'path', step.name));
        if (action === 'mikepenz/action-junit-report@')
          junitReports.push(required(step.with, 'report_paths', step.name));
        steps.push({ name: step.name, skipped: false });
        continue;
      }
      // GitHub writes the step to a file and runs the shell on it; so do we, inside the root.
      const file = `step-${String(index + 1)}.sh`;
      await writeFile(join(scripts, file), step.run ?? '');
      await root.copyIn(join(scripts, file), `/root/ci-steps/${file}`);
      const { exitCode } = await root.run([...job.shell, `/root/ci-steps/${file}`].join(' '), {
        cwd: options.workspace,
        env: { CI: 'true', ...job.env, ...options.env },
        logFile: options.logFile,
      });
      steps.push({ name: step.name, exitCode, skipped: false });
      runExitCodes.push(exitCode);
      if (exitCode !== 0) failed = true;
    }
  } finally {
    await rm(scripts, { recursive: true, force: true });
  }
  return { steps, runExitCodes, uploaded, junitReports };
}

function required(values: Readonly<Record<string, string>>, key: string, step: string): string {
  const value = values[key];
  if (value === undefined) throw new Error(`the step ${step} has no with.${key}`);
  return value;
}
