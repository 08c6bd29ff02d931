// docs/ci.md's recipes as data: its fenced shell blocks and its CI jobs, parsed with a YAML parser
// into only what the tests execute or compare. Anything in a job this reading does not model (an
// expression, a step that is neither `uses` nor `run`, a condition other than always()) is an
// error, so that the doc cannot grow a feature the tests silently skip.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

import { REPO_ROOT } from '../../harness/repo-root.ts';

export const CI_DOC_PATH = join(REPO_ROOT, 'docs', 'ci.md');

export function readCiDoc(): string {
  return readFileSync(CI_DOC_PATH, 'utf8');
}

/** The text of the one fenced block whose info string is exactly `info` (e.g. `sh ci-install`). */
export function fencedBlock(doc: string, info: string): string {
  const matches = [...doc.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].filter((match) => match[1] === info);
  if (matches.length !== 1 || matches[0]?.[2] === undefined) {
    throw new Error(`docs/ci.md has ${String(matches.length)} \`\`\`${info} blocks, expected exactly one`);
  }
  return matches[0][2];
}

export interface GithubStep {
  readonly name: string;
  /** Runs even after a failed step (`if: always()`); otherwise only while every step succeeded. */
  readonly always: boolean;
  readonly run?: string;
  readonly uses?: string;
  readonly with: Readonly<Record<string, string>>;
}

export interface GithubJob {
  readonly env: Readonly<Record<string, string>>;
  /** The argv a `run:` step's script file is given to, as GitHub runs `shell: bash`. */
  readonly shell: readonly string[];
  readonly steps: readonly GithubStep[];
}

export interface GitlabJob {
  readonly variables: Readonly<Record<string, string>>;
  readonly script: readonly string[];
  readonly artifactsWhen: string;
  readonly artifactPaths: readonly string[];
  readonly junit: string;
}

type Mapping = Record<string, unknown>;

function mapping(value: unknown, where: string): Mapping {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where} is not a mapping`);
  return value as Mapping;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where} is not a string`);
  if (value.includes('${{')) throw new Error(`${where} uses a GitHub expression, which the tests cannot run`);
  return value;
}

function strings(value: unknown, where: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(mapping(value, where)).map(([key, item]) => [key, text(item, `${where}.${key}`)]),
  );
}

/** The only job of a GitHub workflow in the block ```yaml INFO. */
export function githubJob(doc: string, info: string): GithubJob {
  const workflow = mapping(parse(fencedBlock(doc, `yaml ${info}`)), info);
  const jobs = Object.values(mapping(workflow['jobs'], `${info}: jobs`));
  if (jobs.length !== 1) throw new Error(`${info}: expected one job, found ${String(jobs.length)}`);
  const job = mapping(jobs[0], `${info}: the job`);
  const shell = mapping(mapping(job['defaults'], `${info}: defaults`)['run'], `${info}: defaults.run`)[
    'shell'
  ];
  if (shell !== 'bash')
    throw new Error(`${info}: defaults.run.shell must be bash, the shell the jobs are tested with`);
  const rawSteps = job['steps'];
  if (!Array.isArray(rawSteps)) throw new Error(`${info}: steps is not a list`);
  const steps = rawSteps.map((raw: unknown, index): GithubStep => {
    const where = `${info}: step ${String(index + 1)}`;
    const step = mapping(raw, where);
    const condition = step['if'];
    if (condition !== undefined && condition !== 'always()')
      throw new Error(`${where}: if: ${JSON.stringify(condition)} is not modelled`);
    const run = step['run'] === undefined ? undefined : text(step['run'], `${where}.run`);
    const uses = step['uses'] === undefined ? undefined : text(step['uses'], `${where}.uses`);
    if ((run === undefined) === (uses === undefined))
      throw new Error(`${where} must have exactly one of run and uses`);
    return {
      name: typeof step['name'] === 'string' ? step['name'] : (uses ?? `step ${String(index + 1)}`),
      always: condition === 'always()',
      ...(run === undefined ? {} : { run }),
      ...(uses === undefined ? {} : { uses }),
      with: step['with'] === undefined ? {} : strings(step['with'], `${where}.with`),
    };
  });
  return {
    env: strings(job['env'], `${info}: env`),
    // What GitHub runs for `shell: bash` (its documented template: bash --noprofile --norc -eo pipefail {0}).
    shell: ['bash', '--noprofile', '--norc', '-eo', 'pipefail'],
    steps,
  };
}

/** The only job of a .gitlab-ci.yml in the block ```yaml INFO. */
export function gitlabJob(doc: string, info: string): GitlabJob {
  const file = mapping(parse(fencedBlock(doc, `yaml ${info}`)), info);
  const jobs = Object.values(file);
  if (jobs.length !== 1) throw new Error(`${info}: expected one job, found ${String(jobs.length)}`);
  const job = mapping(jobs[0], `${info}: the job`);
  const script = job['script'];
  if (!Array.isArray(script)) throw new Error(`${info}: script is not a list`);
  const artifacts = mapping(job['artifacts'], `${info}: artifacts`);
  const paths = artifacts['paths'];
  if (!Array.isArray(paths)) throw new Error(`${info}: artifacts.paths is not a list`);
  return {
    variables: strings(job['variables'], `${info}: variables`),
    script: script.map((item: unknown, index) => text(item, `${info}: script item ${String(index + 1)}`)),
    artifactsWhen: text(artifacts['when'], `${info}: artifacts.when`),
    artifactPaths: paths.map((item: unknown, index) =>
      text(item, `${info}: artifacts.paths ${String(index + 1)}`),
    ),
    junit: text(
      mapping(artifacts['reports'], `${info}: artifacts.reports`)['junit'],
      `${info}: artifacts.reports.junit`,
    ),
  };
}

/** The jobs as pairs: each GitHub job and its GitLab twin, by the gateway's launch. */
export const JOB_KINDS = ['launched', 'external'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
