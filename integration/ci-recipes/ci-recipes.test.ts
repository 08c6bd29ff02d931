// docs/ci.md's GitHub Actions jobs, run as written minus the CI service (run-github-job.ts) in a
// clean Debian root holding only Debian, Node 20 and npm (integration/clean-root/): the workspace
// is a user's repository with the `npm pack` tarball of this working tree where the jobs expect
// it, and the reference gateway is the gateway under test, launched by the harness (job a) or
// started by the job's helper (job b). Each job must keep junit.xml, the statement and the logs
// in its artifact on exit 0, 1 and 3. The GitLab twins run the same text (ci-commands.test.ts
// proves it), so they are not run again. Logs: reports/ci-recipes/.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../harness/repo-root.ts';
import { createCleanRoot, type CleanRoot } from '../clean-root/clean-root.ts';
import { requireFreshProofRun } from '../clean-root/fresh-proof-guard.ts';
import { githubJob, readCiDoc, type GithubJob, type JobKind } from './ci-doc.ts';
import { runGithubJob, type JobOutcome } from './run-github-job.ts';

requireFreshProofRun();

const execute = promisify(execFile);
const LOGS = join(REPO_ROOT, 'reports', 'ci-recipes');
const WORKSPACE = '/root/repo';
const PACKAGE = 'node_modules/agentconf';
const doc = readCiDoc();
const jobs: Record<JobKind, GithubJob> = {
  launched: githubJob(doc, 'github-launched'),
  external: githubJob(doc, 'github-external'),
};
const timings: Record<string, number> = {};
let root: CleanRoot;

/** What a user's repository holds besides the tarball: the probes' SUT and baseline files. */
function probeFiles(): Record<string, unknown> {
  const external = JSON.parse(
    readFileSync(join(REPO_ROOT, 'examples', 'external-gateway', 'sut.json'), 'utf8'),
  ) as Record<string, unknown>;
  delete external['$schema'];
  return {
    // A passing case listed as a known failure: the run fails as stale, exit 1.
    'stale-baseline.json': {
      expectedFailures: [
        { case: 'gateway-info.domain-jid', reason: 'a stale entry, to make the run exit 1' },
      ],
    },
    // A launched gateway that exits at once: the run cannot run, exit 3.
    'dead-gateway.json': {
      name: 'a gateway that exits at once',
      component: { secret: 'a fixed secret of this probe' },
      launch: {
        command: ['node', '-e', "console.error('the probe gateway exits at once'); process.exit(4)"],
      },
      profiles: ['core-directory'],
      fixtures: 'manual',
    },
    // The external example, waiting briefly for a gateway that never comes up.
    'external-short-wait.json': {
      ...external,
      timeouts: { startupSeconds: 5, replySeconds: 10, taskSeconds: 30 },
    },
  };
}

beforeAll(async () => {
  await rm(LOGS, { recursive: true, force: true });
  await mkdir(LOGS, { recursive: true });
  let began = Date.now();
  root = await createCleanRoot();
  timings['clean root ms'] = Date.now() - began;

  began = Date.now();
  const host = await mkdtemp(join(tmpdir(), 'agentconf-ci-recipes-'));
  const { stdout } = await execute('npm', ['pack', '--silent', '--pack-destination', host], {
    cwd: REPO_ROOT,
  });
  const tarball = stdout.trim();
  timings['npm pack ms'] = Date.now() - began;
  // Where the jobs' AGENTCONF_PACKAGE says a user keeps it.
  for (const job of Object.values(jobs)) expect(job.env['AGENTCONF_PACKAGE']).toBe(`./vendor/${tarball}`);
  await root.copyIn(join(host, tarball), `${WORKSPACE}/vendor/${tarball}`);
  for (const [name, content] of Object.entries(probeFiles())) {
    await writeFile(join(host, name), `${JSON.stringify(content, null, 2)}\n`);
    await root.copyIn(join(host, name), `${WORKSPACE}/conformance/${name}`);
  }
  await rm(host, { recursive: true, force: true });
}, 30 * 60_000);

afterAll(async () => {
  await writeFile(join(LOGS, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
  await root.dispose();
});

/**
 * One execution of a job in the shared workspace. Its node_modules stays from the one before, as a
 * CI cache would keep it, and its reports folder goes, as in a fresh checkout: the install step
 * still runs as written, and the run gets the empty --out it insists on.
 */
async function execution(kind: JobKind, label: string, env: Record<string, string>): Promise<JobOutcome> {
  await root.run('rm -rf reports', { cwd: WORKSPACE });
  const logFile = join(LOGS, `${kind}-${label}.log`);
  const began = Date.now();
  const outcome = await runGithubJob(root, jobs[kind], { workspace: WORKSPACE, env, logFile });
  timings[`${kind} ${label} ms`] = Date.now() - began;
  return outcome;
}

/** The artifact on the host: what upload-artifact and the JUnit report would have taken. */
function expectArtifacts(outcome: JobOutcome, gatewayLog: string, gatewayText: string): void {
  expect(outcome.uploaded).toEqual(['reports/agentconf']);
  const folder = join(root.dir, WORKSPACE, outcome.uploaded[0] ?? '');
  for (const junit of outcome.junitReports) {
    expect(readFileSync(join(root.dir, WORKSPACE, junit), 'utf8')).toContain('<testsuite');
  }
  expect(outcome.junitReports).toEqual(['reports/agentconf/junit.xml']);
  expect(existsSync(join(folder, 'conformance.md')), 'conformance.md in the artifact').toBe(true);
  expect(readFileSync(join(folder, 'logs', gatewayLog), 'utf8')).toContain(gatewayText);
  for (const server of ['server-a.log', 'server-b.log']) {
    expect(existsSync(join(folder, 'logs', server)), `logs/${server} in the artifact`).toBe(true);
  }
}

const log = (kind: JobKind, label: string): string => `reports/ci-recipes/${kind}-${label}.log`;

describe('job (a), the gateway launched by the harness', () => {
  it(
    'installs the tarball and passes every claimed profile in a full run',
    async () => {
      const outcome = await execution('launched', 'full', {
        AGENTCONF_SUT: `${PACKAGE}/fixtures/sut/reference-gateway.json`,
      });
      expect(outcome.runExitCodes, log('launched', 'full')).toEqual([0, 0]);
      const report = JSON.parse(
        await readFile(join(root.dir, WORKSPACE, 'reports/agentconf/conformance.json'), 'utf8'),
      ) as {
        passed: boolean;
      };
      expect(report.passed).toBe(true);
      expectArtifacts(outcome, 'gateway.log', 'agents.example online via');
    },
    20 * 60_000,
  );

  it(
    'exit 1 (a stale baseline entry) keeps the artifact',
    async () => {
      const outcome = await execution('launched', 'exit-1', {
        AGENTCONF_SUT: `${PACKAGE}/fixtures/sut/reference-gateway.json`,
        AGENTCONF_BASELINE: 'conformance/stale-baseline.json',
        AGENTCONF_ARGS: '--grep gateway-info.domain-jid',
      });
      expect(outcome.runExitCodes, log('launched', 'exit-1')).toEqual([0, 1]);
      expectArtifacts(outcome, 'gateway.log', 'agents.example online via');
    },
    10 * 60_000,
  );

  it(
    'exit 3 (a gateway that exits at once) keeps the artifact',
    async () => {
      const outcome = await execution('launched', 'exit-3', {
        AGENTCONF_SUT: 'conformance/dead-gateway.json',
        AGENTCONF_ARGS: '--grep gateway-info',
      });
      expect(outcome.runExitCodes, log('launched', 'exit-3')).toEqual([0, 3]);
      expectArtifacts(outcome, 'gateway.log', 'the probe gateway exits at once');
    },
    10 * 60_000,
  );
});

describe('job (b), the gateway started by the job', () => {
  const referenceGateway = {
    AGENTCONF_SUT: `${PACKAGE}/examples/external-gateway/sut.json`,
    AGENTCONF_GATEWAY: `sh ${PACKAGE}/examples/ci/start-reference-gateway.sh`,
  };

  it(
    'configures the reference gateway from the connection file and passes #gateway-info',
    async () => {
      const outcome = await execution('external', 'pass', {
        ...referenceGateway,
        AGENTCONF_ARGS: '--grep gateway-info',
      });
      expect(outcome.runExitCodes, log('external', 'pass')).toEqual([0, 0]);
      expectArtifacts(outcome, 'external-gateway.log', 'agents.example online via');
    },
    10 * 60_000,
  );

  it(
    'exit 1 (a stale baseline entry) keeps the artifact',
    async () => {
      const outcome = await execution('external', 'exit-1', {
        ...referenceGateway,
        AGENTCONF_BASELINE: 'conformance/stale-baseline.json',
        AGENTCONF_ARGS: '--grep gateway-info.domain-jid',
      });
      expect(outcome.runExitCodes, log('external', 'exit-1')).toEqual([0, 1]);
      expectArtifacts(outcome, 'external-gateway.log', 'agents.example online via');
    },
    10 * 60_000,
  );

  it(
    'exit 3 (a gateway command that exits at once) keeps the artifact',
    async () => {
      const outcome = await execution('external', 'exit-3', {
        AGENTCONF_SUT: 'conformance/external-short-wait.json',
        AGENTCONF_GATEWAY: 'echo "the probe gateway exits at once" >&2; exit 4',
        AGENTCONF_ARGS: '--grep gateway-info',
      });
      expect(outcome.runExitCodes, log('external', 'exit-3')).toEqual([0, 3]);
      expectArtifacts(outcome, 'external-gateway.log', 'the probe gateway exits at once');
    },
    10 * 60_000,
  );
});
