import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SPEC_PATH, sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import { runArtifactsCli } from './artifacts-cli.ts';

async function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runArtifactsCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

const scratch = mkdtempSync(join(tmpdir(), 'agentconf-cli-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('artifacts:check command line', () => {
  it('exits 2 on usage errors and unreadable files', async () => {
    expect(await run([])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing --spec') as unknown,
    });
    expect(await run(['--spec'])).toMatchObject({ code: 2 });
    expect(await run(['--spec', 'x', '--bogus'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('bogus') as unknown,
    });
    expect(await run(['--spec', join(scratch, 'absent.xml')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot read spec') as unknown,
    });
    expect(await run(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('usage') as unknown,
    });
  });

  it('exits 1 with failures listed when artifacts are missing', async () => {
    const spec = join(scratch, 'tiny.xml');
    writeFileSync(
      spec,
      `<xep><section1 anchor='a'><example caption='x'><![CDATA[<iq/>]]></example></section1></xep>`,
    );
    const { code, stdout } = await run(['--spec', spec, '--repo', scratch]);
    expect(code).toBe(1);
    expect(stdout).toContain('FAIL             artifact-match       xsd/agent-api.xsd');
    expect(stdout).toContain('FAIL             spec-block');
  });

  it('runs as the npm script entry point and sets the exit status', async () => {
    const entry = promisify(execFile)(
      process.execPath,
      ['bin/run-ts.js', 'tools/spec-artifacts/check-cli.ts'],
      {
        cwd: REPO_ROOT,
      },
    );
    await expect(entry).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing --spec') as unknown,
    });
  });

  describe.skipIf(!sharedAvailable(SPEC_PATH, 'artifacts:check CLI on the real spec'))(
    'on the real spec',
    () => {
      it('exits 0 and reports the known spec defects', async () => {
        const { code, stdout } = await run(['--spec', SPEC_PATH]);
        expect(code).toBe(0);
        expect(stdout).toContain('spec v0.0.5');
        expect(stdout).toContain('defect interp-01 manifest-identity');
        expect(stdout).toContain('defect interp-03 task-result-payload');
        expect(stdout).toContain(', 0 failed');
      });
    },
  );
});
