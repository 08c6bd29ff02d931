// docs/ci.md's commands, run as its CI jobs run them: the package packed with `npm pack`, installed
// into an empty folder, `agentconf run` there against the reference gateway. The install is
// offline from the npm cache that `npm ci` filled: the folder gets a lockfile pinning the
// package's dependencies as this repository's lockfile does, and better-sqlite3's native build is
// copied from this repository instead of compiled (its install script takes minutes here).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../harness/repo-root.ts';

const CI_DOC = readFileSync(join(REPO_ROOT, 'docs', 'ci.md'), 'utf8');

function fenced(info: string): string {
  const match = new RegExp('```' + info + '\\n([\\s\\S]*?)```').exec(CI_DOC);
  if (match?.[1] === undefined) throw new Error(`docs/ci.md has no \`\`\`${info} block`);
  return match[1];
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The shell lines of the GitHub job's `run:` steps. */
function githubLines(yaml: string): string[] {
  return lines(yaml.replace(/^\s*run: \|$/gm, ''));
}

/** The GitLab job's `script:` items, YAML double quotes undone. */
function gitlabLines(yaml: string): string[] {
  return lines(yaml)
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2))
    .map((item) => (item.startsWith('"') ? (JSON.parse(item) as string) : item));
}

/** The production part of this repository's lockfile, `resolved` filled in where it is left out. */
function consumerLockfile(): string {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; version?: string; resolved?: string; link?: boolean }>;
  };
  const packages: Record<string, unknown> = { '': { name: 'ci-consumer' } };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.startsWith('node_modules/') || entry.dev === true) continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const base = name.split('/').pop() ?? name;
    packages[key] =
      entry.resolved !== undefined || entry.link === true
        ? entry
        : { ...entry, resolved: `https://registry.npmjs.org/${name}/-/${base}-${String(entry.version)}.tgz` };
  }
  return JSON.stringify({ name: 'ci-consumer', lockfileVersion: 3, requires: true, packages }, null, 2);
}

describe('docs/ci.md', () => {
  it('gives both CI jobs every command of its blocks', () => {
    const blocks = ['sh ci-prosody', 'sh ci-install', 'sh ci-run'].flatMap((info) => lines(fenced(info)));
    const github = githubLines(CI_DOC.slice(CI_DOC.indexOf('## GitHub Actions')).split('```yaml\n')[1] ?? '');
    const gitlab = gitlabLines(CI_DOC.slice(CI_DOC.indexOf('## GitLab CI')).split('```yaml\n')[1] ?? '');
    for (const line of blocks) {
      expect(github, 'GitHub Actions').toContain(line);
      expect(gitlab, 'GitLab CI').toContain(line);
    }
  });

  describe('its commands, on the packed package in an empty folder', () => {
    const work = mkdtempSync(join(tmpdir(), 'agentconf-ci-'));
    afterAll(() => {
      rmSync(work, { recursive: true, force: true });
    });

    it('install it offline and pass agentconf run --grep gateway-info', () => {
      const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      }).trim();
      const tarball = join(work, packed);
      const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' });
      expect(listing).toContain('package/fixtures/sut/reference-gateway.json');
      expect(listing).toContain('package/xsd/agent-api.xsd');
      expect(listing).toContain('package/fixtures/schemas/manifest.schema.json');
      expect(listing).not.toMatch(/\.test\.ts$|\/test-support\//m);

      const job = join(work, 'job');
      mkdirSync(job);
      writeFileSync(join(job, 'package-lock.json'), consumerLockfile());
      const env = {
        ...process.env,
        AGENTCONF_PACKAGE: tarball,
        npm_config_offline: 'true',
        npm_config_ignore_scripts: 'true',
        npm_config_update_notifier: 'false',
      };
      const install = spawnSync('bash', ['-euo', 'pipefail', '-c', fenced('sh ci-install')], {
        cwd: job,
        env,
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
      const sqlite = join(job, 'node_modules', 'better-sqlite3', 'build', 'Release');
      mkdirSync(sqlite, { recursive: true });
      const binding = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
      copyFileSync(join(REPO_ROOT, binding), join(job, binding));

      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', fenced('sh ci-run')], {
        cwd: job,
        env: {
          ...env,
          AGENTCONF_SUT: join(job, 'node_modules', 'agentconf', 'fixtures', 'sut', 'reference-gateway.json'),
          AGENTCONF_ARGS: '--grep gateway-info --provider native',
        },
        encoding: 'utf8',
      });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('#gateway-info');
      expect(existsSync(join(job, 'agentconf-baseline.json'))).toBe(true);
      expect(readFileSync(join(job, 'reports', 'agentconf', 'junit.xml'), 'utf8')).toContain('<testsuite');
      expect(existsSync(join(job, 'reports', 'agentconf', 'conformance.md'))).toBe(true);
      expect(existsSync(join(job, 'node_modules', 'agentconf', 'reports'))).toBe(false);
    }, 120_000);
  });
});
