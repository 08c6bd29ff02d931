// docs/ci.md's recipes, the fast part: the four jobs parsed with a YAML parser run exactly the
// doc's blocks (a GitHub job and its GitLab twin the same text, so the clean-root proof,
// integration/ci-recipes/, runs only the GitHub one), keep their artifacts on every exit code,
// install only a package source that cannot be someone else's, and the image installs what a run
// needs. The jobs themselves run in integration/ci-recipes/ci-recipes.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../harness/repo-root.ts';
import { SYSTEM_TOOLS } from '../harness/system-tools.ts';
import { fencedBlock, githubJob, gitlabJob, JOB_KINDS, readCiDoc } from './ci-recipes/ci-doc.ts';

const doc = readCiDoc();
const RUN_BLOCK = { launched: 'sh ci-run', external: 'sh ci-run-external' } as const;
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const scratch = mkdtempSync(join(tmpdir(), 'agentconf-ci-doc-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs a block as the jobs do (bash -eo pipefail) in an empty folder, with only `env` set. */
function runBlock(block: string, env: Record<string, string>, path = process.env['PATH'] ?? '') {
  const cwd = mkdtempSync(join(scratch, 'job-'));
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', block], {
    cwd,
    env: { PATH: path, HOME: cwd, ...env },
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr, cwd };
}

describe('docs/ci.md', () => {
  for (const kind of JOB_KINDS) {
    describe(`the jobs for a gateway ${kind === 'launched' ? 'the harness launches' : 'the job starts'}`, () => {
      const github = githubJob(doc, `github-${kind}`);
      const gitlab = gitlabJob(doc, `gitlab-${kind}`);
      const runs = github.steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));

      it('GitHub runs the install block, then the run block, one step each', () => {
        expect(runs).toEqual([fencedBlock(doc, 'sh ci-install'), fencedBlock(doc, RUN_BLOCK[kind])]);
      });

      it('GitLab runs the very same text with the same variables', () => {
        expect(gitlab.script).toEqual(runs);
        expect(gitlab.variables).toEqual(github.env);
      });

      it('keeps junit.xml and the report folder on every exit code, on both services', () => {
        const upload = github.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
        const junit = github.steps.find((step) => step.uses?.startsWith('mikepenz/action-junit-report@'));
        expect(upload?.always).toBe(true);
        expect(junit?.always).toBe(true);
        expect(upload?.with['path']).toBe('reports/agentconf');
        expect(junit?.with['report_paths']).toBe('reports/agentconf/junit.xml');
        expect(gitlab.artifactsWhen).toBe('always');
        expect(gitlab.artifactPaths).toEqual(['reports/agentconf/']);
        expect(gitlab.junit).toBe('reports/agentconf/junit.xml');
        expect(fencedBlock(doc, RUN_BLOCK[kind])).toContain('--out reports/agentconf ');
      });

      it("installs the tarball npm pack makes of this version, from the user's vendor/ folder", () => {
        expect(github.env['AGENTCONF_PACKAGE']).toBe(`./vendor/agentconf-${version}.tgz`);
      });
    });
  }

  describe('the install block', () => {
    const install = fencedBlock(doc, 'sh ci-install');
    // npm stood in for by a script that records its arguments: the block's guard is the subject.
    const bin = mkdtempSync(join(scratch, 'bin-'));
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\nprintf "%s\\n" "$*" > npm-arguments\n');
    chmodSync(join(bin, 'npm'), 0o755);
    const path = `${bin}:${process.env['PATH'] ?? ''}`;

    it.each([
      ['unset', {}, 'AGENTCONF_PACKAGE is not set'],
      [
        'a registry name',
        { AGENTCONF_PACKAGE: 'agentconf' },
        'AGENTCONF_PACKAGE=agentconf is not a .tgz path',
      ],
      ['a name and version', { AGENTCONF_PACKAGE: 'agentconf@0.1.0' }, 'a plain name would install'],
      [
        'a path npm reads as GitHub shorthand',
        { AGENTCONF_PACKAGE: 'vendor/agentconf-0.1.0.tgz' },
        'not a .tgz path',
      ],
      [
        'a plain-http URL',
        { AGENTCONF_PACKAGE: 'http://example.com/agentconf-0.1.0.tgz' },
        'not a .tgz path',
      ],
    ])(
      'refuses %s with one sentence and exit 2, before npm',
      (_label, env: Record<string, string>, sentence) => {
        const result = runBlock(install, env, path);
        expect(result.status).toBe(2);
        expect(result.stderr).toContain(sentence);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(() => readFileSync(join(result.cwd, 'npm-arguments'))).toThrow();
      },
    );

    it.each([
      './vendor/agentconf-0.1.0.tgz',
      '/srv/agentconf-0.1.0.tgz',
      'https://example.com/releases/agentconf-0.1.0.tgz',
      'git+https://example.com/owner/agentconf.git#v0.1.0',
    ])('hands %s to npm install', (source) => {
      const result = runBlock(install, { AGENTCONF_PACKAGE: source }, path);
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(join(result.cwd, 'npm-arguments'), 'utf8')).toBe(
        `install --no-save --no-audit --no-fund ${source}\n`,
      );
    });
  });

  it.each(Object.values(RUN_BLOCK))('%s names an unset variable instead of running', (info) => {
    const block = fencedBlock(doc, info);
    expect(block).not.toMatch(/\bnpx\b/);
    const noBaseline = runBlock(block, { AGENTCONF_SUT: 'sut.json' });
    expect(noBaseline.status).not.toBe(0);
    expect(noBaseline.stderr).toContain('set AGENTCONF_BASELINE to your baseline file');
    const noSut = runBlock(block, { AGENTCONF_BASELINE: 'baseline.json' });
    expect(noSut.status).not.toBe(0);
    expect(noSut.stderr).toContain('set AGENTCONF_SUT to your SUT file');
  });

  it('the external helper refuses to start without a gateway command or --out', () => {
    const helper = join(REPO_ROOT, 'examples', 'ci', 'run-external-gateway.sh');
    const noGateway = spawnSync('sh', [helper, '--out', 'reports'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] },
    });
    expect(noGateway.status).toBe(2);
    expect(noGateway.stderr).toContain('AGENTCONF_GATEWAY is not set');
    const noOut = spawnSync('sh', [helper, '--sut', 'sut.json'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'], AGENTCONF_GATEWAY: 'true' },
    });
    expect(noOut.status).toBe(2);
    expect(noOut.stderr).toContain('give --out DIR');
  });

  it('the image installs every system package a default run needs (harness/system-tools.ts)', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'harness', 'containers', 'Dockerfile'), 'utf8');
    const line = /apt-get install -y -qq --no-install-recommends ([^\\\n]+)/.exec(dockerfile)?.[1] ?? '';
    const installed = line.trim().split(/\s+/);
    const needed = [...SYSTEM_TOOLS.values()]
      .filter((tool) => tool.defaultRun === 'required')
      .flatMap((tool) => tool.packages);
    expect(needed.length).toBeGreaterThan(0);
    for (const name of needed)
      expect(installed, `harness/containers/Dockerfile installs ${name}`).toContain(name);
  });
});
