// Issue 22, item 7 (the false FAIL): with admin-iq fixtures, an operator checklist item left
// unconfirmed makes the cases that need it cantTell (docs/sut.md). The external-gateway example
// with vault@agents.example's runtime neither set up by its operator nor listed in
// "fixturesConfirmed" FAILED invocation.invoke-without-visibility, which never checked the item:
// the hidden endpoint it invokes has nothing to execute its tools.
import { runScript, type ScriptRun } from './test-support/script-run.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../harness/repo-root.ts';
import type { RunResult } from '../runner/run-result.ts';
import { agentconfProcesses } from './test-support/agentconf-process.ts';

const VAULT_RUNTIME = 'runtime:vault@agents.example';
const { tempDir } = agentconfProcesses('agentconf-unconfirmed-');

/** The example's SUT file without the item confirmed. */
function sutWithoutVaultRuntime(dir: string): string {
  const sut = JSON.parse(
    readFileSync(join(REPO_ROOT, 'examples/external-gateway/sut.json'), 'utf8'),
  ) as Record<string, unknown> & { fixturesConfirmed: string[] };
  sut.fixturesConfirmed = sut.fixturesConfirmed.filter((item) => item !== VAULT_RUNTIME);
  delete sut['$schema'];
  const file = join(dir, 'sut.json');
  writeFileSync(file, JSON.stringify(sut));
  return file;
}

/** The example's gateway, its operator having skipped vault's runtime. */
function gatewayWithoutVaultRuntime(dir: string): string {
  const file = join(dir, 'start-gateway.mjs');
  writeFileSync(
    file,
    `import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const { AGENTCONF_CONNECTION_FILE: connection, AGENTCONF_GATEWAY_DIR: data } = process.env;
const config = JSON.parse(execFileSync(process.execPath, [${JSON.stringify(join(REPO_ROOT, 'examples/external-gateway/gateway-config.mjs'))}, connection, data], { encoding: 'utf8' }));
delete config.runtimes['vault@agents.example'];
writeFileSync(data + '/gateway.json', JSON.stringify(config));
const gateway = spawn(process.execPath, [${JSON.stringify(join(REPO_ROOT, 'bin/agentconf.js'))}, 'gateway', '--config', data + '/gateway.json'], { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => gateway.kill(signal));
gateway.on('exit', (code) => process.exit(code ?? 1));
`,
  );
  return file;
}

function runExternal(dir: string, out: string): Promise<ScriptRun> {
  return runScript(
    join(REPO_ROOT, 'examples/ci/run-external-gateway.sh'),
    ['--sut', sutWithoutVaultRuntime(dir), '--out', out, '--grep', 'invocation.invoke-without-visibility'],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, AGENTCONF_GATEWAY: `node '${gatewayWithoutVaultRuntime(dir)}'` },
    },
  );
}

describe('an operator checklist item left unconfirmed (admin-iq fixtures)', () => {
  it(`invocation.invoke-without-visibility cannot tell, naming ${VAULT_RUNTIME}, instead of failing`, async () => {
    const dir = tempDir();
    const out = join(dir, 'reports');
    const { code, output } = await runExternal(dir, out);
    const resultFile = join(out, 'result.json');
    expect(existsSync(resultFile), output).toBe(true);
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as RunResult;
    const invoke = result.cases.find((entry) => entry.case.id === 'invocation.invoke-without-visibility');
    expect(invoke?.outcome, output).toBe('cantTell');
    expect(invoke?.reason).toContain(`operator checklist item ${VAULT_RUNTIME} is not confirmed`);
    // Undecided, not failed: the profile is incomplete (exit 1), never FAIL.
    const taskExecution = result.profiles.find((entry) => entry.profile === 'task-execution');
    expect(taskExecution?.verdict, output).not.toBe('failed');
    expect(code, output).toBe(1);
  }, 300_000);
});
