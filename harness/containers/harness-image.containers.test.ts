// The whole-harness image (harness/containers/Dockerfile, docs/ci.md): built with the local engine
// by build-harness-image, then `agentconf run` inside it, Prosody as native processes there.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../repo-root.ts';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const IMAGE = `local/agentconf:${VERSION}`;

describe('the whole-harness image', () => {
  it('builds and passes agentconf run --grep gateway-info', () => {
    execFileSync(join(REPO_ROOT, 'harness', 'containers', 'build-harness-image'), [IMAGE], {
      stdio: 'inherit',
    });
    const run = spawnSync(
      'docker',
      [
        'run',
        '--rm',
        IMAGE,
        'run',
        '--grep',
        'gateway-info',
        '--provider',
        'native',
        '--out',
        '/tmp/agentconf',
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('#gateway-info');
  }, 900_000);
});
